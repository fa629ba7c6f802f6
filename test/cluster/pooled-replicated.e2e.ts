import { Client } from 'pg';
import { migrations } from '../../migrations';
import { STATEMENT_TIMEOUT_MESSAGE } from '../../src/common/global-exception.filter';
import { DatabaseLock } from '../../src/database/locks';
import { product, seedTenant, Tenant } from '../versioning/content-helpers';
import { seedShop, ShopTenant } from '../orders/checkout-helpers';
import { Cluster, PIN_HEADER, PooledReplicatedDatabase, ProxiedResponse } from '../support/cluster';
import { siteFixture } from '../support/test-app';
import { waitFor } from '../support/wait';
import { checkoutThroughProxy, confirmAtProvider } from './cluster-shop';

/** The replica's apply delay most of the time, and while a case needs a read at once to be certain to be early. */
const DELAY_MS = 300;
const LAGGING_MS = 3000;
/** How soon the other instance must show a change of the tenant (the change notice, not SITE_CACHE_MS's ten minutes). */
const SITE_CHANGE_DEADLINE_MS = 1500;
const STATEMENT_TIMEOUT_MS = 2000;
/** Versions the expiry job expires: K_HELD due while a session holds the tick's lock, K_STAGGERED due 40 ms apart. */
const K_HELD = 4;
const K_STAGGERED = 24;
const M = 30;

/**
 * Issue 40's proof, in cluster mode: two built instances behind the round-robin proxy, with DATABASE_URL through
 * PgBouncer 1.18 in transaction mode in front of a PostgreSQL 15 primary, DATABASE_DIRECT_URL straight to the primary,
 * DATABASE_REPLICA_URLS naming a streaming replica that replays DELAY_MS late (LAGGING_MS while a case needs the lag to
 * be certain), and Redis. The database is new: the instances migrate it as they start.
 */
