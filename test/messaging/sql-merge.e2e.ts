import { SessionTokensService } from '../../src/auth';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

let userIds = 7100;
const admin = () => ({ id: ++userIds, user_email: `admin${userIds}@example.test`, password: 'Admin@1234', primary_role: 'admin' });

describe('POST /message/notification with the SQL merge source', () => {
  let t: TestApp;
  let appId: number;
  let offAppId: number;
  let otherCustomerId: number;
  let otherAppId: number;
  let customerId: number;
  let adminId: number;
  let userId: number;
  let demotedId: number;
  /** An access token of an admin of each app, by app id. */
  const adminTokens = new Map<number, string>();
  const token = (userId: number, appId: number, authTable = 'core_users', role: string | null = 'admin') =>
    t.get(SessionTokensService).sign({ userId, appId, authTable, role }, 'access');

  const template = { event: 'greet', subject: 'Hi [firstname]', content: '<p>[firstname] [lastname] [x]</p>' };

  beforeAll(async () => {
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false', NOTIFY_SQL_TIMEOUT_MS: '200' });
    const other = await t.seed({
      site: siteFixture({ notification_sql_enabled: true }),
      tables: { core_users: [admin()], core_customers: [{ email: 'victim@example.test', password: 'Cust@1234', firstname: 'Vic' }] },
    });
    otherCustomerId = other.ids.core_customers[0];
    otherAppId = other.appID;
    adminTokens.set(otherAppId, token(other.ids.core_users[0], otherAppId));
    const seeded = await t.seed({
      site: siteFixture({ notification_sql_enabled: true }),
      tables: {
        core_users: [admin(), { ...admin(), primary_role: 'user' }, admin()],
        core_customers: [{ email: 'cust@example.test', password: 'Cust@1234', firstname: 'Cy', lastname: '<Smith>' }],
        core_related: Array.from({ length: 120 }, (_, i) => ({ parent_table: 'core_x', parent_id: i, name: 'n', linked: i })),
        core_notifications: [template],
      },
    });
    appId = seeded.appID;
    customerId = seeded.ids.core_customers[0];
    [adminId, userId, demotedId] = seeded.ids.core_users;
    adminTokens.set(appId, token(adminId, appId));
    const off = await t.seed({ site: siteFixture(), tables: { core_users: [admin()], core_notifications: [template] } });
    offAppId = off.appID;
    adminTokens.set(offAppId, token(off.ids.core_users[0], offAppId));
  });
  afterAll(() => t.close());

  const send = (SQL: string, extra: Record<string, unknown> = {}, site = appId, bearer: string | null = adminTokens.get(site)!) =>
    t.post(
      '/message/notification',
      { event: 'greet', setEmailField: 'email', SQL, ...extra },
      {
        'site-id': String(site),
        ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
      },
    );
  const logCount = async () =>
    (await t.dataSource.query(`SELECT count(*)::int AS n FROM core_notification_log WHERE app_id = $1`, [appId]))[0].n;
  const lastRow = async () =>
    (await t.dataSource.query(`SELECT * FROM core_notification_log WHERE app_id = $1 ORDER BY id DESC LIMIT 1`, [appId]))[0];

  // The merge reads every user's email, role and mobile of the app: the public site-id is not enough.
  describe('needs the bearer of an admin of the app', () => {
    const sql = `SELECT user_email AS email, primary_role AS firstname FROM core_users`;

    it.each([
      ['no bearer', () => null],
      ['a malformed bearer', () => 'not-a-jwt'],
      [
        'an admin bearer with a forged signature',
        () => [...adminTokens.get(appId)!.split('.').slice(0, 2), adminTokens.get(otherAppId)!.split('.')[2]].join('.'),
      ],
      ["the bearer of another app's admin", () => adminTokens.get(otherAppId)!],
      [
        'a refresh token of the admin',
        () => t.get(SessionTokensService).sign({ userId: adminId, appId, authTable: 'core_users', role: 'admin' }, 'refresh'),
      ],
    ])('answers 401 Error Unauthorized with %s, writing nothing', async (_name, bearer) => {
      const before = await logCount();
      const res = await send(sql, {}, appId, bearer());
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ status: 'Error', message: 'Unauthorized' });
      expect(await logCount()).toBe(before);
    });

    it('answers 403 for a user, a customer, and an admin demoted after the token was issued', async () => {
      const demoted = token(demotedId, appId);
      await t.dataSource.query(`UPDATE core_users SET primary_role = 'user' WHERE id = $1`, [demotedId]);
      const before = await logCount();
      for (const bearer of [
        token(userId, appId, 'core_users', 'user'),
        token(userId, appId),
        token(customerId, appId, 'core_customers', null),
        demoted,
      ]) {
        const res = await send(sql, {}, appId, bearer);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ status: 'Failed', message: 'Insufficient permissions', permission: 'mail.send' });
      }
      expect(await logCount()).toBe(before);
    });

    it('runs for an admin of the app; requests without SQL still need only the site-id', async () => {
      expect((await send(`${sql} ORDER BY id LIMIT 1`)).body).toEqual({ status: 'Success' });
      expect((await lastRow()).subject).toBe('Hi admin');
      const plain = await t.post(
        '/message/notification',
        { event: 'greet', email: 'a@example.test', data: { firstname: 'P' } },
        { 'site-id': String(appId) },
      );
      expect(plain.body).toEqual({ status: 'Success' });
    });
  });

  it('is refused for a tenant that has not enabled it', async () => {
    const res = await send('SELECT email, firstname FROM core_customers', {}, offAppId);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 'Failed',
      message: 'Validation error',
      errors: [{ field: 'SQL', message: 'The SQL merge source is not enabled for this app' }],
    });
  });

  it('merges the first row of a SELECT over data, HTML-escaped, and takes the recipient from setEmailField', async () => {
    const res = await send(`SELECT c.email, c.firstname, c.lastname FROM core_customers AS c WHERE c.id = ${customerId}`, {
      data: { x: 'from-data', firstname: 'overridden' },
    });
    expect(res.body).toEqual({ status: 'Success' });
    expect(await lastRow()).toMatchObject({ email: 'cust@example.test', subject: 'Hi Cy', body: '<p>Cy &lt;Smith&gt; from-data</p>' });
  });

  it('sees only the tenant own rows', async () => {
    const res = await send(`SELECT email, firstname FROM core_customers WHERE id = ${otherCustomerId}`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'SQL', message: 'SQL returned no row' }]);
    const count = await send(`SELECT 'a@example.test' AS email, count(*)::text AS firstname FROM core_customers`);
    expect(count.body).toEqual({ status: 'Success' });
    expect((await lastRow()).subject).toBe('Hi 1');
  });

  it.each([
    ['a second statement', `SELECT email FROM core_customers; DELETE FROM core_customers`, 'SQL must be exactly one SELECT statement'],
    ['DELETE', `DELETE FROM core_customers`, 'SQL must be a SELECT statement'],
    ['UPDATE', `UPDATE core_customers SET firstname = 'x'`, 'SQL must be a SELECT statement'],
    ['INSERT', `INSERT INTO core_related (app_id) VALUES (1)`, 'SQL must be a SELECT statement'],
    ['DROP', `DROP TABLE core_customers`, 'SQL must be a SELECT statement'],
    ['a locking clause', `SELECT email FROM core_customers FOR UPDATE`, 'Locking clauses are not allowed in SQL'],
    ['WITH', `WITH x AS (SELECT email FROM core_customers) SELECT * FROM x`, 'WITH is not allowed in SQL'],
    ['a catalog table', `SELECT rolname AS email FROM pg_roles`, 'Table pg_roles is not available to SQL merge queries'],
    [
      'a catalog table in a subquery',
      `SELECT (SELECT usename FROM pg_user LIMIT 1) AS email`,
      'Table pg_user is not available to SQL merge queries',
    ],
    ['a schema-qualified table', `SELECT email FROM public.core_customers`, 'Schema-qualified table names are not allowed in SQL'],
    [
      'the notification log',
      `SELECT email FROM core_notification_log`,
      'Table core_notification_log is not available to SQL merge queries',
    ],
    ['pg_sleep', `SELECT pg_sleep(5), 'a@example.test' AS email`, 'Function pg_sleep is not allowed in SQL'],
    ['set_config', `SELECT set_config('app.x', '1', false) AS email`, 'Function set_config is not allowed in SQL'],
    ['a function in FROM', `SELECT 'a@example.test' AS email FROM generate_series(1, 10)`, null],
    ['a regclass cast', `SELECT 'core_sites'::regclass::text AS email`, 'This cast is not allowed in SQL'],
    ['a bind parameter', `SELECT email FROM core_customers WHERE app_id = $1`, 'Bind parameters are not allowed in SQL'],
    ['garbage', `SELEC email`, 'SQL could not be parsed; it must be a single SELECT statement'],
  ])('refuses %s with 400', async (_name, sql, message) => {
    const res = await send(sql);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'Failed', message: 'Validation error', errors: [{ field: 'SQL' }] });
    if (message) expect(res.body.errors[0].message).toBe(message);
  });

  it.each([
    ['core_customers.password', `SELECT email, password AS firstname FROM core_customers`],
    ['core_customers push keys', `SELECT email, p256dh AS firstname FROM core_customers`],
    ['core_sites payment secrets', `SELECT 'a@example.test' AS email, payment_webhook_secret AS firstname FROM core_sites`],
    ['core_sites VAPID private key', `SELECT 'a@example.test' AS email, vapid_private_key AS firstname FROM core_sites`],
  ])('cannot read secret columns: %s', async (_name, sql) => {
    const res = await send(sql);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/^SQL failed: column .* does not exist$/);
  });

  it('stops a query that runs past NOTIFY_SQL_TIMEOUT_MS', async () => {
    const res = await send(
      `SELECT 'a@example.test' AS email, count(*)::text AS firstname FROM core_related a, core_related b, core_related c, core_related d`,
    );
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'SQL', message: 'SQL exceeded its time limit' }]);
  });

  // Every part of the tree is checked, not only the parts an AST visitor has callbacks for: DISTINCT ON
  // expressions used to go unchecked, so a subquery there read the real, unscoped tables and leaked
  // another tenant's secrets through the "SQL failed: invalid input syntax ..." message.
  it('checks subqueries in DISTINCT ON like everywhere else (was a bypass)', async () => {
    const secret = await send(
      `SELECT DISTINCT ON ((SELECT payment_webhook_secret::int FROM core_sites WHERE id = ${otherAppId})) 'a@example.test' AS email`,
    );
    expect(secret.status).toBe(400);
    expect(secret.body.errors[0].message).toMatch(/^SQL failed: column .* does not exist$/);
    expect(JSON.stringify(secret.body)).not.toContain(`whsec_${otherAppId}`);
    const otherTenant = await send(
      `SELECT DISTINCT ON ((SELECT firstname::int FROM core_customers WHERE id = ${otherCustomerId})) 'a@example.test' AS email`,
    );
    expect(otherTenant.body).toEqual({ status: 'Success' }); // the subquery sees no row of the other tenant: NULL
    expect(JSON.stringify(await lastRow())).not.toContain('Vic');
    const catalog = await send(`SELECT DISTINCT ON ((SELECT rolname FROM pg_roles LIMIT 1)) 'a@example.test' AS email`);
    expect(catalog.body.errors).toEqual([{ field: 'SQL', message: 'Table pg_roles is not available to SQL merge queries' }]);
    const fn = await send(`SELECT DISTINCT ON (pg_sleep(1)) 'a@example.test' AS email`);
    expect(fn.body.errors).toEqual([{ field: 'SQL', message: 'Function pg_sleep is not allowed in SQL' }]);
  });

  it.each([
    ['pg_read_file', `SELECT pg_read_file('/etc/passwd') AS email`, 'Function pg_read_file is not allowed in SQL'],
    ['a schema-qualified function', `SELECT pg_catalog.lower('A@example.test') AS email`, 'Function lower is not allowed in SQL'],
    ['lo_import', `SELECT lo_import('/etc/passwd') AS email`, 'Function lo_import is not allowed in SQL'],
    ['dblink in FROM', `SELECT a AS email FROM dblink('host=x', 'select 1') AS t(a text)`, null],
    [
      'set_config in a subquery in ORDER BY',
      `SELECT email FROM core_customers ORDER BY (SELECT set_config('a.b', 'c', false))`,
      'Function set_config is not allowed in SQL',
    ],
    [
      'a catalog table in a CASE',
      `SELECT CASE WHEN (SELECT count(*) FROM pg_authid) > 0 THEN 'a@example.test' END AS email`,
      'Table pg_authid is not available to SQL merge queries',
    ],
    [
      'a catalog table in a LATERAL join',
      `SELECT c.email FROM core_customers c JOIN LATERAL (SELECT usename FROM pg_user) u ON true`,
      'Table pg_user is not available to SQL merge queries',
    ],
    [
      'a catalog table in VALUES',
      `SELECT x AS email FROM (VALUES ((SELECT usename FROM pg_user LIMIT 1))) v(x)`,
      'Table pg_user is not available to SQL merge queries',
    ],
    [
      'a catalog table in LIMIT',
      `SELECT email FROM core_customers LIMIT (SELECT 1 FROM pg_user LIMIT 1)`,
      'Table pg_user is not available to SQL merge queries',
    ],
    [
      'UNION with the notification log',
      `SELECT email FROM core_customers UNION SELECT email FROM core_notification_log`,
      'Table core_notification_log is not available to SQL merge queries',
    ],
    [
      'UNION with core_data',
      `SELECT email FROM core_customers UNION SELECT 'x' FROM core_data`,
      'Table core_data is not available to SQL merge queries',
    ],
    ['current_user', `SELECT current_user AS email`, 'current_user is not allowed in SQL'],
    [
      'a schema-qualified operator',
      `SELECT email OPERATOR(pg_catalog.||) 'x' AS email FROM core_customers`,
      'Schema-qualified operators are not allowed in SQL',
    ],
    ['a schema-qualified column', `SELECT public.core_customers.email FROM core_customers`, null],
    ['dollar quoting', `SELECT $q$ x $q$ AS email`, null],
    [
      'a statement after a comment',
      `SELECT email FROM core_customers /* x */; DELETE FROM core_customers`,
      'SQL must be exactly one SELECT statement',
    ],
    ['SELECT INTO', `SELECT email INTO stolen FROM core_customers`, null],
    ['an array cast', `SELECT '{a}'::text[] AS email`, 'This cast is not allowed in SQL'],
    ['a regproc cast', `SELECT CAST('pg_sleep' AS regproc) AS email`, 'This cast is not allowed in SQL'],
    ['a deeply nested expression', `SELECT 1 ${'+1'.repeat(3000)} AS email`, null],
  ])('refuses %s with 400', async (_name, sql, message) => {
    const res = await send(sql);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'Failed', message: 'Validation error', errors: [{ field: 'SQL' }] });
    if (message) expect(res.body.errors[0].message).toBe(message);
  });

  it('refuses SQL over 10000 characters and a result row over 64 KB', async () => {
    const long = await send(`SELECT 'a@example.test' AS email ${' '.repeat(10_000)}`);
    expect(long.status).toBe(400);
    expect(long.body.errors).toEqual([{ field: 'SQL', message: 'SQL must be at most 10000 characters' }]);
    const big = await send(`SELECT 'a@example.test' AS email, lpad('', 100000, 'x') AS firstname`);
    expect(big.status).toBe(400);
    expect(big.body.errors).toEqual([{ field: 'SQL', message: 'SQL result is larger than 65536 bytes' }]);
  });

  it('runs a query that names no table', async () => {
    const res = await send(`SELECT 'a@example.test' AS email, upper('cy') AS firstname`);
    expect(res.body).toEqual({ status: 'Success' });
    expect(await lastRow()).toMatchObject({ email: 'a@example.test', subject: 'Hi CY' });
  });

  it('runs harmless comments and quoted identifiers as parsed', async () => {
    const res = await send(
      `SELECT /* a /* nested */ comment */ c.email AS "email", c.firstname AS "x"";DROP TABLE core_users;--" FROM core_customers AS c -- tail`,
    );
    expect(res.body).toEqual({ status: 'Success' });
    expect((await lastRow()).subject).toBe('Hi [firstname]');
  });

  it('writes nothing for a refused query', async () => {
    const before = (await t.dataSource.query(`SELECT count(*)::int AS n FROM core_notification_log`))[0].n;
    await send(`DELETE FROM core_customers`);
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM core_notification_log`))[0].n).toBe(before);
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM core_customers WHERE app_id = $1`, [appId]))[0].n).toBe(1);
  });
});
