import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { activeStatements, seedManyProducts, SLOW_READ } from '../support/slow-reads';
import { TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';
import { ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/** A small pool, so that the flood below fills the shop's share; statements end after 1.5 s. */
const ENV = {
  DB_POOL_SIZE: '6',
  DB_STATEMENT_TIMEOUT_MS: '1500',
  DB_TENANT_QUEUE_WAIT_MS: '300',
  PAYMENT_EVENTS_POLL_MS: '0',
  PAYMENT_RECONCILE_TICK_MS: '0',
  SITE_CACHE_MS: '5000',
};
const ROUNDS = 20;

/**
 * Cancel, refund and payment never separate money from goods (docs/security.md "Money invariants"): every
 * payment the provider takes ends as goods delivered or money returned, whatever races it. Real HTTP
 * requests race each other against the payment double (the customer confirms at the provider, which then
 * delivers its signed event), each race many rounds, quiet and under a flood of the shop's slow reads.
 */
describe('money races', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let client: ShopClient;
  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const cancelOrder = (_orderID: string) => t.post('/ecommerce/cancelOrder', { _orderID }, shop.adminHeaders);
  const refundOrder = (_orderID: string, amount?: number) =>
    t.post('/ecommerce/refundOrder', { _orderID, ...(amount === undefined ? {} : { amount }) }, shop.adminHeaders);

  /** The customer confirms the intent at the provider (its API, as a browser's card form does); on success the provider delivers its event. */
  async function confirm(intentId: string): Promise<number> {
    const res = await fetch(`${peer.url}/v1/payment_intents/${intentId}/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer sk_test_${shop.appId}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    if (res.status === 200) {
      const delivered = await client.deliver(peer.signedEvent('payment_intent.succeeded', peer.intents.get(intentId)!, shop.secret));
      expect(delivered.status).toBe(200);
    }
    return res.status;
  }

  /** The cart of 5 books becomes 1 book. */
  async function changeCart(_orderID: string): Promise<void> {
    expect((await t.post('/ecommerce/removeCart', { _orderID, productID: shop.book }, shop.headers)).status).toBeLessThan(300);
    const added = await t.post('/ecommerce/addCart', { _orderID, items: [{ productID: shop.book, Qty: 1, Price: 2500 }] }, shop.headers);
    expect(added.status).toBeLessThan(300);
  }

  /** What the provider kept of the order's payments that did not pay for it (must be nothing). */
  async function keptWithoutGoods(orderID: number): Promise<number> {
    const order = await client.orderRow(orderID);
    return [...peer.intents.values()]
      .filter((intent) => intent.metadata.orderID === String(orderID) && intent.status === 'succeeded' && intent.id !== order.AuthCode)
      .reduce((sum, intent) => sum + intent.amount - peer.chargeOf(intent.id).amount_refunded, 0);
  }

  /** Flood of the shop's slow anonymous reads while `work` runs. */
  async function underFlood<T>(work: () => Promise<T>): Promise<T> {
    let flooding = true;
    const flood = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (flooding) await t.post('/getDataRows', SLOW_READ, shop.headers);
      }),
    );
    try {
      await waitFor(
        async () => (await activeStatements(t.database.url, t.database.name, '%ILIKE%')) >= 2,
        10_000,
        "the flood's reads to run",
      );
      return await work();
    } finally {
      flooding = false;
      await flood;
    }
  }

  beforeAll(async () => {
    ({ peer, smtp, t, shop, client } = await startShopHarness(ENV));
    await seedManyProducts(t.database.url, shop.appId, 100_000);
  }, 120_000);
  afterAll(() => stopShopHarness({ t, smtp, peer }));

  /** A New order checked out for an e-book (a digital item: the goods are an access token). */
  const checkedOut = () => client.checkedOut([{ productID: shop.ebook, Qty: 1, Price: 1500 }]);

  /**
   * One round of cancelOrder racing the customer's payment of `order`: cancelled and unpaid; paid, refunded
   * whole and cancelled; or paid and delivered (the cancel refused naming the payment, or, under a flood,
   * refused before it did anything). Never paid and cancelled with the money kept.
   */
  async function cancelRacingPayment(order: Awaited<ReturnType<typeof checkedOut>>): Promise<number> {
    const [cancel, confirmed] = await Promise.all([cancelOrder(order._id), confirm(order.intent.id)]);
    const row = await client.orderRow(order.orderID);
    const items = (await client.itemRows(order.orderID)).map((item) => item.ItemStatus);
    const tokens = (await client.tokenRows(order.orderID)).map((token) => (token.status === 'expired' ? 'expired' : 'live'));
    if (cancel.status === 200 && confirmed === 200) {
      // Paid while the cancel ran: the payment is refunded whole, then the order cancelled.
      expect({ status: row.orderstatus, payment: row.payment_status, refunded: row.refunded_total, items, tokens }).toEqual({
        status: 'Paid',
        payment: 'Refunded',
        refunded: row.total,
        items: ['Cancelled'],
        tokens: ['expired'],
      });
      expect(peer.chargeOf(order.intent.id)).toMatchObject({ amount_refunded: row.total });
      expect(cancel.body.data).toMatchObject({
        orderStatus: 'Paid',
        paymentStatus: 'Refunded',
        cancelledItems: 1,
        refundID: expect.any(String),
      });
    } else if (cancel.status === 200) {
      // Cancelled first: the intent was cancelled at the provider, so the payment was refused there.
      expect(confirmed).toBe(400);
      expect(peer.intents.get(order.intent.id)!.status).toBe('canceled');
      expect({ status: row.orderstatus, items, tokens }).toEqual({ status: 'New', items: ['Cancelled'], tokens: [] });
      expect(cancel.body.data).toMatchObject({ orderStatus: 'New', cancelledItems: 1 });
    } else {
      // Paid first: the cancel is refused naming the payment (or, 503, never started), and the goods are delivered.
      if (cancel.status === 409) expect(cancel.body.message).toContain(order.intent.id);
      else expect(cancel.status).toBe(503);
      expect(confirmed).toBe(200);
      expect({ status: row.orderstatus, payment: row.payment_status, items, tokens }).toEqual({
        status: 'Paid',
        payment: 'Success',
        items: ['Ordered'],
        tokens: ['live'],
      });
    }
    expect(await keptWithoutGoods(order.orderID)).toBe(0);
    return cancel.status;
  }

  it(`cancelOrder racing the payment: cancelled and unpaid, or paid and delivered, never paid and cancelled (${ROUNDS} rounds)`, async () => {
    const outcomes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) outcomes.push(await cancelRacingPayment(await checkedOut()));
    expect(outcomes.filter((status) => status !== 200 && status !== 409)).toEqual([]);
  }, 120_000);

  it("cancelOrder racing the payment under a flood of the shop's slow reads keeps the same rule", async () => {
    const orders: Awaited<ReturnType<typeof checkedOut>>[] = [];
    for (let round = 0; round < 8; round++) orders.push(await checkedOut());
    await underFlood(async () => {
      for (const order of orders) await cancelRacingPayment(order);
    });
  }, 120_000);

  it(`cancelOrder racing a partial refund refunds the whole payment (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const order = await client.checkedOut([{ productID: shop.book, Qty: 5, Price: 2500 }]);
      expect(await confirm(order.intent.id)).toBe(200);
      const [refund, cancel] = await Promise.all([refundOrder(order._id, 1000), cancelOrder(order._id)]);
      expect(cancel.status).toBe(200);
      // 400: the cancel had reserved the whole rest first; 409 `Order is not paid`: it had already refunded it in full.
      expect([200, 400, 409]).toContain(refund.status);
      if (refund.status === 409) expect(refund.body.message).toBe('Order is not paid');
      const row = await client.orderRow(order.orderID);
      expect({ refunded: row.refunded_total, payment: row.payment_status }).toEqual({ refunded: 12500, payment: 'Refunded' });
      expect(peer.chargeOf(order.intent.id)).toMatchObject({ amount_refunded: 12500 });
      expect((await client.itemRows(order.orderID)).map((item) => item.ItemStatus)).toEqual(['Cancelled']);
    }
  }, 120_000);

  it('a cancelled New order cannot be paid any more: its open intent was cancelled at the provider', async () => {
    const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    expect((await cancelOrder(order._id)).status).toBe(200);
    expect(peer.intents.get(order.intent.id)!.status).toBe('canceled');
    expect(await confirm(order.intent.id)).toBe(400);
    expect(await keptWithoutGoods(order.orderID)).toBe(0);
  });

  it("a checkout of a changed cart cancels the earlier checkout's intent; if that one was paid meanwhile, its money goes back", async () => {
    const order = await client.order([{ productID: shop.book, Qty: 5, Price: 2500 }]);
    const first = await client.checkout(order._id, 12500);
    expect(first.status).toBe(201);
    await changeCart(order._id);
    const second = await client.checkout(order._id, 2500);
    expect(second.status).toBe(201);
    expect(peer.intents.get(first.body.data.paymentIntentID)!.status).toBe('canceled');
    expect(await confirm(first.body.data.paymentIntentID)).toBe(400); // the old amount cannot be paid
    expect(await confirm(second.body.data.paymentIntentID)).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', total: 2500 });

    // The old intent paid between the two checkouts (the provider took 12,500 before the cancel reached it).
    const other = await client.order([{ productID: shop.book, Qty: 5, Price: 2500 }]);
    const old = (await client.checkout(other._id, 12500)).body.data.paymentIntentID;
    peer.succeed(old);
    await changeCart(other._id);
    const current = (await client.checkout(other._id, 2500)).body.data.paymentIntentID;
    expect(peer.intents.get(old)!.status).toBe('succeeded'); // too late to cancel
    expect((await client.deliver(peer.signedEvent('payment_intent.succeeded', peer.intents.get(old)!, shop.secret))).status).toBe(200);
    expect(await confirm(current)).toBe(200);
    expect(await client.orderRow(other.orderID)).toMatchObject({ orderstatus: 'Paid', AuthCode: current, refunded_total: 0 });
    expect(peer.chargeOf(old)).toMatchObject({ amount_refunded: 12500 });
    expect(await sql(`SELECT source, status, amount FROM core_refunds WHERE order_id = $1`, [other.orderID])).toEqual([
      { source: 'auto', status: 'succeeded', amount: 12500 },
    ]);
    expect(await keptWithoutGoods(other.orderID)).toBe(0);
  });

  it('a cancel whose call to the provider fails cancels nothing (502); once the provider answers, the intent is cancelled', async () => {
    const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    // The provider's cancel is lost (the double answers 500 twice: the SDK's retry too): nothing is cancelled, 502.
    peer.fail('http500', 2);
    const refused = await cancelOrder(order._id);
    peer.heal();
    expect(refused.status).toBe(502);
    expect((await client.itemRows(order.orderID)).map((item) => item.ItemStatus)).toEqual(['Pending']);
    // Cancelled once the provider answers: the intent can no longer be paid.
    expect((await cancelOrder(order._id)).status).toBe(200);
    expect(await confirm(order.intent.id)).toBe(400);
  });

  it('submitOrder Order Only of an order with no live items answers 409 and completes nothing', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    expect((await cancelOrder(order._id)).status).toBe(200);
    const res = await t.post('/ecommerce/submitOrder', { orderID: order._id, paymentMethod: 'Order Only' }, shop.headers);
    expect(res).toMatchObject({ status: 409, body: { status: 'Failed', message: 'The order has no items to submit' } });
    expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'New', payment_status: null });
    expect(await client.mailRows(order.orderID)).toEqual([]);
  });
});