describe('cluster behind PgBouncer with a lagging read replica', () => {
  let db: PooledReplicatedDatabase;
  let cluster: Cluster;
  let migrationLock: { mostTrying: number; mostHolders: number };
  let jobs: Tenant;
  let site: Tenant;
  let content: Tenant;
  let shop: ShopTenant;
  let notifyApp: number;
  let replicaName: string;

  const pin = (instance: number) => ({ [PIN_HEADER]: String(instance) });
  const onReplica = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    db.pair.replica.query<T>(sql, params, db.database.name);
  const lagging = (ms: number) => db.pair.replica.set('recovery_min_apply_delay', `${ms}ms`);
  /** A counter or gauge of instance `i`'s /metrics (asked directly: the proxy is for requests under test), 0 when absent. */
  const metric = async (i: number, series: string): Promise<number> => {
    const text = await (await fetch(`${cluster.instances[i].url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };
  const replicaReads = async (i: number) => {
    const text = await (await fetch(`${cluster.instances[i].url}/metrics`)).text();
    return [...text.matchAll(/^db_replica_reads_total\{kind="(\w+)",server="([^"]+)",reason="(\w+)"\} (\d+)$/gm)].map(
      ([, kind, server, reason, n]) => ({ kind, server, reason, n: Number(n) }),
    );
  };

  /**
   * Holds the migration lock on the new database while the instances start, as a deploy's migration in progress
   * would, until both instances wait for it (each asking pg_try_advisory_lock every 100 ms on its direct connection:
   * its last statement in pg_stat_activity); then lets them race. Meanwhile it samples how many sessions wait at once
   * and how many hold the lock. Without the gate a new database migrates in well under a second, and the second
   * instance may only come to it once the first is done.
   */
  async function gateMigrationLock(): Promise<() => Promise<{ mostTrying: number; mostHolders: number }>> {
    const gate = new Client({ connectionString: db.database.url });
    await gate.connect();
    await gate.query('SELECT pg_advisory_lock($1)', [DatabaseLock.Migrations]);
    let watching = true;
    let open = false;
    const seen = { mostTrying: 0, mostHolders: 0 };
    const done = (async () => {
      while (watching) {
        const { rows } = await gate.query(
          `SELECT (SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                      AND query LIKE 'SELECT pg_try_advisory_lock(%') AS trying,
                  (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND objsubid = 1 AND granted
                      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS holders`,
          [DatabaseLock.Migrations],
        );
        seen.mostTrying = Math.max(seen.mostTrying, rows[0].trying);
        seen.mostHolders = Math.max(seen.mostHolders, rows[0].holders);
        if (!open && rows[0].trying === 2) {
          await gate.query('SELECT pg_advisory_unlock($1)', [DatabaseLock.Migrations]);
          open = true;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    return async () => {
      watching = false;
      await done.finally(() => gate.end());
      return seen;
    };
  }

  beforeAll(async () => {
    db = await PooledReplicatedDatabase.start({ applyDelayMs: DELAY_MS });
    replicaName = `127.0.0.1:${db.pair.replica.port}/${db.database.name}`;
    const stopWatching = await gateMigrationLock();
    try {
      cluster = await Cluster.start({
        database: db.database,
        env: {
          LOG_LEVEL: 'info', // the migrations each instance applied, and what each expiry tick expired
          SITE_CACHE_MS: '600000', // as deployed: tenants in memory, a change announced through LISTEN/NOTIFY
          DATABASE_REPLICA_MAX_LAG_MS: '10000', // the replica stays in use while it lags LAGGING_MS on purpose
          DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
          NOTIFY_SENDER_ENABLED: 'true',
          NOTIFY_BATCH_SIZE: '4',
          NOTIFY_POLL_INTERVAL_MS: '200',
        },
        // Two intervals, so that neither instance's ticks keep landing just after the other's.
        perInstance: [{ CONTENT_EXPIRY_TICK_MS: '100' }, { CONTENT_EXPIRY_TICK_MS: '70' }],
      });
    } finally {
      migrationLock = await stopWatching();
    }
    jobs = await seedTenant(cluster.seeder);
    site = await seedTenant(cluster.seeder);
    content = await seedTenant(cluster.seeder, [product('Poster', { meta_status: 'Published' })]);
    shop = await seedShop(cluster.seeder);
    cluster.webhook.secret = shop.secret;
    notifyApp = (
      await cluster.seeder.seed({
        site: siteFixture(),
        tables: { core_notifications: [{ event: 'plain', subject: 'Plain [n]', content: '<p>n=[n]</p>' }] },
      })
    ).appID;
    await db.pair.caughtUp(); // the tenants are on the replica before the first lookup of them
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
    if (db) {
      if (process.env.REPLICA_TEST_LOGS) console.log(db.pair.replica.log(), db.bouncer.log());
      await db.stop();
    }
  });

  it('ran each migration once, the two instances migrating the new database at once under the lock on the direct connection', async () => {
    const recorded = await cluster.sql<{ name: string; n: number }>(
      'SELECT name, count(*)::int AS n FROM typeorm_migrations GROUP BY name',
    );
    expect(recorded.map((r) => r.name).sort()).toEqual(migrations.map((m) => m.name).sort());
    expect(recorded.every((r) => r.n === 1)).toBe(true);
    // One instance applied them all, the other none: it waited for the lock, then found nothing left to do.
    const applied = cluster.instances.map((instance) =>
      instance
        .logLines()
        .filter((line) => line.msg === 'Applied migrations')
        .flatMap((line) => line.migrations as string[]),
    );
    expect(applied.map((names) => names.length).sort((a, b) => a - b)).toEqual([0, migrations.length]);
    // Both waited for the session lock at the same moment (on their direct connections: a session lock through the
    // pooler would not hold), and it was never held by two.
    expect(migrationLock).toEqual({ mostTrying: 2, mostHolders: 1 });
  });

  it('expires each due version once with both instances ticking through the pooler, and no tick runs while a session holds its lock', async () => {
    const call = async (action: string, body: Record<string, unknown>) => {
      const res = await cluster.post(`/content/${action}`, { table: 'core_products', ...body }, jobs.adminHeaders);
      if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    };
    const masters: number[] = [];
    for (let i = 0; i < K_HELD + K_STAGGERED; i++) {
      const masterId = (await call('create', { data: { title: `Due ${i}`, price: 100 } })).Master_ID as number;
      await call('publish', { masterId, publishExpireDate: '2999-01-01T00:00:00Z' });
      masters.push(masterId);
    }
    const versions = async () =>
      cluster.sql<{ ID: number; Master_ID: number; Status: string }>(
        `SELECT "ID", "Master_ID", "Status" FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_products' ORDER BY "ID"`,
        [jobs.appId],
      );
    const live = await versions();
    expect(live.map((v) => v.Status)).toEqual(Array(K_HELD + K_STAGGERED).fill('Published'));
    const [held, staggered] = [live.slice(0, K_HELD), live.slice(K_HELD)];
    // Raw SQL: a test-only audit of every update that leaves a version Expired (as test/cluster/expiry.e2e.ts).
    await cluster.sql(`CREATE TABLE test_expiry_audit ("ID" integer NOT NULL, status_before varchar(20))`);
    await cluster.sql(`CREATE FUNCTION test_expiry_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_expiry_audit ("ID", status_before) VALUES (NEW."ID", OLD."Status"); RETURN NEW; END $$`);
    await cluster.sql(
      `CREATE TRIGGER test_expiry_audit AFTER UPDATE ON core_data FOR EACH ROW WHEN (NEW."Status" = 'Expired') EXECUTE FUNCTION test_expiry_audit()`,
    );
    const expired = async () => (await versions()).filter((v) => v.Status === 'Expired').map((v) => v.ID);

    // A session on the primary holds the tick's lock: each instance keeps ticking (transaction-scoped try-locks
    // through the pooler) and skips; the versions due meanwhile stay published.
    const holder = new Client({ connectionString: db.database.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [DatabaseLock.ContentExpiryTick]);
      await cluster.sql(`UPDATE core_data SET "Publish_Expire_Date" = now() - interval '1 second' WHERE "ID" = ANY($1)`, [
        held.map((v) => v.ID),
      ]);
      const ticks = () => Promise.all([0, 1].map((i) => metric(i, 'job_runs_total{job="content_expiry"}')));
      const before = await ticks();
      await waitFor(async () => (await ticks()).every((n, i) => n >= before[i] + 5), 15_000);
      expect(await expired()).toEqual([]);
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [DatabaseLock.ContentExpiryTick]).catch(() => undefined);
      await holder.end();
    }
    await waitFor(async () => (await expired()).length === K_HELD, 10_000);

    // Due 40 ms apart from now on: both instances' ticks find some.
    await cluster.sql(
      `UPDATE core_data SET "Publish_Expire_Date" = now() + (200 + 40 * ("ID" - $2)) * interval '1 millisecond' WHERE "ID" = ANY($1)`,
      [staggered.map((v) => v.ID), staggered[0].ID],
    );
    await waitFor(async () => (await expired()).length === K_HELD + K_STAGGERED, 15_000);
    // Ten ticks or more of each instance after the last one: a second expiry of a version would be in the audit by now.
    const ticks = () => Promise.all([0, 1].map((i) => metric(i, 'job_runs_total{job="content_expiry"}')));
    const after = await ticks();
    await waitFor(async () => (await ticks()).every((n, i) => n >= after[i] + 10), 15_000);

    const audit = await cluster.sql<{ ID: number; status_before: string }>(
      'SELECT "ID", status_before FROM test_expiry_audit ORDER BY "ID"',
    );
    expect(audit).toEqual(live.map((v) => ({ ID: v.ID, status_before: 'Published' })));
    const expiredBy = cluster.instances.map((instance) =>
      instance
        .logLines()
        .filter((line) => line.context === 'ContentExpiry' && line.msg === 'Expired published content')
        .reduce((sum, line) => sum + Number(line.expired), 0),
    );
    expect(expiredBy[0] + expiredBy[1]).toBe(K_HELD + K_STAGGERED);
    expect(expiredBy.every((n) => n > 0)).toBe(true);
  });

  it(`mails each of ${M} notifications once, both senders claiming through the pooler`, async () => {
    const to = (n: number) => `pr${n}-${process.pid}@example.test`;
    const answers = await Promise.all(
      Array.from({ length: M }, (_, n) =>
        cluster.post('/message/notification', { event: 'plain', email: to(n), data: { n } }, { 'site-id': String(notifyApp) }),
      ),
    );
    expect(answers.map((a) => a.body)).toEqual(Array(M).fill({ status: 'Success' }));
    expect(new Set(answers.map((a) => a.instance))).toEqual(new Set([0, 1]));
    const mine = () => cluster.smtp.mails.filter((m) => /^pr\d+-/.test(m.envelope.to[0]));
    await waitFor(() => mine().length >= M, 15_000);
    // Several more sender rounds of each instance: a duplicate would have arrived by now.
    const rounds = () => Promise.all([0, 1].map((i) => metric(i, 'job_runs_total{job="notification_sender"}')));
    const after = await rounds();
    await waitFor(async () => (await rounds()).every((n, i) => n >= after[i] + 3), 15_000);

    expect(
      mine()
        .map((m) => m.envelope.to.join(','))
        .sort(),
    ).toEqual(Array.from({ length: M }, (_, n) => to(n)).sort());
    for (const mail of mine()) expect(mail.parsed.subject).toBe(`Plain ${/^pr(\d+)-/.exec(mail.envelope.to[0])![1]}`);
    const rows = await cluster.sql(
      'SELECT status, attempts, count(*)::int AS n FROM core_notification_log WHERE app_id = $1 GROUP BY status, attempts',
      [notifyApp],
    );
    expect(rows).toEqual([{ status: 'Sent', attempts: 1, n: M }]);
  });

  it('shows a change of the tenant made on one instance on the other within the deadline, while the replica has not replayed it', async () => {
    await lagging(LAGGING_MS);
    const logo = async (instance: number) => {
      const app = await cluster.post('/getApp', {}, { ...site.headers, ...pin(instance) });
      expect(app.status).toBe(200);
      return app.body.logo as string;
    };
    // Both instances hold the tenant in their caches.
    expect([await logo(0), await logo(1)]).toEqual(['/img/logo.png', '/img/logo.png']);
    const fenced = await metric(1, 'db_replica_reads_total{kind="site",server="primary",reason="site_changed"}');

    const changed = await cluster.post(
      '/staff/settings/update',
      { changes: { logo: '/img/changed.png' } },
      { ...site.adminHeaders, ...pin(0) },
    );
    expect(changed.status).toBe(200);
    expect(changed.instance).toBe(0);
    const since = Date.now();
    await waitFor(async () => (await logo(1)) === '/img/changed.png', SITE_CHANGE_DEADLINE_MS);
    // At that moment the replica still has the old row: the other instance read the tenant from the primary, fenced
    // there by the change notice, not from the lagging replica.
    expect(await onReplica('SELECT logo FROM core_sites WHERE id = $1', [site.appId])).toEqual([{ logo: '/img/logo.png' }]);
    expect(Date.now() - since).toBeLessThan(LAGGING_MS);
    expect(await metric(1, 'db_replica_reads_total{kind="site",server="primary",reason="site_changed"}')).toBeGreaterThan(fenced);
  });

  it("reads a client's own publish back at once on the other instance (its position in Redis), while another client reads the replica's stale row", async () => {
    const title = async (instance: number, address: string, headers: Record<string, string>) => {
      const page = await cluster.post(
        '/getDataRows',
        { table: 'core_products' },
        { ...headers, ...pin(instance), 'x-forwarded-for': address },
      );
      expect(page.status).toBe(200);
      return (page.body.data as { title: string }[]).map((row) => row.title);
    };
    expect(await title(1, '10.4.0.9', content.headers)).toEqual(['Poster']);
    const [masterId] = content.products;
    const admin = (action: string, body: Record<string, unknown>) =>
      cluster.post(
        `/content/${action}`,
        { table: 'core_products', ...body },
        { ...content.adminHeaders, ...pin(0), 'x-forwarded-for': '10.4.0.1' },
      );
    expect((await admin('edit', { masterId, data: { title: 'Poster v2' } })).status).toBe(200);
    expect((await admin('publish', { masterId })).status).toBe(200);
    const reads = async () => {
      const counts = await replicaReads(1);
      const sum = (server: string, reason: string) =>
        counts.filter((c) => c.kind === 'published_rows' && c.server === server && c.reason === reason).reduce((n, c) => n + c.n, 0);
      return { ryw: sum('primary', 'read_your_writes'), replica: sum(replicaName, 'replica') };
    };
    const before = await reads();
    // The writer, on the instance that did not take its write: the primary answers.
    expect(await title(1, '10.4.0.1', content.adminHeaders)).toEqual(['Poster v2']);
    // Another client at the same moment, with no write of its own to wait for: the replica, which has not replayed it.
    expect(await title(1, '10.4.0.9', content.headers)).toEqual(['Poster']);
    expect(await reads()).toEqual({ ryw: before.ryw + 1, replica: before.replica + 1 });
  });

  it('answers orderStatus Paid on the other instance at once after a checkout and payment, while the replica still has the order unpaid', async () => {
    const order = await checkoutThroughProxy(cluster, shop, [{ productID: shop.book, Qty: 1, Price: 2500 }], shop.customerHeaders);
    const checkedOutOn = order.answers[2].instance;
    expect(await confirmAtProvider(cluster, order.intent)).toBe(200);
    expect(cluster.webhook.reports.at(-1)).toBe(`webhook payment_intent.succeeded for ${order.intent.id} → 200 {"received":true}`);
    const status: ProxiedResponse = await cluster.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(order._id)}`, undefined, {
      ...shop.customerHeaders,
      ...pin(1 - checkedOutOn),
    });
    expect([status.status, status.instance, status.body.data.orderStatus]).toEqual([200, 1 - checkedOutOn, 'Paid']);
    // Read on the replica at that moment: the order is not paid there yet (not replayed, or not even created): orders
    // are read from the primary whatever the replica has, which is why the answer above is right.
    const stale = await onReplica<{ orderstatus: string }>('SELECT orderstatus FROM core_orders WHERE id = $1', [order.orderID]);
    expect(stale.map((r) => r.orderstatus)).not.toContain('Paid');
    await db.pair.caughtUp();
    expect(await onReplica('SELECT orderstatus FROM core_orders WHERE id = $1', [order.orderID])).toEqual([{ orderstatus: 'Paid' }]);
    await lagging(DELAY_MS);
  });

  it('answers 503 when a statement through the pooler passes DB_STATEMENT_TIMEOUT_MS, and the next request is served', async () => {
    const created = await cluster.post('/ecommerce/createOrder', {}, shop.customerHeaders);
    expect(created.status).toBe(201);
    const _id = created.body.data._id as string;
    const statusOf = (instance: number) =>
      cluster.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(_id)}`, undefined, { ...shop.customerHeaders, ...pin(instance) });
    // A session on the primary holds core_orders: the order's read waits for it until its statement timeout, set per
    // transaction through the pooler (SET LOCAL), cancels it.
    const locker = new Client({ connectionString: db.database.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE core_orders IN ACCESS EXCLUSIVE MODE');
      const answers = await Promise.all([statusOf(0), statusOf(1)]);
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.body).toEqual({ status: 'Failed', message: STATEMENT_TIMEOUT_MESSAGE });
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    expect(db.pair.primary.log()).toMatch(/ERROR: {2}canceling statement due to statement timeout/);
    // The pooled server connections carry no timeout of the cancelled transactions: the same read answers at once.
    for (const instance of [0, 1]) expect((await statusOf(instance)).body.data).toMatchObject({ orderStatus: 'New' });
  });

  it('never sent a write to the replica: its own sessions wrote no row, and only the lag-tolerant reads went there', async () => {
    const [stats] = await db.pair.replica.query<{ written: string }>(
      'SELECT tup_inserted + tup_updated + tup_deleted AS written FROM pg_stat_database WHERE datname = $1',
      [db.database.name],
    );
    expect(Number(stats.written)).toBe(0);
    expect(db.pair.replica.log()).not.toMatch(/read-only transaction/);
    // Both instances read from it, the two lag-tolerant kinds of read only.
    const served = await Promise.all([0, 1].map(async (i) => (await replicaReads(i)).filter((c) => c.server === replicaName && c.n > 0)));
    expect(served.map((counts) => counts.length > 0)).toEqual([true, true]);
    expect(new Set(served.flat().map((c) => c.kind))).toEqual(new Set(['published_rows', 'site']));
  });
});
