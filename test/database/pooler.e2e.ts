import { Client } from 'pg';
import { migrations } from '../../migrations';
import { SiteCache } from '../../src/app-context/site-cache';
import { STATEMENT_TIMEOUT_MESSAGE } from '../../src/common/global-exception.filter';
import { POOL_MODE } from '../../src/database/database.module';
import { DatabaseLock } from '../../src/database/locks';
import { migrate } from '../../src/database/migrate';
import { PoolMode } from '../../src/database/pooler-probe';
import { PreparedStatementsClient } from '../../src/database/prepared-statements';
import { StatementTimeoutClient } from '../../src/database/statement-timeout';
import { withTickLock } from '../../src/database/transaction';
import { ExpiryJob } from '../../src/versioning/expiry.job';
import { product, seedTenant, Tenant } from '../versioning/content-helpers';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { seedShop, ShopClient } from '../orders/checkout-helpers';
import { databaseUrl, dropDatabase, withAdmin } from '../support/database';
import { PaymentPeer } from '../support/payment-peer';
import { PgBouncer } from '../support/pgbouncer';
import { seedManyProducts, SLOW_READ } from '../support/slow-reads';
import { createTestDatabase, siteFixture, startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

/** The options pg's Pool got through TypeORM's `extra`. */
function poolOptions(t: TestApp): Record<string, unknown> {
  return (t.dataSource.driver as unknown as { master: { options: Record<string, unknown> } }).master.options;
}

/** The pool's connection class. */
function poolClient(t: TestApp): unknown {
  return poolOptions(t).Client;
}

/**
 * Issue 40, parts 1 and 2: DATABASE_URL through PgBouncer 1.18 in transaction mode (test/support/pgbouncer.ts), which
 * refuses a statement_timeout startup parameter, cannot carry prepared statements and hands a server connection to
 * another client after every transaction; DATABASE_DIRECT_URL straight to PostgreSQL for what needs a session.
 * Every feature works without a switch turned off, and no session state is left on a pooled connection.
 */
describe('behind PgBouncer in transaction mode, with DATABASE_DIRECT_URL for sessions', () => {
  let bouncer: PgBouncer;
  let db: { name: string; url: string };
  let pooled: string;
  let t: TestApp;
  let peer: PaymentPeer;
  let smtp: SmtpPeer;

  /** The server processes PgBouncer holds for the test database (`SHOW SERVERS`' remote_pid). */
  const pooledPids = async (database = db.name): Promise<number[]> => {
    const admin = await bouncer.admin();
    try {
      const { rows } = await admin.query('SHOW SERVERS');
      return rows.filter((r) => r.database === database).map((r) => Number(r.remote_pid));
    } finally {
      await admin.end();
    }
  };
  const direct = async <T = Record<string, unknown>>(sql: string, params: unknown[] = [], url = db.url): Promise<T[]> => {
    const client = new Client({ connectionString: url });
    client.on('error', () => undefined); // a connection ended under it fails its query
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    bouncer = await PgBouncer.start({ poolSize: 20 });
    db = await createTestDatabase();
    pooled = bouncer.url(db.url);
    peer = await PaymentPeer.start();
    smtp = await SmtpPeer.start();
    t = await startTestApp(
      {
        DATABASE_DIRECT_URL: db.url,
        PAYMENT_API_URL: peer.url,
        SMTP_URL: smtp.url,
        NOTIFY_SENDER_ENABLED: 'false',
        CONTENT_EXPIRY_TICK_MS: '0', // the tests tick the expiry job themselves
        // As deployed: tenants kept in memory, a change of core_sites announced through LISTEN/NOTIFY.
        SITE_CACHE_MS: '600000',
      },
      { name: db.name, url: pooled },
    );
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
    await peer?.stop();
    await bouncer?.stop();
    if (db) await dropDatabase(db.name);
  });

  it('starts, and decides by itself: no startup parameter, the timeout per transaction, no prepared statements', async () => {
    expect(t.get<PoolMode>(POOL_MODE as never)).toEqual({
      sharedServerConnections: true,
      statementTimeout: 'transaction',
      preparedStatements: false,
    });
    expect(poolClient(t)).toBe(StatementTimeoutClient);
    expect(poolOptions(t)).not.toHaveProperty('statement_timeout');
    expect(poolOptions(t)).toMatchObject({ requestStatementTimeoutMs: 5000 });

    // The same database directly: a server process per client, so the timeout is each connection's startup parameter
    // (nothing to pay per statement) and the statements stay prepared.
    const straight = await startTestApp({}, db);
    try {
      expect(straight.get<PoolMode>(POOL_MODE as never)).toEqual({
        sharedServerConnections: false,
        statementTimeout: 'startup',
        preparedStatements: true,
      });
      expect(poolClient(straight)).toBe(PreparedStatementsClient);
      expect(poolOptions(straight)).toMatchObject({ statement_timeout: 5000 });
    } finally {
      await straight.close();
    }
    // DB_PREPARED_STATEMENTS=true is the operator's word (PgBouncer 1.21+ with max_prepared_statements).
    const told = await startTestApp({ DATABASE_DIRECT_URL: db.url, DB_PREPARED_STATEMENTS: 'true' }, { name: db.name, url: pooled });
    try {
      expect(told.get<PoolMode>(POOL_MODE as never)).toEqual({
        sharedServerConnections: true,
        statementTimeout: 'transaction',
        preparedStatements: true,
      });
      expect(poolClient(told)).toBe(PreparedStatementsClient);
    } finally {
      await told.close();
    }
  }, 60_000);

  it('serves /getApp and /getDataRows pages through the pooler', async () => {
    const tenant = await seedTenant(t, [product('Alpha', { meta_status: 'Published' }), product('Beta', { meta_status: 'Published' })]);
    const app = await t.post('/getApp', {}, tenant.headers);
    expect(app.status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const page = await t.post(
        '/getDataRows',
        { table: 'core_products', isPaging: true, perPage: 20, orderBy: 'title ASC' },
        tenant.headers,
      );
      expect(page.status).toBe(200);
      expect(page.body.data.map((r: { title: string }) => r.title)).toEqual(['Alpha', 'Beta']);
    }
  });

  describe('the statement timeout, set per transaction', () => {
    let slow: TestApp;
    let tenant: Tenant;

    beforeAll(async () => {
      slow = await startTestApp({ DATABASE_DIRECT_URL: db.url, DB_STATEMENT_TIMEOUT_MS: '250' }, { name: db.name, url: pooled });
      tenant = await seedTenant(slow);
      await seedManyProducts(db.url, tenant.appId, 60_000);
    }, 60_000);
    afterAll(() => slow?.close());

    it('answers a statement over DB_STATEMENT_TIMEOUT_MS with 503 and Retry-After through the pooler', async () => {
      const res = await slow.post('/getDataRows', SLOW_READ, tenant.headers);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'Failed', message: STATEMENT_TIMEOUT_MESSAGE });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });

    it('cancels a text, a statement with parameters and a statement in a transaction alike (57014), and the next statement runs', async () => {
      const code = (promise: Promise<unknown>) =>
        promise.then(
          () => 'none',
          (error: { driverError?: { code?: string } }) => error.driverError?.code,
        );
      expect(await code(slow.dataSource.query('SELECT pg_sleep(2)'))).toBe('57014');
      expect(await code(slow.dataSource.query('SELECT pg_sleep($1)', [2]))).toBe('57014');
      expect(await code(slow.dataSource.transaction((em) => em.query('SELECT 1 FROM pg_sleep(2)')))).toBe('57014');
      // A statement under the timeout answers as before, its own rows only.
      expect(await slow.dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      expect(await slow.dataSource.query('SELECT $1::int AS two', [2])).toEqual([{ two: 2 }]);
      // The tick's SET LOCAL statement_timeout = 0 lifts it for its own transaction.
      await expect(
        withTickLock(slow.dataSource, DatabaseLock.ContentExpiryTick, (em) => em.query('SELECT pg_sleep(0.4)')),
      ).resolves.toBeDefined();
    });
  });

  it('completes a purchase: createOrder, addCart, checkout, the provider event, Paid', async () => {
    const shop = await seedShop(t);
    const client = new ShopClient(t, peer, shop);
    const order = await client.checkedOut([{ productID: shop.book, Qty: 2, Price: 2500 }], shop.customerHeaders);
    const delivered = await client.deliver(client.paid(order.intent));
    expect(delivered).toMatchObject({ status: 200, body: { received: true } });
    expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', payment_status: 'Success' });
    const status = await t.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(order._id)}`, undefined, shop.customerHeaders);
    expect(status.body.data).toMatchObject({ orderStatus: 'Paid' });
  });

  it('runs migrations once, two migrators at once (CREATE INDEX CONCURRENTLY among them), with their lock on the direct connection and nothing through the pooler', async () => {
    const name = `${db.name}_fresh`;
    await withAdmin((c) => c.query(`CREATE DATABASE "${name}"`));
    try {
      const fresh = { url: bouncer.url(databaseUrl(name)), directUrl: databaseUrl(name), embedded: false, idle: async () => undefined };
      const holders = new Set<number>();
      let migrating = true;
      const watch = (async () => {
        while (migrating) {
          const rows = await direct<{ pid: number }>(
            `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND objsubid = 1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = $2)`,
            [DatabaseLock.Migrations, name],
          );
          for (const row of rows) holders.add(row.pid);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const applied = await Promise.all([migrate(fresh), migrate(fresh)]).finally(() => (migrating = false));
      await watch;
      expect(applied.map((names) => names.length).sort((a, b) => a - b)).toEqual([0, migrations.length]);
      const recorded = await direct<{ name: string; n: number }>(
        'SELECT name, count(*)::int AS n FROM typeorm_migrations GROUP BY name',
        [],
        databaseUrl(name),
      );
      expect(recorded).toHaveLength(migrations.length);
      expect(recorded.every((r) => r.n === 1)).toBe(true);
      // The lock was held, on a connection of its own straight to PostgreSQL: PgBouncer never opened a server
      // connection to the new database.
      expect(holders.size).toBeGreaterThanOrEqual(1);
      expect(await pooledPids(name)).toEqual([]);
    } finally {
      await dropDatabase(name);
    }
  }, 120_000);

  it('hears a change of core_sites on its LISTEN connection, which is a direct one', async () => {
    await waitFor(() => t.get(SiteCache).active);
    const appId = (await t.seed({ site: siteFixture({ logo: '/img/first.png' }), tables: {} })).appID;
    const logo = async () => (await t.post('/getApp', {}, { 'site-id': String(appId) })).body.logo;
    expect(await logo()).toBe('/img/first.png');
    await direct('UPDATE core_sites SET logo = $2 WHERE id = $1', [appId, '/img/second.png']);
    // SITE_CACHE_MS is ten minutes: only the notification drops the cached row.
    await waitFor(async () => (await logo()) === '/img/second.png', 5000);

    const listeners = await direct<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'platform-listener' AND datname = $1`,
      [db.name],
    );
    expect(listeners).toHaveLength(1);
    expect(await pooledPids()).not.toContain(listeners[0].pid);
  });

  it('runs an advisory-locked job once: the tick lock holds through the pooler across two instances', async () => {
    const second = await startTestApp({ DATABASE_DIRECT_URL: db.url, CONTENT_EXPIRY_TICK_MS: '0' }, { name: db.name, url: pooled });
    try {
      const tenant = await seedTenant(t, [product('Due', { meta_status: 'Published' }), product('Lasting', { meta_status: 'Published' })]);
      // One instance holds the tick: the other's tick skips, and runs once it is free.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const holding = withTickLock(t.dataSource, DatabaseLock.ContentExpiryTick, async () => {
        entered();
        await held;
        return 'held';
      });
      await inside;
      expect(await second.get(ExpiryJob).tick()).toBeNull();
      release();
      expect(await holding).toBe('held');

      // A version due now, both instances ticking at once, again and again: it is expired once.
      await direct(
        `UPDATE core_data SET "Publish_Expire_Date" = now() - interval '1 second' WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_products' AND "Master_ID" = $2`,
        [tenant.appId, tenant.products[0]],
      );
      const expired: number[] = [];
      for (let round = 0; round < 5; round++) {
        const ticks = await Promise.all([t.get(ExpiryJob).tick(), second.get(ExpiryJob).tick()]);
        for (const ids of ticks) expired.push(...(ids ?? []));
      }
      const [due] = await direct<{ ID: number }>(
        `SELECT "ID" FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_products' AND "Master_ID" = $2`,
        [tenant.appId, tenant.products[0]],
      );
      expect(expired).toEqual([due.ID]);
    } finally {
      await second.close();
    }
  });

  it('leaves no session state on any pooled server connection: no setting, prepared statement, listener or advisory lock', async () => {
    // After everything above: every server connection PgBouncer holds for the database, each held in a transaction
    // of its own at once, so that each is looked at once.
    const pids = await pooledPids();
    expect(pids.length).toBeGreaterThan(0);
    const clients = pids.map(() => new Client({ connectionString: pooled }));
    try {
      for (const client of clients) await client.connect();
      const seen = new Map<number, Record<string, unknown>>();
      for (const client of clients) {
        await client.query('BEGIN');
        const { rows } = await client.query(
          `SELECT pg_backend_pid() AS pid,
                  current_setting('statement_timeout') AS statement_timeout,
                  (SELECT count(*)::int FROM pg_prepared_statements) AS prepared,
                  (SELECT count(*)::int FROM pg_listening_channels()) AS listening,
                  (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS advisory,
                  -- PgBouncer itself sets the parameters it tracks per client (application_name, client_encoding…).
                  (SELECT coalesce(array_agg(name ORDER BY name), '{}') FROM pg_settings WHERE source = 'session'
                      AND name NOT IN ('application_name', 'client_encoding', 'DateStyle', 'TimeZone', 'standard_conforming_strings')) AS session_settings`,
        );
        seen.set(rows[0].pid, rows[0]);
      }
      expect(seen.size).toBe(pids.length);
      for (const state of seen.values()) {
        expect(state).toMatchObject({ statement_timeout: '0', prepared: 0, listening: 0, advisory: 0, session_settings: [] });
      }
    } finally {
      await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
    }
  });
});
