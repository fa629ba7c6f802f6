import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { startTestApp, TEST_ENV, TestApp } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');

/** Runs the built CLI (`node dist/src/cli.js`, what `npm run cli --` runs) against `url`. */
function cli(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist/src/cli.js'), ...args],
      { env: { ...process.env, ...TEST_ENV, DATABASE_URL: url }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

interface Seeded {
  tenants: number;
  rows: Record<string, number>;
  apps: { appID: number; domain: string; products: number[]; orders: string[] }[];
}

/** tenants:seed (README "Command line"): many tenants in one process, served as any seeded tenant is. */
describe('npm run cli -- tenants:seed', () => {
  let t: TestApp;
  let db: Client;
  beforeAll(async () => {
    t = await startTestApp();
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  it('seeds the tenants with their rows and prints what a load test needs to address them', async () => {
    const res = await cli(t.database.url, [
      'tenants:seed',
      '--count',
      '3',
      '--products',
      '4',
      '--customers',
      '2',
      '--orders',
      '5',
      '--prefix',
      'load',
      '--password',
      'Load@1234',
    ]);
    expect([res.code, res.stderr]).toEqual([0, '']);
    const out = JSON.parse(res.stdout) as Seeded;
    expect(out.tenants).toBe(3);
    expect(out.rows).toEqual({
      core_sites: 3,
      core_users: 3,
      core_customers: 6,
      core_products: 12,
      core_notifications: 9,
      core_orders: 15,
      // orders 0, 2 and 4 have one item, 1 and 3 two
      core_order_items: 21,
    });
    expect(out.apps.map((app) => app.domain)).toEqual(['load-1.example.test', 'load-2.example.test', 'load-3.example.test']);
    for (const app of out.apps) {
      expect(app.products).toHaveLength(4);
      expect(app.orders).toHaveLength(5);
    }
    const second = out.apps[1];
    const site = { 'site-id': String(second.appID) };

    // The tenant, its published products, an order by its _id, a customer's sign-in and its templates.
    const getApp = await t.post('/getApp', {}, site);
    expect([getApp.status, typeof getApp.body._id]).toEqual([200, 'string']);
    const rows = await t.post('/getDataRows', { table: 'core_products', orderBy: 'title ASC' }, site);
    expect(rows.status).toBe(200);
    expect(rows.body.data.map((row: { title: string }) => row.title)).toEqual(['Product 1', 'Product 2', 'Product 3', 'Product 4']);
    const paid = await t.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(second.orders[0])}`, undefined, site);
    expect([paid.status, paid.body.data.orderStatus, paid.body.data.paymentStatus]).toEqual([200, 'Paid', 'Success']);
    const cart = await t.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(second.orders[3])}`, undefined, site);
    expect(cart.body.data.orderStatus).toBe('New');
    const otherApps = await t.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(second.orders[0])}`, undefined, {
      'site-id': String(out.apps[0].appID),
    });
    expect(otherApps.status).toBe(404);
    const login = await t.post(
      '/auth/login',
      { email: 'customer2@load-2.example.test', password: 'Load@1234', authTable: 'core_customers' },
      site,
    );
    expect(login.status).toBe(200);
    const { rows: templates } = await db.query('SELECT event FROM core_notifications WHERE app_id = $1 ORDER BY event', [second.appID]);
    expect(templates.map((row) => row.event)).toEqual(['order_confirmation', 'password_reset', 'welcome']);

    // One bcrypt hash for every account, and each order's total is its items'.
    const { rows: hashes } = await db.query(
      `SELECT count(DISTINCT password)::int AS n FROM (SELECT password FROM core_customers c JOIN core_sites s ON s.id = c.app_id
        WHERE s.domain LIKE 'load-%' UNION ALL SELECT password FROM core_users u JOIN core_sites s ON s.id = u.app_id WHERE s.domain LIKE 'load-%') a`,
    );
    expect(hashes[0].n).toBe(1);
    const { rows: totals } = await db.query(
      `SELECT o.total, sum(i."Qty" * i."Price")::int AS items FROM core_orders o JOIN core_order_items i ON i."Order_ID" = o.id
        WHERE o.app_id = $1 GROUP BY o.id`,
      [second.appID],
    );
    expect(totals).toHaveLength(5);
    for (const row of totals) expect(row.total).toBe(row.items);
  });

  it('writes nothing when a tenant of the run cannot be made (all or nothing)', async () => {
    await db.query(`INSERT INTO core_sites (name, domain) VALUES ('Taken', 'taken-3.example.test')`);
    const res = await cli(t.database.url, ['tenants:seed', '--count', '4', '--prefix', 'taken', '--orders', '2']);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stderr.split('\n')[0]).message).toMatch(/taken-3\.example\.test.*already exists/);
    const { rows } = await db.query(`SELECT domain FROM core_sites WHERE domain LIKE 'taken-%'`);
    expect(rows).toEqual([{ domain: 'taken-3.example.test' }]);
  });

  it('explains usage errors with exit code 2', async () => {
    for (const args of [
      ['tenants:seed'],
      ['tenants:seed', '--count', '0'],
      ['tenants:seed', '--count', '2', '--orders', 'many'],
      ['tenants:seed', '--count', '2', '--prefix', 'Not OK'],
    ]) {
      const res = await cli(t.database.url, args);
      expect([args, res.code]).toEqual([args, 2]);
      expect(res.stderr).toMatch(/Usage: npm run cli -- tenants:seed/);
    }
    const weak = await cli(t.database.url, ['tenants:seed', '--count', '1', '--password', 'weak']);
    expect(weak.code).toBe(1);
  });
});
