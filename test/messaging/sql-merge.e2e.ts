import { siteFixture, startTestApp, TestApp } from '../support/test-app';

describe('POST /message/notification with the SQL merge source', () => {
  let t: TestApp;
  let appId: number;
  let offAppId: number;
  let otherCustomerId: number;
  let customerId: number;

  const template = { event: 'greet', subject: 'Hi [firstname]', content: '<p>[firstname] [lastname] [x]</p>' };

  beforeAll(async () => {
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false', NOTIFY_SQL_TIMEOUT_MS: '200' });
    const other = await t.seed({
      site: siteFixture({ notification_sql_enabled: true }),
      tables: { core_customers: [{ email: 'victim@example.test', password: 'Cust@1234', firstname: 'Vic' }] },
    });
    otherCustomerId = other.ids.core_customers[0];
    const seeded = await t.seed({
      site: siteFixture({ notification_sql_enabled: true }),
      tables: {
        core_customers: [{ email: 'cust@example.test', password: 'Cust@1234', firstname: 'Cy', lastname: '<Smith>' }],
        core_related: Array.from({ length: 120 }, (_, i) => ({ parent_table: 'core_x', parent_id: i, name: 'n', linked: i })),
        core_notifications: [template],
      },
    });
    appId = seeded.appID;
    customerId = seeded.ids.core_customers[0];
    offAppId = (await t.seed({ site: siteFixture(), tables: { core_notifications: [template] } })).appID;
  });
  afterAll(() => t.close());

  const send = (SQL: string, extra: Record<string, unknown> = {}, site = appId) =>
    t.post('/message/notification', { event: 'greet', setEmailField: 'email', SQL, ...extra }, { 'site-id': String(site) });
  const lastRow = async () => (await t.dataSource.query(`SELECT * FROM core_notification_log WHERE app_id = $1 ORDER BY id DESC LIMIT 1`, [appId]))[0];

  it('is refused for a tenant that has not enabled it', async () => {
    const res = await send('SELECT email, firstname FROM core_customers', {}, offAppId);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'Failed', message: 'Validation error', errors: [{ field: 'SQL', message: 'The SQL merge source is not enabled for this app' }] });
  });

  it('merges the first row of a SELECT over data, HTML-escaped, and takes the recipient from setEmailField', async () => {
    const res = await send(`SELECT c.email, c.firstname, c.lastname FROM core_customers AS c WHERE c.id = ${customerId}`, { data: { x: 'from-data', firstname: 'overridden' } });
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
    ['a catalog table in a subquery', `SELECT (SELECT usename FROM pg_user LIMIT 1) AS email`, 'Table pg_user is not available to SQL merge queries'],
    ['a schema-qualified table', `SELECT email FROM public.core_customers`, 'Schema-qualified table names are not allowed in SQL'],
    ['the notification log', `SELECT email FROM core_notification_log`, 'Table core_notification_log is not available to SQL merge queries'],
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
    const res = await send(`SELECT 'a@example.test' AS email, count(*)::text AS firstname FROM core_related a, core_related b, core_related c, core_related d`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'SQL', message: 'SQL exceeded its time limit' }]);
  });

  it('writes nothing for a refused query', async () => {
    const before = (await t.dataSource.query(`SELECT count(*)::int AS n FROM core_notification_log`))[0].n;
    await send(`DELETE FROM core_customers`);
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM core_notification_log`))[0].n).toBe(before);
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM core_customers WHERE app_id = $1`, [appId]))[0].n).toBe(1);
  });
});
