import { randomBytes } from 'node:crypto';
import { PaymentPeer } from '../../src/cli/payment-double';
import { DURATION_S, freePort, startService } from '../lib';
import { percentile } from './messaging';
import { shopDatabase } from './shop';
import { Scenario } from './types';

/** Shoppers buying at once, each one purchase after the other. */
const SHOPPERS = Number(process.env.BENCH_SHOPPERS ?? 8);
/** This run's own test key (a production instance refuses the keys the repository publishes). */
const SECRET_KEY = `sk_test_${randomBytes(12).toString('hex')}`;

interface Purchase {
  checkoutMs: number;
  totalMs: number;
}

/**
 * A whole card purchase as a front end makes it, against the provider's local double (the one
 * `npm run cli -- payment:double` runs): createOrder (no JWT: a placeholder customer), addCart with a book
 * and an e-book, checkout (the SDK creates the intent at the double), then the customer pays at the double,
 * which delivers the signed payment_intent.succeeded to the service's webhook before it answers, and
 * orderStatus must say Paid. Own database; the sender is off.
 */
export const checkoutScenario: Scenario = {
  name: 'shop: purchase (createOrder, addCart, checkout, pay, webhook, Paid)',
  async run(ctx) {
    const { env, db, appId, shop, drop } = await shopDatabase(ctx, 'checkout', { NOTIFY_SENDER_ENABLED: 'false' });
    let peer: PaymentPeer | null = null;
    try {
      await db.query('UPDATE core_sites SET payment_test_private_key = $2 WHERE id = $1', [appId, SECRET_KEY]);

      const port = await freePort();
      peer = await PaymentPeer.start({
        webhook: {
          url: `http://127.0.0.1:${port}${ctx.basePath}/ecommerce/payment-webhook`,
          secret: shop.secret,
          report: (outcome) => void (outcome.includes('→ 200') || console.error(outcome)),
        },
      });
      const service = await startService({ ...env, PAYMENT_API_URL: peer.url }, port);
      try {
        const base = `${service.url}${ctx.basePath}`;
        const headers = { 'site-id': String(appId), 'content-type': 'application/json' };
        const post = async (path: string, body: unknown) => {
          const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
          const json = (await res.json()) as { data?: Record<string, unknown> };
          if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
          return json.data ?? {};
        };
        const purchase = async (): Promise<Purchase> => {
          const started = performance.now();
          const order = await post('/ecommerce/createOrder', { appID: appId });
          const orderId = order._id as string;
          const items = [
            { productID: shop.book, Qty: 1, Price: 2500 },
            { productID: shop.ebook, Qty: 1, Price: 1500 },
          ];
          await post('/ecommerce/addCart', { appID: appId, _orderID: orderId, items });
          const checkoutStarted = performance.now();
          const billing = {
            firstName: 'Bench',
            lastName: 'Buyer',
            email: 'buyer@bench.example.test',
            address: '1 Main St',
            suburb: 'Perth',
            postCode: '6000',
          };
          const intent = await post('/ecommerce/checkout', { appID: appId, _orderID: orderId, amount: 4000, data: billing });
          const checkoutMs = performance.now() - checkoutStarted;
          const paid = await fetch(`${peer!.url}/v1/payment_intents/${intent.paymentIntentID as string}/confirm`, {
            method: 'POST',
            headers: { authorization: `Bearer ${SECRET_KEY}` },
          });
          if (!paid.ok) throw new Error(`the double refused to confirm: ${paid.status}`);
          const status = await fetch(`${base}/ecommerce/orderStatus/${encodeURIComponent(orderId)}`, {
            headers: { 'site-id': String(appId) },
          });
          const statusBody = (await status.json()) as { data?: { orderStatus?: string } };
          if (statusBody.data?.orderStatus !== 'Paid') throw new Error(`order not Paid after the webhook: ${JSON.stringify(statusBody)}`);
          return { checkoutMs, totalMs: performance.now() - started };
        };

        for (let i = 0; i < 20; i++) await purchase(); // warm-up
        const one = await shoppers(purchase, 1, Math.max(2, DURATION_S / 2));
        const many = await shoppers(purchase, SHOPPERS, DURATION_S);
        return [
          line('1 shopper', one),
          line(`${SHOPPERS} shoppers at once`, many),
          "every purchase ended with its order Paid; the provider double answers at once, so checkout shows the service's own cost",
        ];
      } finally {
        await service.stop();
      }
    } finally {
      await peer?.stop();
      await drop();
    }
  },
};

async function shoppers(
  purchase: () => Promise<Purchase>,
  count: number,
  seconds: number,
): Promise<{ purchases: Purchase[]; seconds: number }> {
  const purchases: Purchase[] = [];
  const started = performance.now();
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: count }, async () => {
      while (Date.now() < deadline) purchases.push(await purchase());
    }),
  );
  return { purchases, seconds: (performance.now() - started) / 1000 };
}

function line(label: string, run: { purchases: Purchase[]; seconds: number }): string {
  const checkout = run.purchases.map((p) => p.checkoutMs);
  const total = run.purchases.map((p) => p.totalMs);
  return (
    `${`purchases, ${label}`.padEnd(44)} ${(run.purchases.length / run.seconds).toFixed(0).padStart(8)} ` +
    `purchases/s   checkout p50 ${percentile(checkout, 0.5).toFixed(1)} ms p99 ` +
    `${percentile(checkout, 0.99).toFixed(1)} ms   whole purchase p50 ` +
    `${percentile(total, 0.5).toFixed(1)} ms p99 ${percentile(total, 0.99).toFixed(1)} ms`
  );
}
