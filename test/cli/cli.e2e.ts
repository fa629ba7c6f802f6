import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase } from '../support/test-app';
import { dropDatabase } from '../support/database';
import { TEST_ENV } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');
const NODE = process.execPath;

/** Runs the built CLI (`node dist/src/cli.js`, what `npm run cli --` runs) against `url`. */
function cli(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [join(ROOT, 'dist/src/cli.js'), ...args],
      { env: { ...process.env, ...TEST_ENV, DATABASE_URL: url } },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function fixtureFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'fixture-')), 'fixture.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

async function count(url: string, table: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
  } finally {
    await client.end();
  }
}

describe('npm run cli', () => {
  let db: { name: string; url: string };
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => dropDatabase(db.name));

  it('migrate applies nothing on a migrated database and prints JSON', async () => {
    const res = await cli(db.url, ['migrate']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ applied: [] });
  });

  it('migrate applies what is not recorded yet (the start checks the record first)', async () => {
    const other = await createTestDatabase();
    try {
      const client = new Client({ connectionString: other.url });
      await client.connect();
      try {
        // As before the newest migration: its record gone and its change undone.
        await client.query(`DELETE FROM typeorm_migrations WHERE name = 'DropProductAppIndex1764001000000'`);
        await client.query('CREATE INDEX core_products_app_idx ON core_products (app_id)');
      } finally {
        await client.end();
      }
      const res = await cli(other.url, ['migrate']);
      expect([res.code, JSON.parse(res.stdout)]).toEqual([0, { applied: ['DropProductAppIndex1764001000000'] }]);
      expect(JSON.parse((await cli(other.url, ['migrate'])).stdout)).toEqual({ applied: [] });
    } finally {
      await dropDatabase(other.name);
    }
  });

  it('seed loads the fixture and prints { appID, ids }', async () => {
    const res = await cli(db.url, [
      'seed',
      fixtureFile({
        site: { id: 501, name: 'Seeded', domain: 'seeded.example.test', disable_email: false },
        tables: {
          core_folders: [{ id: 11, name: 'A' }, { name: 'B' }],
          core_related: [{ parent_table: 'core_folders', parent_id: 11, name: 'core_users', linked: 1 }],
        },
      }),
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.appID).toBe(501);
    expect(out.ids.core_folders[0]).toBe(11);
    expect(out.ids.core_folders).toHaveLength(2);
    expect(out.ids.core_related).toHaveLength(1);
  });

  it.each([
    [{ site: { name: 'X', domain: 'x1.example.test' }, tables: { core_nope: [{ a: 1 }] } }, 'Unknown table "core_nope"'],
    [
      { site: { name: 'X', domain: 'x2.example.test' }, tables: { core_folders: [{ name: 'ok' }, { nmae: 'typo' }] } },
      'Unknown column "nmae" in table "core_folders"',
    ],
    [{ site: { name: 'X', domain: 'x3.example.test', colour9: 'red' } }, 'Unknown column "colour9" in table "core_sites"'],
    [
      { site: { name: 'X', domain: 'x4.example.test' }, tables: { typeorm_migrations: [{ name: 'x' }] } },
      'Unknown table "typeorm_migrations"',
    ],
    [{ tables: {} }, '"site" must be an object'],
  ])('seed fails whole, naming what is wrong, and writes nothing (%#)', async (fixture, message) => {
    const before = [await count(db.url, 'core_sites'), await count(db.url, 'core_folders')];
    const res = await cli(db.url, ['seed', fixtureFile(fixture)]);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stderr.split('\n')[0])).toEqual({ status: 'Failed', message });
    expect([await count(db.url, 'core_sites'), await count(db.url, 'core_folders')]).toEqual(before);
  });

  it('seed refuses an existing site id', async () => {
    const res = await cli(db.url, ['seed', fixtureFile({ site: { id: 501, name: 'Again', domain: 'again.example.test' } })]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/core_sites row 501 already exists/);
  });

  it('tenant:create makes a tenant with generated keys and prints it', async () => {
    const res = await cli(db.url, ['tenant:create', '--name', 'Bookings', '--domain', 'Bookings.Example.test']);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ name: 'Bookings', domain: 'bookings.example.test' });
    expect(out.appID).toBeGreaterThan(501);
    expect(Buffer.from(out.vapid_public_key, 'base64url')).toHaveLength(65);
    expect(res.stdout).not.toMatch(/private/);
    const again = await cli(db.url, ['tenant:create', '--name', 'Dup', '--domain', 'bookings.example.test']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });

  it('runs no background work of its own: a queued mail waits for the service', async () => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const [{ id: appId }] = (
        await client.query(`INSERT INTO core_sites (name, domain) VALUES ('Queue', 'queue.example.test') RETURNING id`)
      ).rows;
      const [{ id }] = (
        await client.query(
          `INSERT INTO core_notification_log (app_id, event, email, email_from, subject, body) VALUES ($1, 'x', 'to@example.test', 'from@example.test', 'S', 'B') RETURNING id`,
          [appId],
        )
      ).rows;
      const res = await cli(db.url, ['tenant:create', '--name', 'Quiet', '--domain', 'quiet.example.test']);
      expect(res.code).toBe(0);
      const [row] = (await client.query('SELECT status, attempts FROM core_notification_log WHERE id = $1', [id])).rows;
      expect(row).toEqual({ status: 'Pending', attempts: 0 });
    } finally {
      await client.end();
    }
  });

  it('explains usage errors with exit code 2', async () => {
    for (const args of [['frobnicate'], ['seed'], ['tenant:create', '--name', 'x'], ['seed', '/no/such/file.json']]) {
      const res = await cli(db.url, args);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/Usage: npm run cli/);
    }
  });
});
