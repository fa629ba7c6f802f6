import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import Stripe from 'stripe';
import { adminQuery, CpuMeter, databaseUrl, goal, ROOT, startService } from '../lib';
import { BenchContext, Scenario } from './types';

/** Connections for the throughput run: deliveries the provider has in flight to one endpoint at once. */
const CONNECTIONS = Number(process.env.BENCH_WEBHOOK_CONNECTIONS ?? 8);
/** Deliveries measured one at a time (latency), and then with CONNECTIONS at once (throughput). */
const SEQUENTIAL = 300;
const CONCURRENT = Math.max(1000, 150 * Number(process.env.BENCH_DURATION ?? 10));

interface Delivery {
  payload: string;
  signature: string;
}

interface Figures {
  /** Deliveries answered. */
  count: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/**
 * Webhook delivery → order Paid with both emails in the outbox: POST /ecommerce/payment-webhook with a
 * payment_intent.succeeded signed by the provider SDK's own helper (the fixture app's
 * payment_webhook_secret), each for a New order of two items (one digital: a token is issued) prepared
 * through SQL. It runs on a database of its own with the sender off, so no background sending competes;
 * afterwards every order must be Paid with two Pending rows in core_notification_log.
 */
export const shopWebhookScenario: Scenario = {
  name: 'shop: payment webhook → order Paid + 2 outbox mails',
  async run(ctx) {
    const { env, db, appId, shop, drop } = await shopDatabase(ctx, 'shop', { NOTIFY_SENDER_ENABLED: 'false' });
    try {
      const orders = await prepareOrders(db, shop, SEQUENTIAL + CONCURRENT + 50);
      const deliveries = orders.map((orderId) => signedDelivery(shop, orderId));

      const service = await startService(env);
      try {
        const url = `${service.url}${ctx.basePath}/ecommerce/payment-webhook`;
        const warm = await deliver(url, deliveries.splice(0, 50), 4);
        if (warm.non2xx || warm.errors) throw new Error(`webhook warm-up failed: ${JSON.stringify(warm)}`);
        const sequential = await deliver(url, deliveries.splice(0, SEQUENTIAL), 1);
        const cpu = new CpuMeter(service.pid, db);
        const concurrent = await cpu.around(() => deliver(url, deliveries.splice(0, CONCURRENT), CONNECTIONS));
        const perDelivery = cpu.perThousand(); // CPU seconds per 1,000 deliveries: milliseconds per delivery

        const [{ paid, total }] = (
          await db.query(
            `SELECT count(*) FILTER (WHERE orderstatus = 'Paid')::int AS paid, count(*)::int AS total FROM core_orders WHERE app_id = $1`,
            [appId],
          )
        ).rows;
        const [{ mails }] = (
          await db.query(`SELECT count(*)::int AS mails FROM core_notification_log WHERE app_id = $1 AND linked_table = 'core_orders'`, [
            appId,
          ])
        ).rows;
        const [{ tokens }] = (await db.query('SELECT count(*)::int AS tokens FROM core_tokens WHERE app_id = $1', [appId])).rows;
        const done = 50 + SEQUENTIAL + CONCURRENT;
        if (paid !== done || mails !== 2 * done || tokens !== done) {
          throw new Error(
            `expected ${done} Paid orders, ${2 * done} outbox mails and ${done} tokens; found ${paid}/${total} Paid, ${mails} mails, ${tokens} tokens`,
          );
        }
        return [
          line('one delivery at a time', sequential),
          line(`${CONNECTIONS} deliveries in flight`, concurrent),
          `  CPU per delivery in flight: server ${perDelivery.server.toFixed(2)} ms, database ${perDelivery.database.toFixed(2)} ms`,
          `every delivery: order Paid, items Ordered, 1 token, admin + confirmation mail rows (${paid} orders, ${mails} mails)`,
          goal(`webhook → order Paid p50, ${CONNECTIONS} deliveries in flight`, concurrent.p50, '<', 50, (v) => `${v} ms`),
        ];
      } finally {
        await service.stop();
      }
    } finally {
      await drop();
    }
  },
};

export const shopScenarios: Scenario[] = [shopWebhookScenario];

/** A scratch database of one scenario: migrated and seeded with fixtures/bench.json through the CLI, the shop prepared. */
export interface ShopDatabase {
  env: Record<string, string>;
  db: Client;
  appId: number;
  shop: Shop;
  /** Disconnects and drops the database. */
  drop(): Promise<void>;
}

/** `label` names the database; `env` is added to the service environment (DATABASE_URL is the new database's). */
export async function shopDatabase(ctx: BenchContext, label: string, env: Record<string, string>): Promise<ShopDatabase> {
  const name = `bench_${label}_${Date.now().toString(36)}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const full = { ...ctx.env, ...env, DATABASE_URL: databaseUrl(name) };
  const db = new Client({ connectionString: full.DATABASE_URL });
  const drop = async () => {
    await db.end().catch(() => undefined);
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  };
  try {
    const cli = join(ROOT, 'dist/src/cli.js');
    execFileSync(process.execPath, [cli, 'migrate'], { env: { ...process.env, ...full }, stdio: 'ignore' });
    const appId: number = JSON.parse(
      execFileSync(process.execPath, [cli, 'seed', join(ROOT, 'fixtures/bench.json')], {
        env: { ...process.env, ...full },
        encoding: 'utf8',
      }),
    ).appID;
    await db.connect();
    return { env: full, db, appId, shop: await prepareShop(db, appId), drop };
  } catch (error) {
    await drop();
    throw error;
  }
}

interface Shop {
  appId: number;
  secret: string;
  customerId: number;
  book: number;
  ebook: number;
}

/**
 * Two published products (one digital), the admin as order-mail recipient; a webhook secret of this run
 * (fixtures/bench.json carries none: a production instance refuses a secret published in the repository).
 */
export async function prepareShop(db: Client, appId: number): Promise<Shop> {
  const secret = `whsec_${randomBytes(24).toString('hex')}`;
  await db.query('UPDATE core_sites SET payment_webhook_secret = $2 WHERE id = $1', [appId, secret]);
  const [{ id: adminId }] = (await db.query(`SELECT id FROM core_users WHERE app_id = $1 ORDER BY id LIMIT 1`, [appId])).rows;
  const [{ id: customerId }] = (await db.query(`SELECT id FROM core_customers WHERE app_id = $1 ORDER BY id LIMIT 1`, [appId])).rows;
  // email_from of the bench fixture is a bare domain: give the mails a real sender and recipient.
  await db.query(`UPDATE core_sites SET email_cc = $2, email_from = 'shop@bench.example.test' WHERE id = $1`, [appId, adminId]);
  const product = async (title: string, price: number, tax: number, digital: 0 | 1) => {
    const [{ id }] = (
      await db.query(`INSERT INTO core_products (app_id, title, price, tax, "IsDigital") VALUES ($1, $2, $3, $4, $5) RETURNING id`, [
        appId,
        title,
        price,
        tax,
        digital,
      ])
    ).rows;
    await db.query(
      `INSERT INTO core_data ("Shop_ID", "Source_Table", "Current_ID", "Master_ID", "IsCurrent", "Status", "Published", "Staged", "Title", "Publish_Set_Date")
       VALUES ($1, 'core_products', $2, $2, 1, 'Published', 1, 1, $3, now() - interval '1 day')`,
      [appId, id, title],
    );
    return id as number;
  };
  return { appId, secret, customerId, book: await product('Bench book', 2500, 227, 0), ebook: await product('Bench e-book', 1500, 136, 1) };
}

/** `count` New orders of the customer, each a book and an e-book (total 4000), with billing fields. */
export async function prepareOrders(db: Client, shop: Shop, count: number): Promise<number[]> {
  const ids: number[] = (
    await db.query(
      `INSERT INTO core_orders (app_id, customer_id, "paymentMethodRef", total, "BillingEmail", "BillingFirstName", "BillingLastName")
       SELECT $1, $2, 'Card', 4000, 'buyer' || n || '@bench.example.test', 'Bench', 'Buyer' FROM generate_series(1, $3) AS n RETURNING id`,
      [shop.appId, shop.customerId, count],
    )
  ).rows.map((r: { id: number }) => r.id);
  await db.query(
    `INSERT INTO core_order_items (app_id, "Order_ID", "IsDigital", "product_ID", product_mid, "Qty", "Price", title, tax)
     SELECT $1::int, o, 0, $3::int, $3::int, 1, 2500, 'Bench book', 227 FROM unnest($2::int[]) AS o
     UNION ALL
     SELECT $1::int, o, 1, $4::int, $4::int, 1, 1500, 'Bench e-book', 136 FROM unnest($2::int[]) AS o`, // parameters typed: a UNION resolves bare ones as text
    [shop.appId, ids, shop.book, shop.ebook],
  );
  await db.query('ANALYZE core_orders; ANALYZE core_order_items');
  return ids;
}

/** A payment_intent.succeeded for the order, as the provider sends it, signed with the SDK's helper. */
export function signedDelivery(shop: Shop, orderId: number): Delivery {
  const intentId = `pi_${randomBytes(12).toString('hex')}`;
  const payload = JSON.stringify({
    id: `evt_${randomBytes(12).toString('hex')}`,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: 'payment_intent.succeeded',
    data: {
      object: {
        id: intentId,
        object: 'payment_intent',
        amount: 4000,
        amount_received: 4000,
        currency: 'aud',
        status: 'succeeded',
        client_secret: `${intentId}_secret_bench`,
        // cartVersion: the orders are written by prepareOrders with their cart as version 0, as checkout would price it.
        metadata: { appID: String(shop.appId), orderID: String(orderId), customerID: String(shop.customerId), cartVersion: '0' },
        payment_method_types: ['card'],
        livemode: false,
      },
    },
  });
  return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: shop.secret }) };
}

/** Each delivery once, `connections` in flight. */
async function deliver(url: string, deliveries: Delivery[], connections: number): Promise<Figures> {
  let next = 0;
  const started = Date.now();
  const result = await autocannon({
    url,
    connections,
    amount: deliveries.length,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const delivery = deliveries[next++ % deliveries.length];
          return {
            ...request,
            body: delivery.payload,
            headers: { ...request.headers, 'content-type': 'application/json', 'stripe-signature': delivery.signature },
          };
        },
      },
    ],
  });
  return {
    count: deliveries.length,
    seconds: (Date.now() - started) / 1000,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

function line(label: string, f: Figures): string {
  const rate = f.count / f.seconds;
  return (
    `${`webhook, ${label}`.padEnd(44)} ${rate.toFixed(0).padStart(8)} deliveries/s   p50 ` +
    `${String(f.p50).padStart(4)} ms   p99 ${String(f.p99).padStart(4)} ms   (${f.count} deliveries` +
    `${f.errors || f.non2xx ? `, errors ${f.errors}, non-2xx ${f.non2xx}` : ''})`
  );
}
