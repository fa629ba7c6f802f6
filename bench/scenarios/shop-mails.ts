import { DURATION_S, goal, startService } from '../lib';
import { atRate, countingSmtpServer, percentile, waitForArrivals } from './messaging';
import { prepareOrders, shopDatabase, signedDelivery } from './shop';
import { Scenario } from './types';

/** Webhook deliveries per second: a shop's steady trickle of payments, not a flood. */
const RATE = 20;
const WARM_UP = 20;

/**
 * Payment webhook → the order's two mails (admin and confirmation) received by a local SMTP server: a service
 * with the background sender on (default poll interval, so the wake on the queued rows is what is measured)
 * and SMTP_URL at the bench's SMTP server, signed payment_intent.succeeded deliveries at RATE a second, each
 * for a New order prepared through SQL (shop.ts's helpers). Measured from the delivery being sent to the
 * later of its two mails arriving.
 */
export const shopMailsScenario: Scenario = {
  name: 'shop mails: payment webhook → admin + confirmation mail at the SMTP server',
  async run(ctx) {
    const smtp = await countingSmtpServer();
    const { env, db, appId, shop, drop } = await shopDatabase(ctx, 'shopmail', { SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'true' }).catch(
      async (error) => {
        await smtp.close();
        throw error;
      },
    );
    try {
      const count = RATE * Math.max(3, DURATION_S);
      const orders = await prepareOrders(db, shop, WARM_UP + count);
      const deliveries = orders.map((orderId) => ({ orderId, ...signedDelivery(shop, orderId) }));

      const service = await startService(env);
      try {
        const url = `${service.url}${ctx.basePath}/ecommerce/payment-webhook`;
        const sentAt = new Map<number, number>();
        const answered: number[] = [];
        let failed = 0;
        const deliver = async ({ orderId, payload, signature }: (typeof deliveries)[number]) => {
          const sent = performance.now();
          sentAt.set(orderId, sent);
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'stripe-signature': signature },
            body: payload,
          });
          await res.arrayBuffer();
          if (res.ok) answered.push(performance.now() - sent);
          else failed++;
        };

        const warm = deliveries.splice(0, WARM_UP);
        await atRate(warm.length, RATE, (n) => deliver(warm[n]));
        await waitForArrivals(smtp, 2 * warm.length);
        if (failed) throw new Error(`webhook warm-up failed: ${failed} deliveries not answered 2xx`);
        smtp.arrivals.clear();
        sentAt.clear();
        answered.length = 0;

        await atRate(deliveries.length, RATE, (n) => deliver(deliveries[n]));
        await waitForArrivals(smtp, 2 * (deliveries.length - failed));
        const mails = (
          await db.query(
            `SELECT id, master_id FROM core_notification_log WHERE app_id = $1 AND linked_table = 'core_orders' ` +
              `AND event IN ('order_admin', 'order_confirmation')`,
            [appId],
          )
        ).rows as { id: number; master_id: number }[];
        const last = new Map<number, { arrived: number; mails: number }>();
        for (const mail of mails) {
          const arrived = smtp.arrivals.get(Number(mail.id));
          if (arrived === undefined || !sentAt.has(mail.master_id)) continue;
          const seen = last.get(mail.master_id) ?? { arrived: 0, mails: 0 };
          last.set(mail.master_id, { arrived: Math.max(seen.arrived, arrived), mails: seen.mails + 1 });
        }
        const latencies = [...last].filter(([, seen]) => seen.mails === 2).map(([orderId, seen]) => seen.arrived - sentAt.get(orderId)!);
        const p50 = percentile(latencies, 0.5);
        const ms = (v: number) => `${v.toFixed(0).padStart(4)} ms`;
        return [
          `${'webhook answered'.padEnd(44)} p50 ${ms(percentile(answered, 0.5))}   p99 ` +
            `${ms(percentile(answered, 0.99))}   (${answered.length} deliveries at ${RATE}/s${failed ? `, ${failed} not 2xx` : ''})`,
          `${'webhook sent → both mails at SMTP'.padEnd(44)} p50 ${ms(p50)}   p99 ` +
            `${ms(percentile(latencies, 0.99))}   (${latencies.length}/${deliveries.length} orders with both mails)`,
          goal('shop: webhook → both order mails at SMTP, p50', p50, '<', 1000, (v) => `${v.toFixed(0)} ms`),
        ];
      } finally {
        await service.stop();
      }
    } finally {
      await smtp.close();
      await drop();
    }
  },
};

export const shopMailsScenarios: Scenario[] = [shopMailsScenario];
