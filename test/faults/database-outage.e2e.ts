import { Client } from 'pg';
import { QueryFailedError } from 'typeorm';
import { TransactionalConnection } from '../../src/database/transactional-connection';
import { TransactionScope } from '../../src/database/transaction-scope';
import { ShopClient, seedShop, ShopTenant } from '../orders/checkout-helpers';
import { dropDatabase } from '../support/database';
import { PaymentPeer } from '../support/payment-peer';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestDatabase, startTestApp, TestApp, TestResponse } from '../support/test-app';
import { waitFor } from '../support/wait';

/** Longer than any answer may take: a request still open then counts as hung. */
const HANG_MS = 15_000;
const SHOPPERS = 4;

type Phase = 'before' | 'down' | 'after';

interface Outcome {
  /** When the request was sent, and when it was answered. */
  phase: Phase;
  answered: Phase;
  path: string;
  status: number | 'hung';
  body: unknown;
  retryAfter?: string;
  ms: number;
}

/** A shop app whose every database connection goes through a TcpProxy the test can cut. */
interface ProxiedShop {
  db: { name: string; url: string };
  proxy: TcpProxy;
  peer: PaymentPeer;
  t: TestApp;
  shop: ShopTenant;
  client: ShopClient;
}

async function startProxiedShop(siteCacheMs: string): Promise<ProxiedShop> {
  const db = await createTestDatabase();
  const target = new URL(db.url);
  const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
  const peer = await PaymentPeer.start();
  const t = await startTestApp(
    { SITE_CACHE_MS: siteCacheMs, PAYMENT_API_URL: peer.url, NOTIFY_SENDER_ENABLED: 'false' },
    { name: db.name, url: proxy.urlFor(db.url) },
  );
  const shop = await seedShop(t);
  return { db, proxy, peer, t, shop, client: new ShopClient(t, peer, shop) };
}

/** A ProxiedShop for the enclosing describe: started before its tests, stopped after them. */
function useProxiedShop(siteCacheMs: string): ProxiedShop {
  const shop = {} as ProxiedShop;
  beforeAll(async () => void Object.assign(shop, await startProxiedShop(siteCacheMs)));
  afterAll(() => stopProxiedShop(shop));
  return shop;
}

async function stopProxiedShop(s: Partial<ProxiedShop>): Promise<void> {
  await s.t?.close();
  await s.proxy?.stop();
  await s.peer?.stop();
  if (s.db) await dropDatabase(s.db.name);
}

/**
 * PostgreSQL restarted under load, as the service sees it: every connection reset at once and new ones
 * refused for a while (a TCP proxy between the service and the database, cut and restored). Shoppers keep
 * creating orders and filling carts throughout.
 */
