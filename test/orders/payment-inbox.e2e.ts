import { Client } from 'pg';
import { PaymentEventsAdmin } from '../../src/orders';
import { PaymentEventsWorker } from '../../src/orders/flows/payment-events.worker';
import { RequestContext } from '../../src/common/request-context';
import { TransactionalConnection } from '../../src/database/transactional-connection';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { activeStatements, seedManyProducts, SLOW_READ } from '../support/slow-reads';
import { TestApp, TestResponse } from '../support/test-app';
import { waitFor } from '../support/wait';
import { seedShop, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/** A small pool whose tenant share a flood fills in a moment; statements of the request pool end after 1.5 s. */
const BUSY_ENV = {
  DB_POOL_SIZE: '4',
  DB_TENANT_MAX_CONNECTIONS: '2',
  DB_TENANT_QUEUE: '2',
  DB_TENANT_QUEUE_WAIT_MS: '300',
  DB_STATEMENT_TIMEOUT_MS: '1500',
  PAYMENT_EVENTS_POLL_MS: '0', // the worker's rounds are run by the tests
  PAYMENT_EVENTS_MAX_ATTEMPTS: '3',
  SITE_CACHE_MS: '5000',
};

/**
 * The inbox of the provider's events (README "Payment events"): a verified event is answered 2xx only once
 * it is recorded, on capacity no tenant's reads can take; it is then applied exactly once, retried with
 * backoff, and given up visibly (metrics, events:failed) rather than silently.
 */
describe('payment events inbox', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let other: ShopTenant;
  let client: ShopClient;
  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const eventRow = async (appId: number, eventId: string) =>
    (
      await sql('SELECT status, attempts, outcome, last_error FROM core_payment_events WHERE app_id = $1 AND event_id = $2', [
        appId,
        eventId,
      ])
    )[0];

  /** A connection of its own that holds `lockSql` in an open transaction until released. */
  async function holding(lockSql: string, params: unknown[] = []): Promise<{ release: () => Promise<void> }> {
    const blocker = new Client({ connectionString: t.database.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(lockSql, params);
    return {
      release: async () => {
        await blocker.query('ROLLBACK');
        await blocker.end();
      },
    };
  }

  beforeAll(async () => {
    ({ peer, smtp, t, shop, other, client } = await startShopHarness(BUSY_ENV));
    await seedManyProducts(t.database.url, shop.appId, 150_000);
  }, 120_000);
  afterAll(() => stopShopHarness({ t, smtp, peer }));

  it("records and completes every payment while the shop's anonymous reads flood its share of the pool", async () => {
    const orders = [];
    for (let i = 0; i < 8; i++) orders.push(await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]));

    let flooding = true;
    const floodAnswers: TestResponse[] = [];
    const flood = Promise.all(
      Array.from({ length: 12 }, async () => {
        while (flooding) floodAnswers.push(await t.post('/getDataRows', SLOW_READ, shop.headers));
      }),
    );
    // The flood holds the shop's share (its two connections run its reads) and its queue (its excess is refused).
    await waitFor(
      async () =>
        floodAnswers.some((answer) => answer.status === 503) && (await activeStatements(t.database.url, t.database.name, '%ILIKE%')) >= 2,
      10_000,
      'the flood to fill the share',
    );
    const deliveries = await Promise.all(orders.map((order, i) => client.deliver(client.paid(order.intent, { id: `evt_flood_${i}` }))));
    const paidDuringFlood = await Promise.all(orders.map((order) => client.orderRow(order.orderID)));
    flooding = false;
    await flood;

    expect(floodAnswers.some((answer) => answer.status === 503)).toBe(true); // the share was full
    expect(deliveries.map((res) => res.status)).toEqual(orders.map(() => 200));
    expect(paidDuringFlood.map((row) => row.orderstatus)).toEqual(orders.map(() => 'Paid'));
    for (let i = 0; i < orders.length; i++)
      expect(await eventRow(shop.appId, `evt_flood_${i}`)).toMatchObject({ status: 'processed', outcome: 'completed' });
  }, 120_000);

  it('answers 503 with Retry-After and records nothing when the event cannot be recorded; the redelivery completes the order', async () => {
    const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const delivery = client.paid(order.intent, { id: 'evt_unrecordable' });
    const lock = await holding('LOCK TABLE core_payment_events IN ACCESS EXCLUSIVE MODE');
    let refused: TestResponse;
    try {
      refused = await client.deliver(delivery);
    } finally {
      await lock.release();
    }
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ status: 'Failed', message: 'The payment event could not be recorded: deliver it again' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await eventRow(shop.appId, 'evt_unrecordable')).toBeUndefined();
    expect((await client.orderRow(order.orderID)).orderstatus).toBe('New');

    expect((await client.deliver(delivery)).status).toBe(200);
    expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
  }, 30_000);

  it('keeps an event whose try failed pending, retries it with the worker, and gives up visibly after the last try', async () => {
    const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    // The order's row is locked elsewhere longer than a statement may wait: applying the event fails.
    const lock = await holding('SELECT id FROM core_orders WHERE id = $1 FOR UPDATE', [order.orderID]);
    let answered: TestResponse;
    try {
      answered = await client.deliver(client.paid(order.intent, { id: 'evt_retried' }));
    } finally {
      await lock.release();
    }
    expect(answered.status).toBe(200); // recorded: the provider must not deliver it again
    expect(await eventRow(shop.appId, 'evt_retried')).toMatchObject({ status: 'pending', attempts: 1, outcome: null });
    expect((await client.orderRow(order.orderID)).orderstatus).toBe('New');
    const [due] = await sql(
      `SELECT next_attempt_at > now() + interval '5 seconds' AS later FROM core_payment_events WHERE app_id = $1 AND event_id = 'evt_retried'`,
      [shop.appId],
    );
    expect(due.later).toBe(true); // backoff

    const worker = t.get(PaymentEventsWorker);
    await worker.runOnce(); // not due yet: nothing happens
    expect((await client.orderRow(order.orderID)).orderstatus).toBe('New');
    await sql(`UPDATE core_payment_events SET next_attempt_at = now() WHERE app_id = $1 AND event_id = 'evt_retried'`, [shop.appId]);
    await worker.runOnce();
    expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
    expect(await eventRow(shop.appId, 'evt_retried')).toMatchObject({ status: 'processed', outcome: 'completed', attempts: 1 });

    // An event that fails every try: Failed after PAYMENT_EVENTS_MAX_ATTEMPTS (3), listed, retried by an operator.
    const stuck = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const stuckLock = await holding('SELECT id FROM core_orders WHERE id = $1 FOR UPDATE', [stuck.orderID]);
    try {
      expect((await client.deliver(client.paid(stuck.intent, { id: 'evt_stuck' }))).status).toBe(200);
      for (let i = 0; i < 2; i++) {
        await sql(`UPDATE core_payment_events SET next_attempt_at = now() WHERE app_id = $1 AND event_id = 'evt_stuck'`, [shop.appId]);
        await worker.runOnce();
      }
    } finally {
      await stuckLock.release();
    }
    expect(await eventRow(shop.appId, 'evt_stuck')).toMatchObject({ status: 'failed', attempts: 3, outcome: null });
    expect(await metric('payment_events_failed')).toBe(1);

    const admin = t.get(PaymentEventsAdmin);
    const ctx = RequestContext.background('test', false, { id: shop.appId } as never);
    const listed = await admin.failed(ctx, 10);
    expect(listed).toMatchObject({ total: 1, events: [{ event_id: 'evt_stuck', attempts: 3, order_id: stuck.orderID }] });
    expect(listed.events[0].last_error).toMatch(/statement timeout|canceling statement/);
    expect(await admin.failed(RequestContext.background('test', false, { id: other.appId } as never), 10)).toEqual({
      total: 0,
      events: [],
    });

    expect(await t.get(TransactionalConnection).inTransaction(ctx, () => admin.retry(ctx, 'evt_stuck'))).toEqual(['evt_stuck']);
    await worker.runOnce();
    expect((await client.orderRow(stuck.orderID)).orderstatus).toBe('Paid');
    expect(await eventRow(shop.appId, 'evt_stuck')).toMatchObject({ status: 'processed', outcome: 'completed' });
    expect(await metric('payment_events_failed')).toBe(0);
  }, 60_000);

  it("deduplicates per app: another app's event with the same id is its own event", async () => {
    const mine = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const otherClient = new ShopClient(t, peer, other);
    const theirs = await otherClient.checkedOut([{ productID: other.book, Qty: 1, Price: 2500 }]);
    // The other app delivers first, under an id this app's provider account then uses too.
    expect((await otherClient.deliver(otherClient.paid(theirs.intent, { id: 'evt_shared_id' }))).status).toBe(200);
    expect((await client.deliver(client.paid(mine.intent, { id: 'evt_shared_id' }))).status).toBe(200);
    expect((await client.orderRow(mine.orderID)).orderstatus).toBe('Paid');
    expect((await otherClient.orderRow(theirs.orderID)).orderstatus).toBe('Paid');
    // A redelivery of either is still one event.
    expect((await client.deliver(client.paid(mine.intent, { id: 'evt_shared_id' }))).status).toBe(200);
    expect(await sql(`SELECT app_id FROM core_payment_events WHERE event_id = 'evt_shared_id' ORDER BY app_id`)).toEqual([
      { app_id: Math.min(shop.appId, other.appId) },
      { app_id: Math.max(shop.appId, other.appId) },
    ]);
  });

  it('completes an order once when the same event is delivered 20 times at once and the worker runs meanwhile', async () => {
    const order = await client.checkedOut([{ productID: shop.ebook, Qty: 1, Price: 1500 }]);
    const delivery = client.paid(order.intent, { id: 'evt_twenty' });
    const worker = t.get(PaymentEventsWorker);
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () => client.deliver(delivery)),
      sql(`UPDATE core_payment_events SET next_attempt_at = now() WHERE event_id = 'evt_twenty'`).then(() => worker.runOnce()),
    ]);
    expect(answers.slice(0, 20).map((res) => (res as TestResponse).status)).toEqual(Array(20).fill(200));
    expect(await client.tokenRows(order.orderID)).toHaveLength(1);
    expect(await client.mailRows(order.orderID)).toHaveLength(2); // the admin's and the customer's, once each
    expect(await eventRow(shop.appId, 'evt_twenty')).toMatchObject({ status: 'processed', outcome: 'completed' });
  });

  /** A gauge's value from GET /metrics. */
  async function metric(name: string): Promise<number> {
    const res = await t.request('GET', '/metrics');
    const line = String(res.body)
      .split('\n')
      .find((l) => l.startsWith(`${name} `));
    return Number(line?.split(' ')[1]);
  }

  it('counts the inbox in /metrics', async () => {
    expect(await metric('payment_events_pending')).toBe(0);
    await seedShop(t); // nothing of its own
    expect(await metric('payment_events_oldest_pending_age_seconds')).toBe(0);
  });
});
