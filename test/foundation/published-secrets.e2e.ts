import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ensureBuilt, SERVICE_MAIN } from '../support/cluster';
import { dropDatabase } from '../support/database';
import { freePort } from '../messaging/support/smtp-peer';
import { createTestDatabase, TEST_ENV } from '../support/test-app';

/*
 * Issue 37, point 5: a production instance refuses the payment keys and webhook secrets this repository
 * publishes (fixtures/demo.json's sk_test_demo, whsec_demo…): anyone could sign the app's payment events with
 * them. Through the built command line and the built service, as an operator runs them.
 */

const ROOT = join(__dirname, '..', '..');
const DEMO = join(ROOT, 'fixtures/demo.json');
const PRODUCTION = { NODE_ENV: 'production', MAIL_TO_FILES: 'true', SMS_TO_FILES: 'true', DOCS_ENABLED: '' };
const REAL = {
  secretKey: 'sk_test_51QxRealLookingKeyOfThisTenantOnly0123456789',
  webhookSecret: 'whsec_9f8e7d6c5b4a39281706f5e4d3c2b1a0',
  testPublic: 'pk_test_51QxRealLookingPublicKey0123456789',
  livePublic: 'pk_live_51QxRealLookingPublicKey0123456789',
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The service's variables of this process left out: only the tests' fixed secrets, the database and `env`. */
function env(url: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const { REDIS_URL: _r, SMTP_URL: _s, SMS_WEBHOOK_URL: _w, PAYMENT_API_URL: _p, DEBUG: _g, ...inherited } = process.env;
  return {
    ...inherited,
    ...TEST_ENV,
    LOG_LEVEL: 'info',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'published-secrets-')),
    HOST: '127.0.0.1',
    DATABASE_URL: url,
    ...extra,
  };
}

function run(file: string, args: string[], environment: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not exit: ${stdout}${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

const cli = (url: string, args: string[], extra: Record<string, string> = PRODUCTION) =>
  run(join(ROOT, 'dist/src/cli.js'), args, env(url, extra));

/** The CLI's refusal: exit 1 and its one-line JSON message. */
function refusal(res: Run): string {
  expect(res.code).toBe(1);
  expect(res.stdout).toBe('');
  const first = JSON.parse(res.stderr.split('\n')[0]) as { status: string; message: string };
  expect(first.status).toBe('Failed');
  return first.message;
}

function fixtureFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'fixture-')), 'fixture.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

