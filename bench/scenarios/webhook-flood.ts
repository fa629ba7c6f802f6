import { randomBytes } from 'node:crypto';
import { PaymentPeer } from '../../src/cli/payment-double';
import { HEAVY_READ, seedManyProducts } from '../heavy-reads';
import { goal, startService } from '../lib';
import { percentile } from './messaging';
import { shopDatabase } from './shop';
import { Scenario } from './types';

/** Anonymous clients flooding the shop with heavy reads, and the orders paid meanwhile. */
const FLOOD_CLIENTS = Number(process.env.BENCH_FLOOD_CLIENTS ?? 40);
const ORDERS = Number(process.env.BENCH_FLOOD_ORDERS ?? 40);
/** Rows of the shop's product table that the flood's reads scan (twenty `contains` and a sort over them). */
const ROWS = 150_000;
/** This run's own test key (a production instance refuses the keys the repository publishes). */
const SECRET_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
/** How long a payment event may take to be applied after the flood, before it counts as lost. */
const SETTLE_MS = 15_000;

/**
 * Payment events on a busy day (README "Payment events"): with the default tenant shares, FLOOD_CLIENTS
 * anonymous clients flood the shop with heavy /getDataRows reads while ORDERS checked-out orders are paid and
 * their signed payment_intent.succeeded delivered, as the provider does (a 503 is delivered again after its
 * Retry-After). Goals: every delivery answered 200 was recorded and its order Paid (none acknowledged and
 * lost), and the order is Paid within p50 ≤ 1 s of its delivery.
 */
export const webhookFloodScenario: Scenario = {
  name: 'shop: payment webhooks during a flood of the same shop',
  async run(ctx) {
    const { env, db, appId, shop, drop } = await shopDatabase(ctx, 'webhookflood', { NOTIFY_SENDER_ENABLED: 'false' });
    const peer = await PaymentPeer.start();
    try {
      await db.query('UPDATE core_sites SET payment_test_private_key = $2 WHERE id = $1', [appId, SECRET_KEY]);
      await seedManyProducts(env.DATABASE_URL, appId, ROWS);
      // The defaults of a deployment with many tenants, not the single-tenant share the other scenarios use.
      const defaults: Record<string, string> = { ...env, PAYMENT_API_URL: peer.url };
      delete defaults.DB_TENANT_MAX_CONNECTIONS;
      const service = await startService(defaults);
      try {
        const base = `${service.url}${ctx.basePath}`;
        const headers = { 'site-id': String(appId), 'content-type': 'application/json' };
        const post = async (path: string, body: unknown) => {
          const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
          const json = (await res.json()) as { data?: Record<string, unknown> };
          if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
          return json.data ?? {};
        };
        // The orders, checked out before the flood (the flood's 503s are the point, not the shoppers').
        const orders: { id: number; intent: string }[] = [];
        for (let i = 0; i < ORDERS; i++) {
          const order = await post('/ecommerce/createOrder', { appID: appId });
          await post('/ecommerce/addCart', { appID: appId, _orderID: order._id, items: [{ productID: shop.book, Qty: 1, Price: 2500 }] });
          const intent = await post('/ecommerce/checkout', {
            appID: appId,
            _orderID: order._id,
            amount: 2500,
            data: { firstName: 'Bench', lastName: 'Buyer', email: 'buyer@bench.example.test' },
          });
          orders.push({ id: order.orderID as number, intent: intent.paymentIntentID as string });
        }

        let flooding = true;
        const floodStatuses = new Map<number, number>();
        const flood = Promise.all(
          Array.from({ length: FLOOD_CLIENTS }, async () => {
            while (flooding) {
              const res = await fetch(`${base}/getDataRows`, { method: 'POST', headers, body: JSON.stringify(HEAVY_READ) }).catch(
                () => null,
              );
              await res?.arrayBuffer();
              floodStatuses.set(res?.status ?? 0, (floodStatuses.get(res?.status ?? 0) ?? 0) + 1);
            }
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 2000)); // the flood holds what it can

        // Each order paid and its event delivered as the provider does: again after a 503's Retry-After.
        const answers = new Map<number, number>();
        const deliveredAt = new Map<number, number>();
        let redeliveries = 0;
        await Promise.all(
          orders.map(async (order, i) => {
            await new Promise((resolve) => setTimeout(resolve, i * 100)); // spread over the flood
            const event = peer.signedEvent('payment_intent.succeeded', peer.succeed(order.intent), shop.secret);
            deliveredAt.set(order.id, Date.now());
            for (;;) {
              const res = await fetch(`${base}/ecommerce/payment-webhook`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
                body: event.payload,
              });
              await res.arrayBuffer();
              answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
              if (res.status === 200) return;
              redeliveries++;
              await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
            }
          }),
        );
        const paidDuringFlood = await paidOrders(db, orders);
        flooding = false;
        await flood;
        const floodEnded = Date.now();

        // What was acknowledged must be applied: the inbox worker catches up with any try that failed.
        let paid = await paidOrders(db, orders);
        while (paid.size < orders.length && Date.now() - floodEnded < SETTLE_MS) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          paid = await paidOrders(db, orders);
        }
        const recorded = Number(
          (await db.query(`SELECT count(*) AS n FROM core_payment_events WHERE app_id = $1 AND type = 'payment_intent.succeeded'`, [appId]))
            .rows[0].n,
        );
        const lost = orders.filter((order) => !paid.has(order.id)).length;
        const latencies = orders.filter((order) => paid.has(order.id)).map((order) => paid.get(order.id)! - deliveredAt.get(order.id)!);
        const p50 = percentile(latencies, 0.5);
        const floodLine = [...floodStatuses].map(([status, n]) => `${n}×${status}`).join(', ');
        return [
          `flood: ${FLOOD_CLIENTS} anonymous clients, heavy /getDataRows of the same shop (${ROWS} rows): ${floodLine}`,
          `deliveries: ${orders.length} events, answers ` +
            `${[...answers].map(([status, n]) => `${n}×${status}`).join(', ')} (${redeliveries} delivered again after a 503)`,
          `orders Paid while the flood ran: ${paidDuringFlood.size} of ${orders.length}; after it: ${paid.size}; events recorded: ${recorded}`,
          `delivery → order Paid: p50 ${p50.toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms`,
          goal('payment events recorded (of deliveries made)', recorded / orders.length, '>=', 1),
          goal('payment events acknowledged and lost', lost, '<=', 0),
          goal('webhook → Paid p50 during a flood of the same shop (ms)', p50, '<=', 1000),
        ];
      } finally {
        await service.stop();
      }
    } finally {
      await peer.stop();
      await drop();
    }
  },
};

/** The orders that are Paid, and when (their order_date, the completion's time), by id. */
async function paidOrders(db: import('pg').Client, orders: { id: number }[]): Promise<Map<number, number>> {
  const { rows } = await db.query(`SELECT id, order_date FROM core_orders WHERE id = ANY($1) AND orderstatus = 'Paid'`, [
    orders.map((order) => order.id),
  ]);
  return new Map(rows.map((row: { id: number; order_date: Date }) => [row.id, row.order_date.getTime()]));
}
