import { ShopTenant } from '../orders/checkout-helpers';
import { Cluster } from '../support/cluster';
import { waitFor, waitForJobRuns } from '../support/wait';
import { checkoutThroughProxy, confirmAtProvider, startShopCluster } from './cluster-shop';

const DELIVERIES = 10;
const ROUNDS = 3;

/**
 * A payment announced many times at once and spread over both instances (the same signed event ten times,
 * and the provider's own delivery of another event for the same payment): the order is completed once, with
 * one pair of emails and one set of tokens.
 */
describe('cluster: each payment webhook completes its order once', () => {
  let cluster: Cluster;
  let shop: ShopTenant;

  beforeAll(async () => ({ cluster, shop } = await startShopCluster()));
  afterAll(() => cluster?.stop());

  it(`${DELIVERIES} concurrent deliveries of one event through the proxy, racing the provider's own: one completion`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const order = await checkoutThroughProxy(cluster, shop, [
        { productID: shop.ebook, Qty: 2, Price: 1500 },
        { productID: shop.book, Qty: 1, Price: 2500 },
      ]);
      // The event the provider would send once paid, signed now; the double's own delivery is another event id.
      const paid = { ...order.intent, status: 'succeeded', amount_received: order.intent.amount };
      const eventId = `evt_cluster_${order.orderID}`;
      const event = cluster.payment.signedEvent('payment_intent.succeeded', paid, shop.secret, { id: eventId });
      const routedBefore = cluster.proxy.routed.length;

      const [confirmed, ...answers] = await Promise.all([
        confirmAtProvider(cluster, order.intent),
        ...Array.from({ length: DELIVERIES }, () =>
          cluster.post('/ecommerce/payment-webhook', event.payload, { 'stripe-signature': event.signature }),
        ),
      ]);
      expect(confirmed).toBe(200);
      expect(answers.map((a) => [a.status, a.body])).toEqual(Array(DELIVERIES).fill([200, { received: true }]));
      expect(cluster.webhook.reports.at(-1)).toBe(`webhook payment_intent.succeeded for ${order.intent.id} → 200 {"received":true}`);
      const hooks = cluster.proxy.routed.slice(routedBefore).filter((r) => r.path === '/ecommerce/payment-webhook');
      expect(hooks).toHaveLength(DELIVERIES + 1);
      expect(new Set(hooks.map((r) => r.instance))).toEqual(new Set([0, 1]));

      const [row] = await cluster.sql('SELECT orderstatus, "AuthCode" FROM core_orders WHERE id = $1', [order.orderID]);
      expect(row).toEqual({ orderstatus: 'Paid', AuthCode: order.intent.id });
      // Two events (ours and the provider's), each recorded once; exactly one of them completed the order.
      const events = await cluster.sql('SELECT event_id, outcome FROM core_payment_events WHERE order_id = $1', [order.orderID]);
      expect(events).toHaveLength(2);
      expect(events.map((e) => e.outcome).sort()).toEqual(['already_complete', 'completed']);
      expect(events.map((e) => e.event_id)).toContain(eventId);
      // One token per e-book unit, one email pair.
      expect(await cluster.sql('SELECT count(*)::int AS n FROM core_tokens WHERE order_id = $1', [order.orderID])).toEqual([{ n: 2 }]);
      const mails = () =>
        cluster.sql<{ event: string; status: string }>(
          `SELECT event, status FROM core_notification_log WHERE linked_table = 'core_orders' AND master_id = $1 ORDER BY event`,
          [order.orderID],
        );
      expect((await mails()).map((m) => m.event)).toEqual(['order_admin', 'order_confirmation']);
      await waitFor(async () => (await mails()).every((m) => m.status === 'Sent'));
    }

    // Two more sender rounds of both instances: a duplicate (a mail claimed twice) would have arrived by then.
    await waitForJobRuns(cluster.instances, 'notification_sender');
    const subjects = cluster.smtp.mails.map((m) => m.parsed.subject!);
    expect(subjects).toHaveLength(2 * ROUNDS);
    expect(new Set(subjects).size).toBe(2 * ROUNDS);
  });
});