describe('the database goes away under load', () => {
  let db: { name: string; url: string };
  let proxy: TcpProxy;
  let t: TestApp;
  let shop: ShopTenant;
  let peer: PaymentPeer;
  let client: ShopClient;
  let direct: Client;

  beforeAll(async () => {
    // The site cache on too: its listener connection is cut with the rest and must come back by itself.
    ({ db, proxy, peer, t, shop, client } = await startProxiedShop('5000'));
    direct = new Client({ connectionString: db.url });
    await direct.connect();
  });

  afterAll(async () => {
    await direct?.end();
    await stopProxiedShop({ t, proxy, peer, db });
  });

  it('answers 503 Database unavailable while it is gone, leaves no request hanging and no half-written cart, and recovers without a restart', async () => {
    const outcomes: Outcome[] = [];
    let phase: Phase = 'before';
    let stopped = false;

    const call = async (path: string, body: unknown): Promise<TestResponse | null> => {
      const started = Date.now();
      const at = phase;
      const answer = await Promise.race([
        t.post(path, body, shop.headers),
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), HANG_MS).unref()),
      ]);
      const status = answer === 'hung' ? 'hung' : answer.status;
      outcomes.push({
        phase: at,
        answered: phase,
        path,
        status,
        body: answer === 'hung' ? null : answer.body,
        retryAfter: answer === 'hung' ? undefined : (answer.headers['retry-after'] as string | undefined),
        ms: Date.now() - started,
      });
      return answer === 'hung' ? null : answer;
    };
    const shopper = async () => {
      while (!stopped) {
        const created = await call('/ecommerce/createOrder', { appID: shop.appId });
        if (created?.status !== 201) continue;
        const _orderID = created.body.data._id;
        await call('/ecommerce/addCart', { appID: shop.appId, _orderID, items: [{ productID: shop.book, Qty: 2, Price: 2500 }] });
        await call('/ecommerce/getOrder', { appID: shop.appId, _orderID });
      }
    };

    // Orders paid at the provider whose webhook arrives while the database is gone, and again afterwards
    // (the provider retries a delivery that was not answered 2xx).
    const paid = await Promise.all(Array.from({ length: 3 }, () => client.checkedOut([{ productID: shop.ebook, Qty: 2, Price: 1500 }])));
    const paidOrders = new Set(paid.map((o) => o.orderID));
    const deliveries = paid.map((order) => client.paid(order.intent));

    const shoppers = Array.from({ length: SHOPPERS }, shopper);
    const answered = (sent: Phase, status: number) =>
      outcomes.filter((o) => o.phase === sent && o.answered === sent && o.status === status).length;
    // Shopping is under way: every shopper has had an order created and a cart read.
    await waitFor(() => answered('before', 201) >= SHOPPERS && answered('before', 200) >= SHOPPERS, 20_000, 'the shoppers to shop');
    phase = 'down';
    proxy.cut();
    // The service has seen the outage: requests sent since the cut are refused.
    await waitFor(() => answered('down', 503) > 0, 20_000, 'a 503 of the outage');
    const duringOutage = await Promise.all(deliveries.map((delivery) => client.deliver(delivery)));
    // The shoppers go on through the outage: each of them refused a few more times before the database comes back.
    const refusedSoFar = answered('down', 503);
    await waitFor(() => answered('down', 503) >= refusedSoFar + 3 * SHOPPERS, 20_000, 'more 503s of the outage');
    proxy.restore();
    phase = 'after';
    // Recovered: requests made after the database came back succeed again, with no restart of the service.
    await waitFor(async () => outcomes.filter((o) => o.phase === 'after' && o.status === 201).length >= 5, 20_000);
    stopped = true;
    await Promise.all(shoppers);

    const answeredBefore = [...new Set(outcomes.filter((o) => o.answered === 'before').map((o) => o.status))].sort();
    expect(answeredBefore).toEqual([200, 201]);
    expect(outcomes.filter((o) => o.status === 'hung')).toEqual([]);
    // While it is gone: the clear 503 and nothing else but answers that needed no database.
    const down = outcomes.filter((o) => o.phase === 'down');
    expect(down.filter((o) => o.status === 503).length).toBeGreaterThan(0);
    for (const o of outcomes.filter((o) => typeof o.status === 'number' && o.status >= 500)) {
      expect(o.status).toBe(503);
      expect(o.body).toEqual({ status: 'Failed', message: 'Database unavailable' });
      expect(o.retryAfter).toBe('5');
    }
    expect(Math.max(...down.map((o) => o.ms))).toBeLessThan(HANG_MS);

    // The webhooks the outage refused: 503, so the provider delivers again; then each order completes once.
    expect(duringOutage.map((r) => r.status)).toEqual([503, 503, 503]);
    for (const delivery of deliveries) expect((await client.deliver(delivery)).status).toBe(200);
    for (const delivery of deliveries) expect((await client.deliver(delivery)).status).toBe(200);
    for (const order of paid) {
      expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
      expect(await client.tokenRows(order.orderID)).toHaveLength(2);
      expect(await client.mailRows(order.orderID)).toHaveLength(2);
    }

    // No half-written cart: every order's total is what its items add up to (2 books or none).
    const orders = (
      await direct.query(
        `SELECT o.id, o.total, coalesce(sum(i."Price" * i."Qty"), 0)::int AS items, count(i.id)::int AS lines
           FROM core_orders o LEFT JOIN core_order_items i ON i."Order_ID" = o.id
          WHERE o.app_id = $1 GROUP BY o.id`,
        [shop.appId],
      )
    ).rows;
    expect(orders.length).toBeGreaterThan(10);
    for (const order of orders.filter((o: { id: number }) => !paidOrders.has(o.id))) {
      expect({ id: order.id, total: Number(order.total) }).toEqual({ id: order.id, total: order.items });
      expect([0, 1]).toContain(order.lines);
    }
  });
});

/**
 * The database goes away between the webhook's signature check (the app's secret served from the site
 * cache, whose listener connection survives) and the order's completion: the provider must get a non-2xx
 * to deliver again, not the 200 that would drop a paid order.
 */
