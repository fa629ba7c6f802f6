import { PaymentReconcileJob } from '../../src/orders/flows/payment-reconcile.job';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { startTestApp, TestApp } from '../support/test-app';
import { ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/** Intents are due for reconciliation at once; ticks are run by the tests. */
const ENV = { PAYMENT_RECONCILE_AFTER_MS: '0', PAYMENT_RECONCILE_TICK_MS: '0', PAYMENT_EVENTS_POLL_MS: '0' };

/**
 * The reconciliation job (README "Payment events"): the provider's event may never arrive; the job asks
 * the provider about open intents some minutes after their checkout and applies what it finds, through the
 * inbox, exactly once across instances.
 */
describe('payment reconciliation', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let client: ShopClient;
  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const tick = (app = t) => app.get(PaymentReconcileJob).tick();

  beforeAll(async () => ({ peer, smtp, t, shop, client } = await startShopHarness(ENV)));
  afterAll(() => stopShopHarness({ t, smtp, peer }));
  beforeEach(async () => {
    // Earlier tests' intents are not this test's business.
    await sql(`UPDATE core_payment_intents SET reconcile_at = now() + interval '1 day' WHERE status = 'open'`);
  });

  it('completes an order whose payment_intent.succeeded never arrived, once; the event arriving late changes nothing', async () => {
    const order = await client.checkedOut([{ productID: shop.ebook, Qty: 1, Price: 1500 }]);
    const paid = peer.succeed(order.intent.id); // the customer paid; the provider's event is lost
    expect((await client.orderRow(order.orderID)).orderstatus).toBe('New');

    expect(await tick()).toMatchObject({ intents: 1, applied: 1 });
    expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', AuthCode: order.intent.id });
    expect(await client.eventRows(order.orderID)).toMatchObject([
      { event_id: `reconcile_${order.intent.id}_succeeded`, status: 'processed', outcome: 'completed' },
    ]);
    expect(await client.tokenRows(order.orderID)).toHaveLength(1);
    expect(await client.mailRows(order.orderID)).toHaveLength(2);

    // The lost event comes after all, and the job runs again: nothing more happens.
    expect((await client.deliver(peer.signedEvent('payment_intent.succeeded', paid, shop.secret))).status).toBe(200);
    expect(await tick()).toMatchObject({ intents: 0 });
    expect(await client.tokenRows(order.orderID)).toHaveLength(1);
    expect(await client.mailRows(order.orderID)).toHaveLength(2);
  });

  it('notes a payment that failed or was cancelled at the provider; leaves an intent still open for a later check', async () => {
    const declined = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    peer.decline(declined.intent.id, 'Your card has insufficient funds.');
    const cancelled = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    peer.cancel(cancelled.intent.id, 'abandoned');
    const open = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);

    expect(await tick()).toMatchObject({ intents: 3, applied: 2 });
    expect(await client.orderRow(declined.orderID)).toMatchObject({
      orderstatus: 'New',
      payment_status: 'Failed',
      payment_error: 'Your card has insufficient funds.',
    });
    expect(await client.orderRow(cancelled.orderID)).toMatchObject({
      orderstatus: 'New',
      payment_status: 'Failed',
      payment_error: 'Payment canceled (abandoned)',
    });
    expect(await client.orderRow(open.orderID)).toMatchObject({ orderstatus: 'New', payment_status: null });
    const [row] = await sql(`SELECT status, reconcile_at > now() AS later FROM core_payment_intents WHERE intent_id = $1`, [
      open.intent.id,
    ]);
    expect(row).toEqual({ status: 'open', later: true }); // asked again later, not at every tick
    expect(await tick()).toMatchObject({ intents: 0 });

    // Paid at last, after its next check is due: completed.
    peer.succeed(open.intent.id);
    await sql(`UPDATE core_payment_intents SET reconcile_at = now() WHERE intent_id = $1`, [open.intent.id]);
    expect(await tick()).toMatchObject({ intents: 1, applied: 1 });
    expect((await client.orderRow(open.orderID)).orderstatus).toBe('Paid');
  });

  it('runs exactly once across two instances ticking at the same time', async () => {
    const second = await startTestApp(
      { PAYMENT_API_URL: peer.url, SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false', ...ENV },
      t.database,
    );
    try {
      const orders = [];
      for (let i = 0; i < 10; i++) orders.push(await client.checkedOut([{ productID: shop.ebook, Qty: 1, Price: 1500 }]));
      for (const order of orders) peer.succeed(order.intent.id);
      // Each instance is asked twice: a tick asked for while one runs is that tick.
      const results = new Set(await Promise.all([tick(), tick(second), tick(), tick(second)]));
      const applied = [...results].reduce((sum, result) => sum + (result?.applied ?? 0), 0);
      expect(applied).toBeLessThanOrEqual(10);
      await tick(); // whatever a tick that found the lock taken left
      for (const order of orders) {
        expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
        expect(await client.tokenRows(order.orderID)).toHaveLength(1);
        expect(await client.mailRows(order.orderID)).toHaveLength(2);
      }
    } finally {
      await second.close();
    }
  });

  it('sends an automatic refund again when the provider never answered it', async () => {
    const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const paid = peer.succeed(order.intent.id);
    await t.post('/ecommerce/addCart', { _orderID: order._id, items: [{ productID: shop.book, Qty: 1, Price: 2500 }] }, shop.headers);
    peer.fail('drop', 2); // the refund request (and the SDK's retry) is cut: no answer
    expect((await client.deliver(peer.signedEvent('payment_intent.succeeded', paid, shop.secret))).status).toBe(200);
    peer.heal();
    expect(await sql(`SELECT source, status FROM core_refunds WHERE order_id = $1`, [order.orderID])).toEqual([
      { source: 'auto', status: 'unknown' },
    ]);
    expect(peer.chargeOf(order.intent.id).amount_refunded).toBe(0);

    await sql(`UPDATE core_refunds SET updated = now() - interval '2 minutes' WHERE order_id = $1`, [order.orderID]);
    expect(await tick()).toMatchObject({ refunds: 1 });
    expect(await sql(`SELECT source, status FROM core_refunds WHERE order_id = $1`, [order.orderID])).toEqual([
      { source: 'auto', status: 'succeeded' },
    ]);
    expect(peer.chargeOf(order.intent.id).amount_refunded).toBe(2500);
    expect(await tick()).toMatchObject({ refunds: 0 });
  });
});
