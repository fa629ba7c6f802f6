import { ShopTenant } from '../orders/checkout-helpers';
import { Cluster } from '../support/cluster';
import { waitFor, waitForJobRuns } from '../support/wait';
import { checkoutThroughProxy, confirmAtProvider, startShopCluster } from './cluster-shop';

const REFUNDS = 10;

/**
 * Refunds spread over both instances while the provider announces each one (charge.refunded, delivered by
 * the double to the proxy before it answers the refund request): never more than was paid, each refund
 * recorded once, one mail per refund; then a cancellation through the other instance.
 */
describe('cluster: refunds and cancellation', () => {
  let cluster: Cluster;
  let shop: ShopTenant;

  beforeAll(async () => ({ cluster, shop } = await startShopCluster()));
  afterAll(() => cluster?.stop());

  it(`${REFUNDS} concurrent partial refunds on two instances, each announced by the provider: refunded once each, never over the total`, async () => {
    const order = await checkoutThroughProxy(cluster, shop, [
      { productID: shop.ebook, Qty: 2, Price: 1500 },
      { productID: shop.book, Qty: 1, Price: 2500 },
    ]);
    expect(await confirmAtProvider(cluster, order.intent)).toBe(200);
    await waitFor(
      async () => (await cluster.sql('SELECT orderstatus FROM core_orders WHERE id = $1', [order.orderID]))[0].orderstatus === 'Paid',
    );
    const routedBefore = cluster.proxy.routed.length;

    const answers = await Promise.all(
      Array.from({ length: REFUNDS }, (_, i) =>
        cluster.post('/ecommerce/refundOrder', { _orderID: order._id, amount: 1000 + i }, shop.adminHeaders),
      ),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(5); // five of about 1000 fit in 5500
    const refunded = ok.reduce((sum, a) => sum + (a.body as { data: { amount: number } }).data.amount, 0);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 400)).toBe(true);
    const routed = cluster.proxy.routed.slice(routedBefore);
    expect(new Set(routed.filter((r) => r.path === '/ecommerce/refundOrder').map((r) => r.instance))).toEqual(new Set([0, 1]));
    expect(routed.filter((r) => r.path === '/ecommerce/payment-webhook').length).toBeGreaterThanOrEqual(5); // the provider's charge.refunded, one per refund

    const atProvider = [...cluster.payment.refunds.values()].filter((r) => r.payment_intent === order.intent.id);
    const rows = await cluster.sql<{ refund_id: string; amount: number; status: string }>(
      'SELECT refund_id, amount, status FROM core_refunds WHERE order_id = $1 ORDER BY id',
      [order.orderID],
    );
    expect(rows.map((r) => r.refund_id).sort()).toEqual(atProvider.map((r) => r.id).sort());
    expect(rows.every((r) => r.status === 'succeeded')).toBe(true);
    expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(refunded);
    expect(await cluster.sql('SELECT refunded_total, payment_status FROM core_orders WHERE id = $1', [order.orderID])).toEqual([
      { refunded_total: refunded, payment_status: 'Partially Refunded' },
    ]);

    // Cancelling refunds the rest, once, and expires the tokens.
    const cancelled = await cluster.post('/ecommerce/cancelOrder', { _orderID: order._id }, shop.adminHeaders);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ orderStatus: 'Paid', paymentStatus: 'Refunded', cancelledItems: 2 });
    expect(
      [...cluster.payment.refunds.values()].filter((r) => r.payment_intent === order.intent.id).reduce((sum, r) => sum + r.amount, 0),
    ).toBe(5500);
    expect(
      await cluster.sql(`SELECT count(*)::int AS n FROM core_tokens WHERE order_id = $1 AND status <> 'expired'`, [order.orderID]),
    ).toEqual([{ n: 0 }]);

    // One refund mail per refund, each sent once by one of the two senders.
    const mails = () =>
      cluster.sql<{ status: string }>(
        `SELECT status FROM core_notification_log WHERE linked_table = 'core_orders' AND master_id = $1 AND event = 'order_refund'`,
        [order.orderID],
      );
    expect(await mails()).toHaveLength(6);
    await waitFor(async () => (await mails()).every((m) => m.status === 'Sent'));
    await waitForJobRuns(cluster.instances, 'notification_sender'); // a duplicate would have arrived by then
    expect(cluster.smtp.mails.filter((m) => m.parsed.subject === `${shop.domain} - Refund for order #${order.orderID}`)).toHaveLength(6);
  });
});
