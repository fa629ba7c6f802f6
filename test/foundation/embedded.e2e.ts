import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_ENV } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');

interface Running {
  child: ChildProcess;
  lines: string[];
  url: string;
}

/** Starts the built service (`node dist/src/main.js`) without DATABASE_URL: the embedded PostgreSQL in dataDir. */
async function start(dataDir: string, port: number): Promise<Running> {
  const { DATABASE_URL: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/main.js')], {
    env: { ...env, ...TEST_ENV, LOG_LEVEL: 'info', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  child.stdout!.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
  child.stderr!.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`service exited: ${lines.join('\n')}`);
    if (
      await fetch(`${url}/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { child, lines, url };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('service did not start');
}

function stop(running: Running): Promise<number | null> {
  return new Promise((resolve) => {
    running.child.once('exit', (code) => resolve(code));
    running.child.kill('SIGTERM');
  });
}

describe('the service on the embedded database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-data-'));
  const port = 39000 + (process.pid % 500);

  it('starts migrated with the demo tenant, logs JSON with request ids, and keeps its data across a restart', async () => {
    const first = await start(dataDir, port);
    const res = await fetch(`${first.url}/getApp`, { method: 'POST', headers: { 'site-id': '7', 'x-request-id': 'embedded-check-1' } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { payment_test_public_key: string }).payment_test_public_key).toBe('pk_test_demo');
    expect(first.lines.join('\n')).toMatch(/Demo tenant: appID 7/);
    expect(first.lines.join('\n')).toMatch(/curl -s -X POST http:\/\/localhost:\d+\/getApp -H 'site-id: 7'/);

    // The restart must find the migrations applied and the seeded tenant still there.
    expect(await stop(first)).toBe(0);
    const jsonLines = first.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    const requestLine = jsonLines.find((l) => l.msg === 'request' && l.url === '/getApp');
    expect(requestLine).toMatchObject({ requestId: 'embedded-check-1', status: 200, method: 'POST' });
    expect(jsonLines.some((l) => /Shutting down/.test(l.msg))).toBe(true);

    const second = await start(dataDir, port);
    try {
      const again = await fetch(`${second.url}/getApp`, { method: 'POST', headers: { 'site-id': '7' } });
      expect(again.status).toBe(200);
      const log = second.lines.join('\n');
      expect(log).not.toMatch(/Applied migrations/);
      expect(log).toMatch(/Demo tenant: appID 7/);
    } finally {
      await stop(second);
    }
  }, 120_000);
});