describe('a payment webhook when the database goes away after the signature check', () => {
  const s = useProxiedShop('60000');

  it('answers 503 so that the provider delivers again, and the redelivery completes the order once', async () => {
    const { proxy, t, shop, client } = s;
    const order = await client.checkedOut([{ productID: shop.ebook, Qty: 1, Price: 1500 }]);
    const delivery = client.paid(order.intent);
    expect((await t.post('/getApp', {}, shop.headers)).status).toBe(200); // the site is in the cache now

    proxy.cut({ spare: 'platform-listener' });
    const refused = await client.deliver(delivery);
    proxy.restore();
    expect(refused).toMatchObject({
      status: 503,
      body: { status: 'Failed', message: 'The payment event could not be recorded: deliver it again' },
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    await waitFor(async () => (await client.deliver(delivery)).status === 200, 10_000);
    expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
    expect(await client.tokenRows(order.orderID)).toHaveLength(1);
    expect(await client.mailRows(order.orderID)).toHaveLength(2);
  });
});

/**
 * A refund when the database goes away after the provider refunded but before the refund is recorded:
 * the admin gets 503, the provider's announcement is refused with 503 (so it comes again), and either the
 * redelivery or the admin's retry with the same Idempotency-Key records the one refund the provider made.
 */
describe('a refund when the database goes away after the provider refunded', () => {
  const s = useProxiedShop('60000');

  it("records the refund once, whether the retry or the provider's redelivery comes first", async () => {
    const { proxy, peer, t, shop, client } = s;
    const order = await client.checkedOut([{ productID: shop.ebook, Qty: 2, Price: 1500 }]);
    expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
    const refund = (key: string) =>
      t.post('/ecommerce/refundOrder', { _orderID: order._id, amount: 1000 }, { ...shop.adminHeaders, 'idempotency-key': key });
    const refunded = () => [...peer.refunds.values()].filter((r) => r.payment_intent === order.intent.id);

    // The provider answers late; the database goes away while it thinks.
    peer.delayMs = 400;
    const pending = refund('refund-once-1');
    await waitFor(async () => peer.requests.some((r) => r.path === '/v1/refunds'), 5_000);
    proxy.cut({ spare: 'platform-listener' });
    const failed = await pending;
    const announced = peer.signedEvent('charge.refunded', peer.chargeOf(order.intent.id), shop.secret, { id: 'evt_refund_during_cut' });
    const refusedEvent = await client.deliver(announced);
    proxy.restore();
    peer.heal();
    expect(failed.status).toBe(503);
    expect(refusedEvent.status).toBe(503);
    expect(refunded()).toHaveLength(1);

    // The retry with the same key answers the same refund; the redelivered event finds it recorded.
    let retried: TestResponse | undefined;
    await waitFor(async () => (retried = await refund('refund-once-1')).status === 200, 10_000);
    expect(retried!.body.data).toMatchObject({ refundID: refunded()[0].id, amount: 1000, refundedTotal: 1000 });
    expect((await client.deliver(announced)).status).toBe(200);
    expect(refunded()).toHaveLength(1);
    expect(await t.dataSource.query('SELECT refund_id, amount, status FROM core_refunds WHERE order_id = $1', [order.orderID])).toEqual([
      { refund_id: refunded()[0].id, amount: 1000, status: 'succeeded' },
    ]);
    expect((await client.orderRow(order.orderID)).refunded_total).toBe(1000);
  });
});

describe('a raw read when its connection breaks during the statement', () => {
  const s = useProxiedShop('60000');

  it('fails the read, drops the connection and keeps the process serving (TransactionalConnection.query)', async () => {
    const connection = s.t.get(TransactionalConnection);
    const reading = connection.query(new TransactionScope(), 'SELECT pg_sleep(3)').catch((error: unknown) => error);
    // The statement runs in the database (seen on a connection of its own, not through the proxy).
    const observer = new Client({ connectionString: s.db.url });
    await observer.connect();
    try {
      const running =
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query = 'SELECT pg_sleep(3)'";
      await waitFor(async () => (await observer.query(running)).rows.length > 0, 5000, 'the read to run');
    } finally {
      await observer.end();
    }
    s.proxy.cut();
    expect(await reading).toBeInstanceOf(QueryFailedError);
    s.proxy.restore();
    expect(await connection.query(new TransactionScope(), 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
