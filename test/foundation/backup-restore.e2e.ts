import { ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseUrl, dropDatabase, withAdmin } from '../support/database';
import { startEmbeddedService, stopService, RunningService } from '../support/embedded-service';
import { createTestDatabase, TEST_ENV } from '../support/test-app';
import { SERVICE_ENTRY } from '../../src/service-process';

// docs/operations.md "Backup and restore", as an operator runs it: a database with a tenant and its data is
// backed up, restored into a fresh one, and the built service (npm run build first) started on the copy serves
// the data, with the ids and app keys issued before (the same ENCRYPTION_KEY).
const ROOT = join(__dirname, '..', '..');

function sh(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout),
    ),
  );
}

const FIXTURE = {
  site: { name: 'Backed-up shop', domain: 'backup.example.test', payment_test_public_key: 'pk_test_backup' },
  tables: {
    core_users: [{ user_email: 'admin@backup.example.test', password: 'Admin@1234', primary_role: 'admin', firstname: 'Ada' }],
    core_products: [
      { title: 'Kept E-book', price: 2500, tax: 227, bond: 0, IsDigital: 1, IsEvent: 0, meta_status: 'Published' },
      { title: 'Kept Workshop', price: 9000, tax: 818, bond: 1000, IsDigital: 0, IsEvent: 1, meta_status: 'Published' },
    ],
  },
};

/** What a client sees of the tenant: its app key, and its published products with their ids. */
async function served(url: string, appId: number) {
  const site = { 'site-id': String(appId), 'content-type': 'application/json' };
  const app = (await (await fetch(`${url}/getApp`, { method: 'POST', headers: site, body: '{}' })).json()) as { _id: string };
  const rows = (await (
    await fetch(`${url}/getDataRows`, {
      method: 'POST',
      headers: site,
      body: JSON.stringify({ table: 'core_products', fields: 'title,price' }),
    })
  ).json()) as { data: Record<string, unknown>[] };
  const login = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: site,
    body: JSON.stringify({ email: 'admin@backup.example.test', password: 'Admin@1234' }),
  });
  return {
    appKey: app._id,
    products: rows.data.map((row) => ({ _id: row._id, title: row.title, price: row.price })),
    login: login.status,
  };
}

/** The built service on DATABASE_URL `url`, ready when /health/ready answers. */
async function startOn(url: string, port: number): Promise<{ child: ChildProcess; url: string; lines: string[] }> {
  const child = spawn(process.execPath, [join(ROOT, SERVICE_ENTRY)], {
    env: { ...process.env, ...TEST_ENV, LOG_LEVEL: 'info', DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  child.stdout!.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
  child.stderr!.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`service exited: ${lines.join('\n')}`);
    if (
      await fetch(`${base}/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { child, url: base, lines };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('service did not start');
}

const stop = (running: { child: ChildProcess }) => stopService(running as RunningService);

describe('backup and restore (docs/operations.md)', () => {
  const port = 39000 + (process.pid % 400);

  it('PostgreSQL: pg_dump -Fc, pg_restore into a fresh database, the service starts on it and serves the same data, ids and app key', async () => {
    const source = await createTestDatabase();
    const restoredName = `${source.name}_restored`;
    try {
      const fixture = join(mkdtempSync(join(tmpdir(), 'backup-')), 'fixture.json');
      writeFileSync(fixture, JSON.stringify(FIXTURE));
      const seeded = JSON.parse(
        await sh(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'seed', fixture], {
          ...process.env,
          ...TEST_ENV,
          DATABASE_URL: source.url,
        }),
      );
      const original = await startOn(source.url, port);
      let before;
      try {
        before = await served(original.url, seeded.appID);
      } finally {
        await stop(original);
      }
      expect(before.products.map((p) => p.title).sort()).toEqual(['Kept E-book', 'Kept Workshop']);

      // The backup, as the operator takes it from a running database (a consistent snapshot).
      const dump = join(mkdtempSync(join(tmpdir(), 'backup-')), 'platform.dump');
      await sh('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, source.url]);
      // The restore: a fresh, empty database, owned by the service's role.
      await withAdmin((c) => c.query(`CREATE DATABASE "${restoredName}" TEMPLATE template0`));
      const restored = databaseUrl(restoredName);
      await sh('pg_restore', ['--no-owner', '--exit-on-error', '--single-transaction', `--dbname=${restored}`, dump]);

      const status = JSON.parse(
        await sh(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'migrate:status'], {
          ...process.env,
          ...TEST_ENV,
          DATABASE_URL: restored,
        }),
      );
      expect(status.pending).toEqual([]);
      const copy = await startOn(restored, port);
      try {
        expect(await served(copy.url, seeded.appID)).toEqual({ ...before, login: 200 });
        expect(copy.lines.join('\n')).not.toMatch(/Applied migrations/);
      } finally {
        await stop(copy);
      }
    } finally {
      await dropDatabase(restoredName);
      await dropDatabase(source.name);
    }
  });

  it('the embedded database: stop the service, copy DATA_DIR, a service started on the copy serves the same data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'backup-embedded-'));
    const fixture = join(dataDir, '..', `${dataDir.split('/').pop()}-fixture.json`);
    writeFileSync(fixture, JSON.stringify(FIXTURE));
    const { DATABASE_URL: _ignored, ...env } = process.env;
    const seeded = JSON.parse(
      await sh(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'seed', fixture], { ...env, ...TEST_ENV, DATA_DIR: dataDir }),
    );
    const original = await startEmbeddedService(dataDir, port, { LOG_LEVEL: 'info' });
    let before;
    try {
      before = await served(original.url, seeded.appID);
    } finally {
      await stopService(original);
    }
    expect(before.products).toHaveLength(2);

    const copyDir = mkdtempSync(join(tmpdir(), 'restore-embedded-'));
    cpSync(dataDir, copyDir, { recursive: true, preserveTimestamps: true });
    const copy = await startEmbeddedService(copyDir, port, { LOG_LEVEL: 'info' });
    try {
      expect(await served(copy.url, seeded.appID)).toEqual({ ...before, login: 200 });
    } finally {
      await stopService(copy);
    }
  });
});
