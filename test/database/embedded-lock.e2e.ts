import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_ENTRY } from '../../src/service-process';
import { embeddedEnv, startEmbeddedService, stopService } from '../support/embedded-service';

const ROOT = join(__dirname, '..', '..');

const start = startEmbeddedService;
const stop = stopService;

function run(script: string, dataDir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, script), ...args], { env: embeddedEnv(dataDir) }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const cli = (dataDir: string, args: string[]) => run('dist/src/cli.js', dataDir, args);

/** The pid of a process that has ended. */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', '0']);
    child.once('exit', () => resolve(child.pid!));
  });
}

describe('the embedded database has one writer', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-lock-'));
  const lockFile = join(dataDir, 'embedded-db.lock');
  const port = 39500 + (process.pid % 400);

  it('a command is refused while the server holds DATA_DIR, and runs once it stopped; the server sees what it wrote', async () => {
    const server = await start(dataDir, port);
    try {
      expect(JSON.parse(readFileSync(lockFile, 'utf8'))).toMatchObject({ pid: server.child.pid, holder: 'server' });

      const refused = await cli(dataDir, ['tenant:create', '--name', 'Late', '--domain', 'late.example.test']);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      const { message } = JSON.parse(refused.stderr.split('\n')[0]);
      expect(message).toMatch(
        new RegExp(
          `^The embedded database in DATA_DIR .* is in use by the running server \\(pid ${server.child.pid}\\); it has one writer\\. Stop it first, or run both against PostgreSQL \\(DATABASE_URL\\)`,
        ),
      );
      // Reading commands too: the embedded database lives inside the server's process.
      expect((await cli(dataDir, ['tenant:list'])).code).toBe(1);
      // The server kept its lock and carries on.
      expect(JSON.parse(readFileSync(lockFile, 'utf8')).pid).toBe(server.child.pid);
      expect((await fetch(`${server.url}/getApp`, { method: 'POST', headers: { 'site-id': '7' } })).status).toBe(200);
    } finally {
      expect(await stop(server)).toBe(0);
    }
    expect(existsSync(lockFile)).toBe(false);

    const done = await cli(dataDir, ['tenant:create', '--name', 'Late', '--domain', 'late.example.test']);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    const created: { appID: number } = JSON.parse(done.stdout);
    expect(existsSync(lockFile)).toBe(false);

    const again = await start(dataDir, port);
    try {
      const res = await fetch(`${again.url}/getApp`, { method: 'POST', headers: { 'site-id': String(created.appID) } });
      expect(res.status).toBe(200);
    } finally {
      await stop(again);
    }
  }, 120_000);

  it('a stale lock (its process gone) is taken over; a live one stops the server from starting', async () => {
    writeFileSync(lockFile, JSON.stringify({ pid: await deadPid(), holder: 'server', since: new Date().toISOString() }));
    const listed = await cli(dataDir, ['tenant:list']);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((t: { domain: string }) => t.domain)).toContain('late.example.test');
    expect(existsSync(lockFile)).toBe(false);

    // A live holder (this test process, standing in for a command that is still running).
    writeFileSync(lockFile, JSON.stringify({ pid: process.pid, holder: 'seed', since: new Date().toISOString() }));
    const server = await run(SERVICE_ENTRY, dataDir, []);
    expect(server.code).toBe(1);
    expect(server.stderr.trim()).toMatch(
      new RegExp(`^The embedded database in DATA_DIR .* is in use by the running command "seed" \\(pid ${process.pid}\\)`),
    );
    expect(JSON.parse(readFileSync(lockFile, 'utf8')).pid).toBe(process.pid);
  }, 120_000);
});
