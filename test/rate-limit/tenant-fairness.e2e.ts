import { Client } from 'pg';
import { STATEMENT_TIMEOUT_MESSAGE, TENANT_SHARE_EXHAUSTED_MESSAGE } from '../../src/common/global-exception.filter';
import { TenantShare } from '../../src/database/tenant-share';
import { OrderStatusController } from '../../src/orders/checkout/order-status.controller';
import { product, seedTenant, Tenant } from '../versioning/content-helpers';
import { activeStatements, peakActive, seedManyProducts, SLOW_READ } from '../support/slow-reads';
import { startTestApp, TestApp, TestResponse } from '../support/test-app';
import { waitFor } from '../support/wait';

/** Small values, so that the flood below runs in seconds: 4 connections, 2 per tenant, 2 waiting for at most 300 ms. */
const FAIRNESS_ENV = {
  DB_POOL_SIZE: '4',
  DB_TENANT_MAX_CONNECTIONS: '2',
  DB_TENANT_QUEUE: '2',
  DB_TENANT_QUEUE_WAIT_MS: '300',
  DB_STATEMENT_TIMEOUT_MS: '500',
  SITE_CACHE_MS: '5000', // as deployed: tenants resolved from memory (no test here changes core_sites)
};
const ROWS = 150_000;
const FLOOD = 12;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

describe("no tenant can starve another: statement timeout and each tenant's share of the pool", () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestApp(FAIRNESS_ENV);
    a = await seedTenant(t);
    b = await seedTenant(t, [product('Small one', { meta_status: 'Published' }), product('Small two', { meta_status: 'Published' })]);
    await seedManyProducts(t.database.url, a.appId, ROWS);
  }, 120_000);
  afterAll(() => t?.close());

  const smallRead = async (): Promise<number> => {
    const started = performance.now();
    const res = await t.post('/getDataRows', { table: 'core_products', isPaging: true, perPage: 5 }, b.headers);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    return performance.now() - started;
  };

  it('answers a statement over DB_STATEMENT_TIMEOUT_MS with 503 in the failure envelope and Retry-After, not 500', async () => {
    await smallRead(); // the table's columns are read and cached once: time the slow statement alone
    const started = performance.now();
    const res = await t.post('/getDataRows', SLOW_READ, a.headers);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'Failed', message: STATEMENT_TIMEOUT_MESSAGE });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(performance.now() - started).toBeLessThan(3000); // the statement alone takes ~2 s or more
  });

  it("keeps another tenant's small reads fast while one tenant floods the pool with slow reads; the flood's excess gets 503", async () => {
    for (let i = 0; i < 5; i++) await smallRead(); // warm
    const quiet: number[] = [];
    for (let i = 0; i < 30; i++) quiet.push(await smallRead());

    let flooding = true;
    const floodAnswers: TestResponse[] = [];
    const workers = Promise.all(
      Array.from({ length: FLOOD }, async () => {
        while (flooding) floodAnswers.push(await t.post('/getDataRows', SLOW_READ, a.headers));
      }),
    );
    const peak = peakActive(t.database.url, t.database.name, '%ILIKE%', 500, workers);
    // The flood has taken what it can: A's share of the connections runs its statements, and its excess was refused.
    await waitFor(
      async () => (await activeStatements(t.database.url, t.database.name, '%ILIKE%')) >= 2 && floodAnswers.length > 0,
      10_000,
      'the flood to hold its share',
    );
    const during: number[] = [];
    for (let i = 0; i < 30; i++) during.push(await smallRead());
    flooding = false;
    await workers;

    // A fairness bound, not a timing benchmark: without the share the small read waited for the slow ones (8.2 s in the report).
    expect(median(during)).toBeLessThanOrEqual(10 * median(quiet) + 200);
    // A's statements never held more than its share of the 4 connections.
    expect(await peak).toBeLessThanOrEqual(2);

    const statuses = new Set(floodAnswers.map((r) => r.status));
    expect([...statuses]).toEqual([503]);
    const messages = new Set(floodAnswers.map((r) => r.body.message));
    expect(messages).toEqual(new Set([STATEMENT_TIMEOUT_MESSAGE, TENANT_SHARE_EXHAUSTED_MESSAGE]));
    for (const answer of floodAnswers) {
      expect(answer.body).toEqual({ status: 'Failed', message: answer.body.message });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it('lets a tenant use its share again once its flood is over', async () => {
    const res = await t.post('/getDataRows', { table: 'core_products', isPaging: true, perPage: 3, orderBy: 'title ASC' }, a.headers);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
  });
});

describe("with REDIS_URL unreachable, the instance's own share still holds", () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    // A port nothing listens on: every Redis command fails at once.
    t = await startTestApp({ ...FAIRNESS_ENV, DB_STATEMENT_TIMEOUT_MS: '300', REDIS_URL: 'redis://127.0.0.1:9' });
    a = await seedTenant(t);
    await seedManyProducts(t.database.url, a.appId, 30_000);
  }, 60_000);
  afterAll(() => t?.close());

  it("answers 503, never 500, and runs at most DB_TENANT_MAX_CONNECTIONS of the tenant's statements at once", async () => {
    const answers = Promise.all(Array.from({ length: 8 }, () => t.post('/getDataRows', SLOW_READ, a.headers)));
    const peak = await peakActive(t.database.url, t.database.name, '%ILIKE%', 300, answers);
    expect(peak).toBeLessThanOrEqual(2);
    const statuses = new Set((await answers).map((r) => r.status));
    for (const status of statuses) expect([200, 503]).toContain(status);
    expect((await answers).some((r) => r.body.message === TENANT_SHARE_EXHAUSTED_MESSAGE)).toBe(true);
  });
});

