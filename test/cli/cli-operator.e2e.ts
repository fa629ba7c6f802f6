import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as bcrypt from 'bcrypt';
import { Client } from 'pg';
import { migrations } from '../../migrations';
import { loadConfig } from '../../src/config/app-config';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { dropDatabase } from '../support/database';
import { createTestDatabase, startTestApp, TEST_ENV } from '../support/test-app';
import { jobRuns, waitFor } from '../support/wait';

const ROOT = join(__dirname, '..', '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (`node dist/src/cli.js`, what `npm run cli --` runs) against `url`, with `stdin` as its standard input. */
function cli(url: string, args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), ...args], {
      env: { ...process.env, ...TEST_ENV, DATABASE_URL: url, ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** A refusal: the exit code, and the one-line JSON message on stderr. */
function refusal(res: Run): { code: number; message: string } {
  expect(res.stdout).toBe('');
  const first = JSON.parse(res.stderr.split('\n')[0]) as { status: string; message: string };
  expect(first.status).toBe('Failed');
  return { code: res.code, message: first.message };
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

const APP = 801;
const OTHER = 802;

describe('the operator commands (npm run cli)', () => {
  let db: { name: string; url: string };

  beforeAll(async () => {
    db = await createTestDatabase();
    const fixture = join(mkdtempSync(join(tmpdir(), 'fixture-')), 'fixture.json');
    writeFileSync(
      fixture,
      JSON.stringify({
        site: {
          id: APP,
          name: 'Operated',
          domain: 'operated.example.test',
          payment_test_private_key: 'sk_test_operated_secret',
          payment_webhook_secret: 'whsec_operated_secret',
          email_from: 'shop@operated.example.test',
        },
        tables: { core_users: [{ id: 11, user_email: 'admin@operated.example.test', password: 'Admin@1234', primary_role: 'admin' }] },
      }),
    );
    expect((await cli(db.url, ['seed', fixture])).code).toBe(0);
    await sql(db.url, `INSERT INTO core_sites (id, name, domain) VALUES ($1, 'Other', 'other-operated.example.test')`, [OTHER]);
  });
  afterAll(() => dropDatabase(db.name));

  describe('--help', () => {
    it('lists every command with its flags, without loading Nest or TypeORM', async () => {
      // A preload that reports, at exit, whether any module of Nest or TypeORM was loaded.
      const probe = join(mkdtempSync(join(tmpdir(), 'probe-')), 'probe.js');
      writeFileSync(
        probe,
        `process.on('exit', () => { if (Object.keys(require.cache).some((m) => /node_modules[\\\\/](@nestjs|typeorm|pg)[\\\\/]/.test(m))) process.stderr.write('HEAVY'); });`,
      );
      const res = await cli(db.url, ['--help'], { env: { NODE_OPTIONS: `--require ${probe}` } });
      expect(res.code).toBe(0);
      expect(res.stderr).toBe('');
      for (const command of [
        'migrate',
        'migrate:status',
        'migrate:revert',
        'seed FILE.json',
        'tenant:create',
        'tenant:list',
        'tenant:update',
        'user:create',
        'user:password',
        'staff:list',
        'staff:roles',
        'staff:remove',
        'mail:failed',
        'mail:retry',
        'events:failed',
        'events:retry',
        'secrets:generate',
        'payment:double',
      ]) {
        expect(res.stdout).toContain(`  ${command}`);
      }
      for (const flag of [
        '--app ID',
        '--email EMAIL',
        '--password-stdin',
        '--role ROLE',
        '--currency',
        '--payment-test-mode',
        '--payment-live-private-key',
        '--payment-webhook-secret',
        '--email-from',
        '--domain',
        '--all',
        '--id N',
        '--count N',
        '--limit N',
        '--json',
      ]) {
        expect(res.stdout).toContain(flag);
      }
      const one = await cli(db.url, ['user:create', '--help']);
      expect([one.code, one.stdout.split('\n')[0]]).toEqual([
        0,
        expect.stringMatching(/^Usage: npm run cli -- user:create --app ID --email EMAIL/),
      ]);
    });
  });

  describe('user:create', () => {
    it('creates an admin with a bcrypt hash of the password and prints it as JSON', async () => {
      const res = await cli(db.url, [
        'user:create',
        '--app',
        String(APP),
        '--email',
        'Boss@Operated.example.test',
        '--password',
        'Boss@12345',
        '--role',
        'admin',
        '--firstname',
        'Bo',
      ]);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const out = JSON.parse(res.stdout);
      expect(out).toEqual({
        appID: APP,
        table: 'core_users',
        id: expect.any(Number),
        email: 'Boss@Operated.example.test',
        role: 'admin',
        firstname: 'Bo',
        lastname: null,
      });
      const [row] = await sql<{ password: string; primary_role: string; app_id: number }>(
        db.url,
        'SELECT password, primary_role, app_id FROM core_users WHERE id = $1',
        [out.id],
      );
      expect(row).toMatchObject({ primary_role: 'admin', app_id: APP });
      expect(row.password).toMatch(/^\$2b\$10\$/);
      expect(await bcrypt.compare('Boss@12345', row.password)).toBe(true);
      expect(res.stdout).not.toContain(row.password);
      // Its version-tracking record, as an account made by sign-up has.
      expect(
        await sql(db.url, `SELECT 1 FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_users' AND "Master_ID" = $2`, [
          APP,
          out.id,
        ]),
      ).toHaveLength(1);
    });

    it('takes the password from standard input, for any user table', async () => {
      const res = await cli(
        db.url,
        ['user:create', '--app', String(APP), '--email', 'cust@operated.example.test', '--password-stdin', '--table', 'core_customers'],
        { stdin: 'Cust@12345\n' },
      );
      expect(res.code).toBe(0);
      const out = JSON.parse(res.stdout);
      expect(out).toMatchObject({ appID: APP, table: 'core_customers', email: 'cust@operated.example.test', role: 'customer' });
      const [row] = await sql<{ password: string }>(db.url, 'SELECT password FROM core_customers WHERE id = $1', [out.id]);
      expect(await bcrypt.compare('Cust@12345', row.password)).toBe(true);
    });

    it.each([
      [
        ['--email', 'weak@operated.example.test', '--password', 'weakpass'],
        1,
        /^Password does not meet security requirements: it needs an upper-case letter, a digit, one of @\$!%\*\?&$/,
      ],
      [['--email', 'not-an-email', '--password', 'Good@12345'], 1, /"not-an-email" is not a valid email address/],
      [
        ['--email', 'boss@operated.example.test', '--password', 'Good@12345'],
        1,
        /An account with email "boss@operated.example.test" already exists in core_users of app 801/,
      ],
      [['--email', 'x@operated.example.test'], 2, /--password or --password-stdin is required/],
      [
        ['--email', 'x@operated.example.test', '--password', 'Good@12345', '--table', 'core_customers', '--role', 'admin'],
        2,
        /--role applies to core_users only/,
      ],
      [
        ['--email', 'x@operated.example.test', '--password', 'Good@12345', '--table', 'core_nope'],
        2,
        /--table must be core_users, core_customers or core_app_users/,
      ],
      [['--email', 'x@operated.example.test', '--password', 'Good@12345', '--frobnicate'], 2, /Unknown option '--frobnicate'/],
    ])('refuses bad input and writes nothing (%#)', async (args, code, message) => {
      const before = await sql(db.url, 'SELECT count(*)::int AS n FROM core_users');
      const res = refusal(await cli(db.url, ['user:create', '--app', String(APP), ...args]));
      expect(res.code).toBe(code);
      expect(res.message).toMatch(message);
      expect(await sql(db.url, 'SELECT count(*)::int AS n FROM core_users')).toEqual(before);
    });

    it('refuses an unknown app', async () => {
      const res = refusal(await cli(db.url, ['user:create', '--app', '999999', '--email', 'a@b.example.test', '--password', 'Good@12345']));
      expect(res).toEqual({ code: 1, message: 'App 999999 not found' });
    });
  });

  describe('user:password', () => {
    it('sets a new password (bcrypt) and moves password_changed, so earlier tokens stop working', async () => {
      const [before] = await sql<{ password: string; password_changed: Date }>(
        db.url,
        `SELECT password, password_changed FROM core_users WHERE user_email = 'admin@operated.example.test'`,
      );
      const res = await cli(db.url, ['user:password', '--app', String(APP), '--email', 'ADMIN@operated.example.test', '--password-stdin'], {
        stdin: 'Renewed@123\n',
      });
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual({
        appID: APP,
        table: 'core_users',
        id: 11,
        email: 'admin@operated.example.test',
        role: 'admin',
        firstname: null,
        lastname: null,
        passwordChanged: true,
      });
      const [after] = await sql<{ password: string; password_changed: Date }>(
        db.url,
        'SELECT password, password_changed FROM core_users WHERE id = 11',
      );
      expect(await bcrypt.compare('Renewed@123', after.password)).toBe(true);
      expect(after.password_changed.getTime()).toBeGreaterThan(before.password_changed.getTime());
    });

    it.each([
      [
        ['--email', 'admin@operated.example.test', '--password', 'short'],
        1,
        /^Password does not meet security requirements: it needs at least 8 characters/,
      ],
      [
        ['--email', 'nobody@operated.example.test', '--password', 'Good@12345'],
        1,
        /^No account with email "nobody@operated.example.test" in core_users of app 801$/,
      ],
      [['--email', 'admin@operated.example.test', '--password', 'Good@12345', '--password-stdin'], 2, /not both/],
      [['--password', 'Good@12345'], 2, /--email is required/],
    ])('refuses bad input and changes nothing (%#)', async (args, code, message) => {
      const before = await sql(db.url, 'SELECT password, password_changed FROM core_users WHERE id = 11');
      const res = refusal(await cli(db.url, ['user:password', '--app', String(APP), ...args]));
      expect([res.code, res.message]).toEqual([code, expect.stringMatching(message)]);
      expect(await sql(db.url, 'SELECT password, password_changed FROM core_users WHERE id = 11')).toEqual(before);
    });
  });

  describe('tenant:list', () => {
    it('lists tenants without their secrets, naming the secret columns that are set', async () => {
      const res = await cli(db.url, ['tenant:list']);
      expect(res.code).toBe(0);
      const list = JSON.parse(res.stdout) as Record<string, unknown>[];
      const tenant = list.find((t) => t.appID === APP)!;
      expect(tenant).toMatchObject({
        name: 'Operated',
        domain: 'operated.example.test',
        currency: 'aud',
        payment_test_mode: false,
        email_from: 'shop@operated.example.test',
        _id: expect.any(String),
        appKey: expect.any(String),
      });
      expect(tenant.secrets_set).toEqual(['payment_test_private_key', 'payment_webhook_secret']);
      expect(list.map((t) => t.appID)).toEqual(expect.arrayContaining([APP, OTHER]));
      for (const secret of ['payment_test_private_key', 'payment_live_private_key', 'payment_webhook_secret', 'vapid_private_key'])
        expect(Object.keys(tenant)).not.toContain(secret);
      expect(res.stdout).not.toMatch(/sk_test_operated_secret|whsec_operated_secret/);

      const one = await cli(db.url, ['tenant:list', '--app', String(OTHER)]);
      expect(JSON.parse(one.stdout).map((t: { appID: number }) => t.appID)).toEqual([OTHER]);
    });

    it('refuses an unknown app and bad flags', async () => {
      expect(refusal(await cli(db.url, ['tenant:list', '--app', '999999']))).toEqual({ code: 1, message: 'App 999999 not found' });
      expect(refusal(await cli(db.url, ['tenant:list', '--app', 'seven'])).code).toBe(2);
    });
  });

  describe('tenant:update', () => {
    it('changes columns, secrets included, and prints the tenant without them', async () => {
      const res = await cli(db.url, [
        'tenant:update',
        '--app',
        String(APP),
        '--currency',
        'EUR',
        '--payment-test-mode',
        'true',
        '--payment-live-private-key',
        'sk_live_operated_new',
        '--payment-live-public-key',
        'pk_live_operated',
        '--email-from',
        'Operated Shop <orders@operated.example.test>',
        '--email-cc',
        '11',
        '--logo',
        '',
      ]);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const out = JSON.parse(res.stdout);
      expect(out.changed).toEqual([
        'email_from',
        'email_cc',
        'currency',
        'payment_test_mode',
        'payment_live_private_key',
        'payment_live_public_key',
        'logo',
      ]);
      expect(out.tenant).toMatchObject({
        appID: APP,
        currency: 'eur',
        payment_test_mode: true,
        payment_live_public_key: 'pk_live_operated',
        email_from: 'Operated Shop <orders@operated.example.test>',
        email_cc: 11,
        logo: null,
      });
      expect(out.tenant.secrets_set).toEqual(['payment_test_private_key', 'payment_live_private_key', 'payment_webhook_secret']);
      expect(res.stdout).not.toContain('sk_live_operated_new');
      const [row] = await sql(
        db.url,
        'SELECT currency, payment_test_mode, payment_live_private_key, email_cc, logo FROM core_sites WHERE id = $1',
        [APP],
      );
      expect(row).toEqual({
        currency: 'eur',
        payment_test_mode: true,
        payment_live_private_key: 'sk_live_operated_new',
        email_cc: 11,
        logo: null,
      });
    });

    it.each([
      [['--name', 'Renamed', '--currency', 'xyz'], 1, /^--currency must be an ISO 4217 currency code/],
      [
        ['--name', 'Renamed', '--payment-test-private-key', 'sk_live_wrong_place'],
        1,
        /^--payment-test-private-key must be a test secret key, sk_test_… or rk_test_…$/,
      ],
      [['--domain', 'other-operated.example.test'], 1, /^A tenant with domain "other-operated.example.test" already exists$/],
      [['--domain', 'not a domain'], 1, /is not a valid domain name/],
      [['--name', ''], 1, /^--name cannot be empty$/],
      [['--email-bcc', '424242'], 1, /^--email-bcc: app 801 has no core_users row 424242$/],
      [['--email-from', 'nobody'], 1, /^--email-from must be an email address/],
      [['--disable-email', 'maybe'], 1, /^--disable-email must be true or false/],
      [[], 2, /nothing to change/],
      [['--colour9', 'red'], 2, /Unknown option '--colour9'/],
    ])('refuses bad input and changes nothing (%#)', async (args, code, message) => {
      const before = await sql(db.url, 'SELECT * FROM core_sites ORDER BY id');
      const res = refusal(await cli(db.url, ['tenant:update', '--app', String(APP), ...args]));
      expect([res.code, res.message]).toEqual([code, expect.stringMatching(message)]);
      expect(res.message).not.toContain('sk_live_wrong_place');
      expect(await sql(db.url, 'SELECT * FROM core_sites ORDER BY id')).toEqual(before);
    });

    it('refuses an unknown app', async () => {
      expect(refusal(await cli(db.url, ['tenant:update', '--app', '999999', '--name', 'X']))).toEqual({
        code: 1,
        message: 'App 999999 not found',
      });
    });
  });

  describe('secrets:generate', () => {
    it('prints .env lines that a production start accepts', async () => {
      const res = await cli(db.url, ['secrets:generate']);
      expect(res.code).toBe(0);
      const values = Object.fromEntries(
        res.stdout
          .trim()
          .split('\n')
          .map((line) => line.split(/=(.*)/s).slice(0, 2)),
      );
      expect(Object.keys(values)).toEqual([
        'JWT_ACCESS_SECRET',
        'JWT_REFRESH_SECRET',
        'ENCRYPTION_KEY',
        'ENCRYPTION_IV',
        'IDP_COOKIE_PASSWORD',
        'VAPID_PUBLIC_KEY',
        'VAPID_PRIVATE_KEY',
      ]);
      const config = loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL: db.url,
        SMTP_URL: 'smtp://smtp.example.test',
        SMS_WEBHOOK_URL: 'https://sms.example.test',
        IDP_CLIENT_ID: 'c',
        IDP_ISSUER_URL: 'https://idp.example.test',
        IDP_REDIRECT_URI: 'https://api.example.test',
        ...values,
      });
      expect(config.encryption.key).toHaveLength(32);
      expect(config.encryption.iv).toHaveLength(16);
      expect(config.idp.cookiePassword).toBe(values.IDP_COOKIE_PASSWORD);
      expect(Buffer.from(values.VAPID_PUBLIC_KEY, 'base64url')).toHaveLength(65);
      expect(Buffer.from(values.VAPID_PRIVATE_KEY, 'base64url')).toHaveLength(32);
      // Each run makes new ones.
      const again = await cli(db.url, ['secrets:generate', '--json']);
      const json = JSON.parse(again.stdout);
      expect(Object.keys(json)).toEqual(Object.keys(values));
      expect(json.JWT_ACCESS_SECRET).not.toBe(values.JWT_ACCESS_SECRET);
    });

    it('refuses unknown flags', async () => {
      expect(refusal(await cli(db.url, ['secrets:generate', '--yaml'])).code).toBe(2);
    });
  });

  describe('migrate:status and migrate:revert', () => {
    it('migrate:status lists every migration applied and none pending on a migrated database', async () => {
      const res = await cli(db.url, ['migrate:status']);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual({ applied: migrations.map((m) => new m().name), pending: [], unknown: [] });
      expect(refusal(await cli(db.url, ['migrate:status', '--verbose'])).code).toBe(2);
    });

    it('migrate:revert undoes the newest migration; migrate applies it again; a count beyond what is applied reverts nothing', async () => {
      const other = await createTestDatabase();
      try {
        const names = migrations.map((m) => new m().name);
        const newest = names[names.length - 1];
        const reverted = await cli(other.url, ['migrate:revert']);
        expect(reverted.stderr).toBe('');
        expect([reverted.code, JSON.parse(reverted.stdout)]).toEqual([0, { reverted: [newest] }]);
        expect(JSON.parse((await cli(other.url, ['migrate:status'])).stdout)).toEqual({
          applied: names.slice(0, -1),
          pending: [newest],
          unknown: [],
        });

        const tooMany = refusal(await cli(other.url, ['migrate:revert', '--count', '100']));
        expect(tooMany).toEqual({ code: 1, message: `Only ${names.length - 1} migration(s) are applied: cannot revert 100` });
        expect(refusal(await cli(other.url, ['migrate:revert', '--count', '0'])).code).toBe(2);
        expect(JSON.parse((await cli(other.url, ['migrate:status'])).stdout).applied).toEqual(names.slice(0, -1));

        expect(JSON.parse((await cli(other.url, ['migrate'])).stdout)).toEqual({ applied: [newest] });
      } finally {
        await dropDatabase(other.name);
      }
    });
  });

  describe('mail:failed and mail:retry', () => {
    let failed: number[];
    let sent: number;
    let otherFailed: number;

    const mail = async (appId: number, status: string, attempts: number, subject: string) =>
      (
        await sql<{ id: number }>(
          db.url,
          `INSERT INTO core_notification_log (app_id, event, email, email_from, subject, body, status, attempts, last_error, sent)
           VALUES ($1, 'welcome', 'to@example.test', 'shop@operated.example.test', $2, '<p>Hi</p>', $3, $4, $5, $6) RETURNING id`,
          [appId, subject, status, attempts, status === 'Failed' ? '550 mailbox unavailable' : null, status === 'Sent' ? new Date() : null],
        )
      )[0].id;

    beforeAll(async () => {
      failed = [await mail(APP, 'Failed', 5, 'First'), await mail(APP, 'Failed', 5, 'Second'), await mail(APP, 'Failed', 5, 'Third')];
      sent = await mail(APP, 'Sent', 1, 'Delivered');
      otherFailed = await mail(OTHER, 'Failed', 5, 'Elsewhere');
    });

    it("mail:failed lists the app's Failed mails, newest first, without bodies", async () => {
      const res = await cli(db.url, ['mail:failed', '--app', String(APP), '--limit', '2']);
      expect(res.code).toBe(0);
      const out = JSON.parse(res.stdout);
      expect(out).toEqual({
        appID: APP,
        total: 3,
        mails: [failed[2], failed[1]].map((id) => ({
          id,
          app_id: APP,
          event: 'welcome',
          email: 'to@example.test',
          subject: expect.any(String),
          attempts: 5,
          last_error: '550 mailbox unavailable',
          created: expect.any(String),
        })),
      });
      expect(res.stdout).not.toContain('<p>Hi</p>');
      expect(refusal(await cli(db.url, ['mail:failed', '--app', '999999']))).toEqual({ code: 1, message: 'App 999999 not found' });
      expect(refusal(await cli(db.url, ['mail:failed'])).code).toBe(2);
    });

    it.each([
      [() => ['--id', String(sent)], 1, () => `Mail ${sent} is Sent, not Failed: nothing to retry`],
      [() => ['--id', String(otherFailed), '--app', String(APP)], 1, () => `No outbox mail ${otherFailed} in app ${APP}`],
      [() => ['--id', '99999999'], 1, () => 'No outbox mail 99999999'],
      [() => ['--all'], 2, () => 'mail:retry: --all needs --app ID'],
      [() => ['--app', String(APP)], 2, () => 'mail:retry: give --id N (one mail) or --app ID --all (every failed mail of the app)'],
      [() => ['--id', String(failed[0]), '--app', String(APP), '--all'], 2, () => 'mail:retry: give --id N or --app ID --all, not both'],
    ])('mail:retry refuses bad input and changes nothing (%#)', async (args, code, message) => {
      const before = await sql(db.url, 'SELECT id, status, attempts, next_attempt FROM core_notification_log ORDER BY id');
      expect(refusal(await cli(db.url, ['mail:retry', ...args()]))).toEqual({ code, message: message() });
      expect(await sql(db.url, 'SELECT id, status, attempts, next_attempt FROM core_notification_log ORDER BY id')).toEqual(before);
    });

    it('mail:retry puts Failed mails back in the queue and the running service sends them at once', async () => {
      const smtp = await SmtpPeer.start();
      // A running instance on the same database whose sender polls only every minute: the retried mail must
      // reach it through the queued-mail announcement.
      const service = await startTestApp({ SMTP_URL: smtp.url, NOTIFY_POLL_INTERVAL_MS: '60000' }, db);
      try {
        // Its first round (nothing due) has run, and its listener listens.
        await waitFor(async () => (await jobRuns(service, 'notification_sender')) >= 1, 10_000, 'the first sender round');
        const listening =
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'platform-listener' AND query LIKE 'LISTEN %'";
        await waitFor(async () => (await sql(db.url, listening)).length > 0, 10_000, 'the listener');
        const one = await cli(db.url, ['mail:retry', '--id', String(failed[0])]);
        expect(one.stderr).toBe('');
        expect([one.code, JSON.parse(one.stdout)]).toEqual([0, { appID: APP, retried: [failed[0]] }]);
        await waitFor(
          async () => (await sql(db.url, 'SELECT status FROM core_notification_log WHERE id = $1', [failed[0]]))[0].status === 'Sent',
        );
        expect(smtp.mails.map((m) => m.parsed.subject)).toEqual(['First']);

        const all = await cli(db.url, ['mail:retry', '--app', String(APP), '--all']);
        expect([all.code, JSON.parse(all.stdout)]).toEqual([0, { appID: APP, retried: [failed[1], failed[2]] }]);
        await waitFor(() => smtp.mails.length === 3);
        const rows = await sql<{ id: number; status: string; attempts: number }>(
          db.url,
          'SELECT id, status, attempts FROM core_notification_log ORDER BY id',
        );
        expect(rows.filter((r) => failed.includes(r.id)).map((r) => [r.status, r.attempts])).toEqual([
          ['Sent', 1],
          ['Sent', 1],
          ['Sent', 1],
        ]);
        // Another app's failed mail stays as it was.
        expect(rows.find((r) => r.id === otherFailed)).toMatchObject({ status: 'Failed', attempts: 5 });
        expect(JSON.parse((await cli(db.url, ['mail:retry', '--app', String(APP), '--all'])).stdout)).toEqual({ appID: APP, retried: [] });
      } finally {
        await service.close();
        await smtp.stop();
      }
    });
  });

  describe('events:failed and events:retry', () => {
    /** A payment event of `appId` the inbox gave up on: a succeeded intent of an order that does not exist. */
    const failedEvent = (appId: number, eventId: string) =>
      sql(
        db.url,
        `INSERT INTO core_payment_events (app_id, event_id, type, payload, status, attempts, last_error)
         VALUES ($1, $2, 'payment_intent.succeeded', $3, 'failed', 12, 'canceling statement due to statement timeout')`,
        [
          appId,
          eventId,
          JSON.stringify({
            id: eventId,
            object: 'event',
            type: 'payment_intent.succeeded',
            data: {
              object: {
                id: 'pi_gone',
                object: 'payment_intent',
                amount: 100,
                currency: 'aud',
                livemode: false,
                metadata: { appID: String(appId), orderID: '999999' },
              },
            },
          }),
        ],
      );

    beforeAll(async () => {
      await failedEvent(APP, 'evt_failed_1');
      await failedEvent(APP, 'evt_failed_2');
      await failedEvent(OTHER, 'evt_failed_1'); // the same provider id in another app is another event
    });

    it("events:failed lists the app's failed events without their payload; bad input is refused", async () => {
      const res = await cli(db.url, ['events:failed', '--app', String(APP)]);
      expect(res.code).toBe(0);
      const out = JSON.parse(res.stdout);
      expect(out).toMatchObject({ appID: APP, total: 2 });
      expect(out.events.map((e: { event_id: string }) => e.event_id).sort()).toEqual(['evt_failed_1', 'evt_failed_2']);
      expect(out.events[0]).toMatchObject({ status: 'failed', attempts: 12, last_error: 'canceling statement due to statement timeout' });
      expect(res.stdout).not.toContain('pi_gone');
      expect(refusal(await cli(db.url, ['events:failed', '--app', '999999']))).toEqual({ code: 1, message: 'App 999999 not found' });
      expect(refusal(await cli(db.url, ['events:retry', '--app', String(APP)]))).toEqual({
        code: 2,
        message: 'events:retry: give --id EVENT_ID (one event) or --all (every failed event of the app)',
      });
      expect(refusal(await cli(db.url, ['events:retry', '--app', String(APP), '--id', 'evt_unknown']))).toEqual({
        code: 1,
        message: `No failed payment event evt_unknown in app ${APP}: nothing to retry`,
      });
    });

    it("events:retry puts the app's failed events back and a running instance applies them, once", async () => {
      const service = await startTestApp({ PAYMENT_EVENTS_POLL_MS: '100' }, db);
      try {
        const one = await cli(db.url, ['events:retry', '--app', String(APP), '--id', 'evt_failed_1']);
        expect([one.code, JSON.parse(one.stdout)]).toEqual([0, { appID: APP, retried: ['evt_failed_1'] }]);
        const state = () =>
          sql<{ app_id: number; event_id: string; status: string; outcome: string | null }>(
            db.url,
            'SELECT app_id, event_id, status, outcome FROM core_payment_events ORDER BY app_id, event_id',
          );
        await waitFor(async () =>
          (await state()).some((e) => e.app_id === APP && e.event_id === 'evt_failed_1' && e.status === 'processed'),
        );
        expect(await state()).toEqual([
          { app_id: APP, event_id: 'evt_failed_1', status: 'processed', outcome: 'order_not_found' },
          { app_id: APP, event_id: 'evt_failed_2', status: 'failed', outcome: null },
          { app_id: OTHER, event_id: 'evt_failed_1', status: 'failed', outcome: null },
        ]);
        const all = await cli(db.url, ['events:retry', '--app', String(APP), '--all']);
        expect([all.code, JSON.parse(all.stdout)]).toEqual([0, { appID: APP, retried: ['evt_failed_2'] }]);
        await waitFor(async () => (await state()).filter((e) => e.status === 'processed').length === 2);
        expect((await state()).find((e) => e.app_id === OTHER)).toMatchObject({ status: 'failed' });
      } finally {
        await service.close();
      }
    });
  });

  describe('staff:list, staff:roles and staff:remove', () => {
    const staffOf = async () => JSON.parse((await cli(db.url, ['staff:list', '--app', String(APP)])).stdout);

    it('lists the staff, sets roles by email, removes a member, and keeps the last owner', async () => {
      const listed = await staffOf();
      expect(listed.appID).toBe(APP);
      expect(listed.staff).toContainEqual(
        expect.objectContaining({ id: 11, email: 'admin@operated.example.test', roles: ['owner'], passwordSet: true }),
      );
      const created = await cli(db.url, [
        'user:create',
        '--app',
        String(APP),
        '--email',
        'clerk@operated.example.test',
        '--password',
        'Clerk@1234',
      ]);
      expect(created.code).toBe(0);
      const set = await cli(db.url, [
        'staff:roles',
        '--app',
        String(APP),
        '--email',
        'clerk@operated.example.test',
        '--roles',
        'orders,support',
      ]);
      expect([set.code, JSON.parse(set.stdout)]).toEqual([
        0,
        expect.objectContaining({ email: 'clerk@operated.example.test', roles: ['orders', 'support'] }),
      ]);
      // Earlier tests made other admins of the app: the fixture's admin becomes the only owner.
      await sql(db.url, `UPDATE core_users SET primary_role = 'user', staff_roles = '{}' WHERE app_id = $1 AND id <> 11`, [APP]);
      expect(
        refusal(await cli(db.url, ['staff:roles', '--app', String(APP), '--email', 'admin@operated.example.test', '--roles', ''])),
      ).toEqual({
        code: 1,
        message: 'An app keeps at least one owner: make another staff member owner first',
      });
      expect(
        refusal(await cli(db.url, ['staff:roles', '--app', String(APP), '--email', 'x@operated.example.test', '--roles', 'orders'])),
      ).toEqual({
        code: 1,
        message: `No staff member x@operated.example.test in app ${APP}`,
      });
      expect(
        refusal(await cli(db.url, ['staff:roles', '--app', String(APP), '--email', 'clerk@operated.example.test', '--roles', 'root'])),
      ).toEqual({
        code: 2,
        message: 'staff:roles: --roles must name only owner, orders, content, support, viewer (got "root")',
      });
      const removed = await cli(db.url, ['staff:remove', '--app', String(APP), '--email', 'clerk@operated.example.test']);
      expect([removed.code, JSON.parse(removed.stdout)]).toEqual([0, expect.objectContaining({ roles: [], passwordSet: false })]);
      expect((await staffOf()).staff.find((m: { email: string }) => m.email === 'admin@operated.example.test').roles).toEqual(['owner']);
    });
  });
});