async function sql<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Starts the built service in production until it listens (then stops it) or exits. */
async function startService(url: string): Promise<{ listened: boolean } & Run> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [SERVICE_MAIN], {
    env: env(url, { ...PRODUCTION, PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service neither listened nor exited: ${stdout}${stderr}`));
    }, 60_000);
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      if (/"msg":"Listening"/.test(stdout)) {
        clearTimeout(timer);
        child.once('exit', () => resolve({ listened: true, code: 0, stdout, stderr }));
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (/"msg":"Listening"/.test(stdout)) return;
      clearTimeout(timer);
      // The streams close after 'exit': read the last of stderr first.
      const done = () => resolve({ listened: false, code: code ?? 1, stdout, stderr });
      if (child.stderr!.closed) done();
      else child.stderr!.once('close', done);
    });
  });
}

const demo = () => JSON.parse(readFileSync(DEMO, 'utf8')) as { site: Record<string, unknown>; tables: Record<string, unknown[]> };

describe('production refuses the payment keys this repository publishes', () => {
  let db: { name: string; url: string };

  beforeAll(async () => {
    ensureBuilt();
    db = await createTestDatabase();
  }, 240_000);
  afterAll(() => dropDatabase(db.name));

  const sites = () => sql<{ id: number }>(db.url, 'SELECT id FROM core_sites ORDER BY id');

  it('seed refuses fixtures/demo.json, and any fixture whose site holds a published sample, writing nothing', async () => {
    const message = refusal(await cli(db.url, ['seed', DEMO]));
    expect(message).toMatch(
      /^site\.payment_test_private_key, site\.payment_webhook_secret, site\.payment_test_public_key, site\.payment_live_public_key hold published sample values .*tenant:update$/,
    );
    expect(message).not.toMatch(/sk_test_demo|whsec_demo/); // a secret's value is never repeated

    // Recognised by its values, not its file name: a copy under another name, id and domain, one sample each.
    for (const [column, value] of [
      ['payment_webhook_secret', 'whsec_demo'],
      ['payment_test_private_key', 'sk_test_demo'],
      ['payment_live_private_key', 'sk_live_…'],
      ['payment_webhook_secret', 'whsec_your_secret'],
    ]) {
      const site = { id: 70, name: 'Copied', domain: 'copied.example.test', [column]: value };
      expect(refusal(await cli(db.url, ['seed', fixtureFile({ site, tables: demo().tables })]))).toMatch(
        new RegExp(`^site\\.${column} holds a published sample value`),
      );
    }
    expect(await sites()).toEqual([]);
  }, 120_000);

  it('outside production the demo fixture seeds as before; a production start then stops, naming the app and the column', async () => {
    expect((await cli(db.url, ['seed', DEMO], { NODE_ENV: 'development' })).code).toBe(0); // as an older instance did
    const start = await startService(db.url);
    expect(start.listened).toBe(false);
    expect(start.code).toBe(1);
    expect(start.stdout).toBe('');
    const lines = start.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([
      expect.stringMatching(
        /^Refusing to start in production: published sample payment keys .* in app 7 \(shop\.example\.test\): core_sites\.payment_test_private_key, core_sites\.payment_webhook_secret, core_sites\.payment_test_public_key, core_sites\.payment_live_public_key\. .*npm run cli -- tenant:update --app 7 --payment-test-private-key sk_test_… --payment-webhook-secret whsec_…/,
      ),
    ]);
    expect(start.stderr).not.toMatch(/sk_test_demo|whsec_demo/);
  }, 120_000);

  it("tenant:update refuses a published sample in production and changes nothing; the app's own keys let the start go on", async () => {
    const keys = () =>
      sql(
        db.url,
        'SELECT payment_test_private_key, payment_webhook_secret, payment_test_public_key, payment_live_public_key FROM core_sites WHERE id = 7',
      );
    const before = await keys();
    for (const args of [
      ['--payment-webhook-secret', 'whsec_demo'],
      ['--payment-test-private-key', 'sk_test_demo'],
      ['--payment-test-public-key', 'pk_test_demo'],
      ['--payment-webhook-secret', REAL.webhookSecret, '--payment-live-public-key', 'pk_live_demo'],
    ]) {
      const message = refusal(await cli(db.url, ['tenant:update', '--app', '7', ...args]));
      expect(message).toMatch(/^--payment-[a-z-]+ is a published sample value .*which a production instance refuses/);
      expect(message).not.toMatch(/_demo/);
    }
    expect(await keys()).toEqual(before);

    const fixed = await cli(db.url, [
      'tenant:update',
      '--app',
      '7',
      '--payment-test-private-key',
      REAL.secretKey,
      '--payment-webhook-secret',
      REAL.webhookSecret,
      '--payment-test-public-key',
      REAL.testPublic,
      '--payment-live-public-key',
      REAL.livePublic,
    ]);
    expect(fixed.code).toBe(0);
    expect(await keys()).toEqual([
      {
        payment_test_private_key: REAL.secretKey,
        payment_webhook_secret: REAL.webhookSecret,
        payment_test_public_key: REAL.testPublic,
        payment_live_public_key: REAL.livePublic,
      },
    ]);
    expect((await startService(db.url)).listened).toBe(true);
  }, 120_000);

  it("the README's compose steps: the demo fixture without its sample keys seeds in production, and the instance starts", async () => {
    const other = await createTestDatabase();
    try {
      // README "Several instances": jq '.site |= del(.payment_test_public_key, …) | .site.payment_test_mode = true'
      const { site, tables } = demo();
      for (const column of ['payment_test_public_key', 'payment_live_public_key', 'payment_test_private_key', 'payment_webhook_secret'])
        delete site[column];
      const seeded = await cli(other.url, ['seed', fixtureFile({ site: { ...site, payment_test_mode: true }, tables })]);
      expect(seeded.code).toBe(0);
      expect(JSON.parse(seeded.stdout).appID).toBe(7);
      const keys = await cli(other.url, [
        'tenant:update',
        '--app',
        '7',
        '--payment-test-private-key',
        REAL.secretKey,
        '--payment-webhook-secret',
        REAL.webhookSecret,
      ]);
      expect(keys.code).toBe(0);
      expect((await startService(other.url)).listened).toBe(true);
    } finally {
      await dropDatabase(other.name);
    }
  }, 120_000);
});
