import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/database/migrate';
import { ReplicaReads, ServedCount } from '../../src/database/replica-reads';
import { product, seedTenant, Tenant } from '../versioning/content-helpers';
import { ReplicaPair } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/wait';

/**
 * Issue 40, part 3: read replicas with read-your-writes. A PostgreSQL 15 primary and a streaming replica of it
 * replaying 300 ms late (test/support/replica.ts); the service on the primary with DATABASE_REPLICA_URLS naming the
 * replica, and Redis for the clients' write positions.
 */
describe('read replicas (DATABASE_REPLICA_URLS) with read-your-writes', () => {
  const DB = 'platform';
  let pair: ReplicaPair;
  let t: TestApp;
  let replicas: ReplicaReads;
  let tenant: Tenant;
  let replicaName: string;
  const redisPrefix = `test:${randomBytes(6).toString('hex')}:`;
  /** Every instance: the replica, Redis for the write positions (the same prefix: one deployment). */
  const ENV = () => ({
    DATABASE_REPLICA_URLS: pair.replica.url(DB),
    DATABASE_REPLICA_MAX_LAG_MS: '2000',
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: redisPrefix,
    SITE_CACHE_MS: '600000', // as deployed: tenants in memory, a change announced through LISTEN/NOTIFY
    NOTIFY_SENDER_ENABLED: 'false',
    CONTENT_EXPIRY_TICK_MS: '0',
  });

  /** A request from the client address `ip` (inject's remoteAddress): read-your-writes keys anonymous clients by it. */
  const from = async (ip: string, url: string, body: unknown, headers: Record<string, string>) => {
    const response = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(body),
      remoteAddress: ip,
    });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };
  const titles = async (ip: string, headers: Record<string, string>) => {
    const page = await from(ip, '/getDataRows', { table: 'core_products', orderBy: 'title ASC' }, headers);
    expect(page.status).toBe(200);
    return (page.body.data as { title: string }[]).map((row) => row.title);
  };
  /** Reads served so far of `kind` by `server` for `reason`. */
  const served = (kind: ServedCount['kind'], server: string, reason: ServedCount['reason']) =>
    replicas
      .servedCounts()
      .filter((c) => c.kind === kind && c.server === server && c.reason === reason)
      .reduce((sum, c) => sum + c.count, 0);
  /** The last statement of each of the service's connections to the replica, as the replica itself shows them. */
  const replicaStatements = async () =>
    (await pair.replica.query<{ query: string }>("SELECT query FROM pg_stat_activity WHERE application_name = 'platform-replica'")).map(
      (row) => row.query,
    );
  const admin = (action: string, body: Record<string, unknown>) =>
    from('10.0.0.1', `/content/${action}`, { table: 'core_products', ...body }, tenant.adminHeaders);
  /** The state of the replica as the service sees it, once a poll has run after now. */
  const state = async () => {
    await replicas.polled();
    return replicas.states()[0];
  };

  beforeAll(async () => {
    pair = await ReplicaPair.start({ applyDelayMs: 300 });
    await pair.createDatabase(DB);
    await migrate({ url: pair.primary.url(DB), embedded: false, idle: async () => undefined });
    t = await startTestApp(ENV(), { name: DB, url: pair.primary.url(DB) });
    replicas = t.get(ReplicaReads);
    replicaName = `127.0.0.1:${pair.replica.port}/${DB}`;
    tenant = await seedTenant(t, [product('Poster', { meta_status: 'Published' }), product('Mug', { meta_status: 'Published' })]);
    await pair.caughtUp();
    await state();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (pair) {
      if (process.env.REPLICA_TEST_LOGS) console.log(pair.replica.log());
      await pair.stop();
    }
  });

  it('serves published /getDataRows and the tenant lookup of /getApp from the replica', async () => {
    expect(await state()).toMatchObject({ name: replicaName, up: true, used: true });
    const [siteReads, rowReads] = [served('site', replicaName, 'replica'), served('published_rows', replicaName, 'replica')];

    const app = await from('10.0.0.2', '/getApp', {}, tenant.headers); // the site cache's first miss for this tenant
    expect(app.status).toBe(200);
    expect(app.body.logo).toBe('/img/logo.png');
    expect(served('site', replicaName, 'replica')).toBe(siteReads + 1);
    // The replica itself ran the statement, on a connection of the service's replica pool.
    expect(await replicaStatements()).toContainEqual(expect.stringContaining('FROM core_sites WHERE id = $1'));

    expect(await titles('10.0.0.2', tenant.headers)).toEqual(['Mug', 'Poster']);
    expect(await replicaStatements()).toContainEqual(expect.stringContaining('core_data'));
    expect(await titles('10.0.0.3', tenant.headers)).toEqual(['Mug', 'Poster']);
    expect(served('published_rows', replicaName, 'replica')).toBe(rowReads + 2);
  });

  it("shows a client its own write at once (the primary serves it) while another client's read may still be stale (the replica's)", async () => {
    await pair.replica.set('recovery_min_apply_delay', '1000ms'); // a second of lag, so "at once" is certain to be early
    await state();
    const masterId = tenant.products[0];
    const rywBefore = served('published_rows', 'primary', 'read_your_writes');
    const replicaBefore = served('published_rows', replicaName, 'replica');

    expect((await admin('edit', { masterId, data: { title: 'Poster v2' } })).status).toBe(200);
    expect((await admin('publish', { masterId })).status).toBe(200);
    // The writer (its bearer, its address) reads its write back at once.
    expect(await titles('10.0.0.1', tenant.adminHeaders)).toEqual(['Mug', 'Poster v2']);
    // The writer's address without the bearer too (an anonymous client is known by its address).
    expect(await titles('10.0.0.1', tenant.headers)).toEqual(['Mug', 'Poster v2']);
    // Another client, at the same moment, from the replica that has not replayed the publish yet.
    expect(await titles('10.0.0.9', tenant.headers)).toEqual(['Mug', 'Poster']);
    expect(served('published_rows', 'primary', 'read_your_writes')).toBe(rywBefore + 2);
    expect(served('published_rows', replicaName, 'replica')).toBe(replicaBefore + 1);

    // Once the replica has replayed the write, it serves everyone again, the writer included, with the new row.
    await pair.caughtUp();
    await state();
    expect(await titles('10.0.0.1', tenant.adminHeaders)).toEqual(['Mug', 'Poster v2']);
    expect(await titles('10.0.0.9', tenant.headers)).toEqual(['Mug', 'Poster v2']);
    expect(served('published_rows', replicaName, 'replica')).toBe(replicaBefore + 3);
  });

  it('read-your-writes holds across instances: the write position is kept in Redis', async () => {
    const other = await startTestApp(ENV(), t.database);
    const otherReplicas = other.get(ReplicaReads);
    try {
      await otherReplicas.polled();
      const masterId = tenant.products[1];
      expect((await admin('edit', { masterId, data: { title: 'Mug v2' } })).status).toBe(200);
      expect((await admin('publish', { masterId })).status).toBe(200);
      // The writer's next request lands on the other instance, which never saw the write: Redis tells it.
      const page = await other.app.inject({
        method: 'POST',
        url: '/getDataRows',
        headers: { 'content-type': 'application/json', ...tenant.adminHeaders },
        payload: JSON.stringify({ table: 'core_products', orderBy: 'title ASC' }),
        remoteAddress: '10.0.0.1',
      });
      expect((JSON.parse(page.body).data as { title: string }[]).map((row) => row.title)).toEqual(['Mug v2', 'Poster v2']);
      expect(otherReplicas.servedCounts()).toContainEqual(
        expect.objectContaining({ kind: 'published_rows', server: 'primary', reason: 'read_your_writes', count: 1 }),
      );
    } finally {
      await other.close();
    }
    await pair.caughtUp();
  });

  it('with read-your-writes switched off the writer reads the stale row from the replica: the lag is real', async () => {
    const masterId = tenant.products[0];
    replicas.readYourWrites = false;
    try {
      expect((await admin('edit', { masterId, data: { title: 'Poster v3' } })).status).toBe(200);
      expect((await admin('publish', { masterId })).status).toBe(200);
      const before = served('published_rows', replicaName, 'replica');
      expect(await titles('10.0.0.1', tenant.adminHeaders)).toEqual(['Mug v2', 'Poster v2']);
      expect(served('published_rows', replicaName, 'replica')).toBe(before + 1);
    } finally {
      replicas.readYourWrites = true;
    }
    expect(await titles('10.0.0.1', tenant.adminHeaders)).toEqual(['Mug v2', 'Poster v3']); // switched on again: the primary
    await pair.caughtUp();
    await pair.replica.set('recovery_min_apply_delay', '300ms');
  });

  it('a change of the tenant is seen at once by every client, though the replica lags: the change notice fences the site lookups', async () => {
    await pair.replica.set('recovery_min_apply_delay', '1000ms');
    await state();
    // An operator's change (SQL on the primary): the core_sites trigger announces it, the cache drops the row.
    await pair.primary.query('UPDATE core_sites SET logo = $1 WHERE id = $2', ['/img/new-logo.png', tenant.appId], DB);
    const fenced = served('site', 'primary', 'site_changed');
    const app = await eventually(async () => {
      const answer = await from('10.0.0.7', '/getApp', {}, tenant.headers);
      expect(answer.body.logo).toBe('/img/new-logo.png');
      return answer;
    }, 1000);
    expect(app.status).toBe(200);
    expect(served('site', 'primary', 'site_changed')).toBeGreaterThan(fenced);
    await pair.caughtUp();
    await pair.replica.set('recovery_min_apply_delay', '300ms');
  });

  it('writes never reach the replica: an order here, the content and tenant changes above, all on the primary, none tried there', async () => {
    const order = await from('10.0.0.4', '/ecommerce/createOrder', {}, tenant.headers);
    expect(order.status).toBe(201);
    const [stats] = await pair.replica.query<{ written: string }>(
      `SELECT tup_inserted + tup_updated + tup_deleted AS written
         FROM pg_stat_database WHERE datname = $1`,
      [DB],
    );
    // The standby counts what its own sessions did: nothing written, no statement failed (a write there would fail
    // with "cannot execute … in a read-only transaction").
    expect(Number(stats.written)).toBe(0);
    expect(pair.replica.log()).not.toMatch(/read-only transaction/);
    // Only the two lag-tolerant kinds of read ever went to it.
    expect(
      new Set(
        replicas
          .servedCounts()
          .filter((c) => c.reason === 'replica')
          .map((c) => c.kind),
      ),
    ).toEqual(new Set(['published_rows', 'site']));
    // The order is on the primary, and its transaction's position was kept for its client.
    const [row] = await pair.primary.query<{ n: string }>('SELECT count(*) AS n FROM core_orders WHERE app_id = $1', [tenant.appId], DB);
    expect(Number(row.n)).toBe(1);
  });

  it('skips a replica that lags beyond DATABASE_REPLICA_MAX_LAG_MS, and uses it again once it caught up', async () => {
    await pair.replica.query('SELECT pg_wal_replay_pause()');
    try {
      await from('10.0.0.1', '/content/create', { table: 'core_products', data: { title: 'Lamp', price: 100 } }, tenant.adminHeaders);
      await eventually(async () => expect((await state()).used).toBe(false), 10_000);
      const lagging = served('published_rows', 'primary', 'lagging');
      expect((await state()).lagSeconds).toBeGreaterThan(2);
      expect(await titles('10.0.0.9', tenant.headers)).toEqual(['Mug v2', 'Poster v3']);
      expect(served('published_rows', 'primary', 'lagging')).toBe(lagging + 1);
    } finally {
      await pair.replica.query('SELECT pg_wal_replay_resume()');
    }
    await eventually(async () => expect((await state()).used).toBe(true), 10_000);
    const before = served('published_rows', replicaName, 'replica');
    expect(await titles('10.0.0.9', tenant.headers)).toEqual(['Mug v2', 'Poster v3']);
    expect(served('published_rows', replicaName, 'replica')).toBe(before + 1);
  });

  it('skips a stopped replica (the primary answers every read), and uses it again once it is back', async () => {
    pair.replica.stop();
    // Every read is answered, by the primary: at first because the read failed on the replica, then because it is down.
    for (let i = 0; i < 3; i++) expect(await titles('10.0.0.9', tenant.headers)).toEqual(['Mug v2', 'Poster v3']);
    expect(await state()).toMatchObject({ up: false, used: false });
    const down = served('published_rows', 'primary', 'down');
    expect(await titles('10.0.0.9', tenant.headers)).toEqual(['Mug v2', 'Poster v3']);
    expect(served('published_rows', 'primary', 'down')).toBe(down + 1);
    expect(served('published_rows', 'primary', 'failed') + served('published_rows', 'primary', 'down')).toBeGreaterThanOrEqual(3);

    pair.replica.start();
    await eventually(async () => expect(await state()).toMatchObject({ up: true, used: true }), 20_000);
    const before = served('published_rows', replicaName, 'replica');
    expect(await titles('10.0.0.9', tenant.headers)).toEqual(['Mug v2', 'Poster v3']);
    expect(served('published_rows', replicaName, 'replica')).toBe(before + 1);
  });

  it('/metrics shows the lag, whether the replica is used, and the reads each server served and why', async () => {
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    const text = metrics.body;
    const label = `replica="${replicaName}"`;
    expect(text).toMatch(new RegExp(`^db_replica_lag_seconds\\{${label}\\} [0-9.e-]+$`, 'm'));
    expect(text).toContain(`db_replica_up{${label}} 1`);
    expect(text).toContain(`db_replica_used{${label}} 1`);
    const count = (kind: string, server: string, reason: string) => {
      const match = text.match(
        new RegExp(`^db_replica_reads_total\\{kind="${kind}",server="${server}",reason="${reason}"\\} (\\d+)$`, 'm'),
      );
      return match ? Number(match[1]) : 0;
    };
    expect(count('published_rows', replicaName, 'replica')).toBe(served('published_rows', replicaName, 'replica'));
    expect(count('published_rows', 'primary', 'read_your_writes')).toBeGreaterThanOrEqual(2);
    expect(count('published_rows', 'primary', 'lagging')).toBeGreaterThanOrEqual(1);
    expect(count('site', replicaName, 'replica')).toBeGreaterThanOrEqual(1);
    expect(count('site', 'primary', 'site_changed')).toBeGreaterThanOrEqual(1);
  });
});