/**
 * A pool of 8 with the default headroom (2) and priority reserve (2): anonymous requests see 6 connections, and
 * the active tenants share 4 of them (one tenant 4, two 2 each, five 1 each); the last 2 are for a tenant that
 * arrives, the 2 beyond for authenticated requests. Long waits, so that nothing here is refused by a timeout.
 */
const SHARES_ENV = {
  DB_POOL_SIZE: '8',
  DB_TENANT_QUEUE: '100',
  DB_TENANT_QUEUE_WAIT_MS: '30000',
  DB_STATEMENT_TIMEOUT_MS: '30000',
  SITE_CACHE_MS: '5000',
};
/** How long the quiet requests may take while the flood holds its connections: a guard against a hang, not a timing (they take milliseconds). */
const GUARD_MS = 8000;

describe('fair shares for any number of tenants: a share that shrinks with the active tenants, a headroom and a priority reserve', () => {
  let t: TestApp;
  let flooders: Tenant[];
  let quiet: Tenant;

  beforeAll(async () => {
    t = await startTestApp(SHARES_ENV);
    flooders = [];
    for (let i = 0; i < 8; i++) flooders.push(await seedTenant(t, [product('One', { meta_status: 'Published' })]));
    quiet = await seedTenant(t);
    for (const tenant of [...flooders, quiet]) await t.post('/getDataRows', { table: 'core_products' }, tenant.headers); // tables' columns cached
  }, 120_000);
  afterAll(() => t?.close());

  /** Statements of this test's database waiting for a lock (the flood's reads held by `flood`'s lock). */
  async function blockedStatements(admin: Client): Promise<number> {
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND wait_event_type = 'Lock'`,
      [t.database.name],
    );
    return rows[0].n;
  }

  /**
   * Floods with `perTenant` anonymous reads of core_products from each tenant (sent in turns, one of each tenant
   * after the other), each held on its connection by an ACCESS EXCLUSIVE lock on the table: the flooders hold
   * their connections for as long as `during` runs, however long that is. Answers what `during` answered and the
   * flood's statements that were waiting meanwhile; the flood is answered once the lock is gone.
   */
  async function flood<T>(tenants: Tenant[], perTenant: number, during: () => Promise<T>): Promise<{ result: T; held: number }> {
    const locker = new Client({ connectionString: t.database.url });
    const admin = new Client({ connectionString: t.database.url });
    await locker.connect();
    await admin.connect();
    let answers: Promise<TestResponse[]> | undefined;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE core_products IN ACCESS EXCLUSIVE MODE');
      const sent: Promise<TestResponse>[] = [];
      for (let i = 0; i < perTenant; i++)
        for (const tenant of tenants) sent.push(t.post('/getDataRows', { table: 'core_products' }, tenant.headers));
      answers = Promise.all(sent);
      // Until the flood has taken all it can: the count of waiting statements stays the same for half a second.
      let held = -1;
      for (let stable = 0; stable < 10;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const now = await blockedStatements(admin);
        stable = now === held && now > 0 ? stable + 1 : 0;
        held = now;
      }
      const result = await during();
      held = Math.max(held, await blockedStatements(admin));
      return { result, held };
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
      await admin.end();
      await answers?.catch(() => undefined);
    }
  }

  /** `count` requests one after the other, each of which must answer within GUARD_MS (else 'still waiting'). */
  async function inTurn(count: number, send: () => Promise<TestResponse>): Promise<(TestResponse | 'still waiting')[]> {
    const out: (TestResponse | 'still waiting')[] = [];
    for (let i = 0; i < count; i++) {
      let timer: NodeJS.Timeout | undefined;
      const guard = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), GUARD_MS)));
      out.push(await Promise.race([send(), guard]));
      clearTimeout(timer);
      if (out[i] === 'still waiting') break;
    }
    return out;
  }

  /** An anonymous read of a table the flood does not read (its lock would hold this read too): a token lookup. */
  const quietRead = () => t.post('/ecommerce/validateToken', { tokenValue: 'NO-SUCH-TOKEN', productId: 1 }, quiet.headers);

  it.each([
    [2, 2 * 2],
    [5, 5 * 1],
  ])(
    "%i tenants flooding with reads that hold their connections leave a third tenant's reads a connection at once",
    async (tenants, share) => {
      const gate = t.get(TenantShare).gate;
      const { result, held } = await flood(flooders.slice(0, tenants), 6, async () => {
        const observed = flooders.slice(0, tenants).map((f) => gate.running(f.appId));
        return { reads: await inTurn(5, quietRead), observed };
      });
      // The quiet tenant's reads all answered while the flooders still held their connections.
      for (const read of result.reads) {
        expect(read).not.toBe('still waiting');
        expect((read as TestResponse).status).toBe(200);
        expect((read as TestResponse).body.status).toBe('Failed'); // no such token: it was looked up
      }
      expect(result.reads).toHaveLength(5);
      // Each flooder holds its fair part (pool 8 − reserve 2 − headroom 2, divided among them), the rest waits.
      expect(result.observed).toEqual(Array(tenants).fill(share / tenants));
      expect(held).toBe(share);
    },
    60_000,
  );

  it("lets a tenant's authenticated request past its own anonymous flood", async () => {
    const [a] = flooders;
    const { result, held } = await flood([a], 8, () => inTurn(3, () => t.post('/getDataRows', { table: 'core_users' }, a.adminHeaders)));
    for (const read of result) expect(read === 'still waiting' ? read : read.status).toBe(200);
    expect(result).toHaveLength(3);
    expect(held).toBe(4); // a lone tenant: 8 − 2 − 2
  }, 60_000);

  it('keeps DB_PRIORITY_CONNECTIONS from anonymous floods of many tenants: an authenticated request finds a connection', async () => {
    const { result, held } = await flood(flooders, 3, () =>
      inTurn(3, () => t.post('/getDataRows', { table: 'core_users' }, quiet.adminHeaders)),
    );
    for (const read of result) expect(read === 'still waiting' ? read : read.status).toBe(200);
    expect(result).toHaveLength(3);
    // Eight tenants: one each while the 4 last, two more from the headroom, then none: 8 − 2 are anonymous at most.
    expect(held).toBe(6);
  }, 60_000);
});

describe('the QR codes of /ecommerce/genCode: rendered once per code and a few at a time per tenant', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    a = await seedTenant(t);
    b = await seedTenant(t);
  }, 60_000);
  afterAll(() => t?.close());

  const code = (tenant: Tenant, id: number) => t.request('GET', `/ecommerce/genCode/${id}`, undefined, tenant.headers);

  it("keeps each code's PNG per app and content, and renders at most 2 of one tenant's codes at once", async () => {
    const { renders } = t.get(OrderStatusController).qrCodes;
    const before = renders.total;
    // 6 different codes and 5 times the same one, all at once (a render takes up to ~0.3 s inside jest).
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => code(a, 1000 + i)),
      ...Array.from({ length: 5 }, () => code(a, 7)),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('image/png');
    }
    expect(renders.total - before).toBe(7);
    expect(renders.peak).toBeLessThanOrEqual(2);
    // Asked again: the same PNG, not rendered again.
    const again = await code(a, 7);
    expect(again.body).toEqual(answers[6].body);
    expect(renders.total - before).toBe(7);
    // Another app's code of the same number holds its own domain: its own PNG.
    const other = await code(b, 7);
    expect(other.status).toBe(200);
    expect(other.body).not.toEqual(again.body);
    expect(renders.total - before).toBe(8);
  });
});
