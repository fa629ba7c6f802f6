import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { PaymentPeer } from '../src/cli/payment-double';
import { adminQuery, BENCH_NODE_FLAGS, databaseUrl, freePort, goal, ROOT, startService, verdicts } from './lib';
import { seedProducts } from './scenarios/content';
import { prepareShop } from './scenarios/shop';
import { seedTokens } from './scenarios/tokens';

/**
 * `npm run soak`: one service instance on PostgreSQL under a fixed mix for SOAK_SECONDS (default 600):
 * /getApp, /getDataRows pages, logins, validateToken and whole card purchases (createOrder, addCart,
 * checkout through the SDK at the provider double, payment delivering the signed webhook, orderStatus
 * Paid), each route with its own number of clients sending one request after the other. Reports p50/p99
 * and errors per route and the service's resident memory over time; memory must level off, and its peak
 * (VmHWM, which counts every moment, not only the samples) stay within a small container's 300 MB.
 * BENCH_NODE_FLAGS replaces the service's Node flags (SERVICE_NODE_FLAGS), e.g. '' to compare without them.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const SAMPLE_MS = 10_000;
const SECRET_KEY = 'sk_test_soak';
const LOGIN = JSON.stringify({ email: 'bench-admin@bench.example.test', password: 'Bench@1234' });

interface RouteStats {
  latencies: number[];
  errors: number;
}

async function main(): Promise<void> {
  const name = `soak_${Date.now().toString(36)}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = databaseUrl(name);
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: url,
    JWT_ACCESS_SECRET: 'soak-access-0123456789abcdef0123456789abcdef',
    JWT_REFRESH_SECRET: 'soak-refresh-0123456789abcdef0123456789abcdef',
    ENCRYPTION_KEY: '7f1c2a9e4b6d8f0a1c3e5a7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f',
    ENCRYPTION_IV: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    RATE_LIMIT_WINDOW_MS: '60000',
    RATE_LIMIT_MAX_REQUESTS: '100000000',
    // No mail or SMS gateway here (scenarios that send start their own SMTP server): files, as production must be told.
    MAIL_TO_FILES: 'true',
    SMS_TO_FILES: 'true',
    AUTH_LOGIN_MAX_PER_ACCOUNT: '1000000000',
    NOTIFY_SENDER_ENABLED: 'false',
    LOG_LEVEL: 'warn',
  };
  const cli = (args: string[]) =>
    execFileSync(process.execPath, [join(ROOT, 'dist/src/cli.js'), ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  const appId: number = JSON.parse(cli(['seed', join(ROOT, 'fixtures/bench.json')])).appID;
  const db = new Client({ connectionString: url });
  await db.connect();
  let peer: PaymentPeer | null = null;
  let service;
  try {
    await seedProducts(db, appId, 2_000);
    const shop = await prepareShop(db, appId);
    await db.query('UPDATE core_sites SET payment_test_private_key = $2 WHERE id = $1', [appId, SECRET_KEY]);
    const port = await freePort();
    peer = await PaymentPeer.start({
      webhook: {
        url: `http://127.0.0.1:${port}/api/v2/ecommerce/payment-webhook`,
        secret: shop.secret,
        report: (line) => void (line.includes('→ 200') || console.error(line)),
      },
    });
    service = await startService({ ...env, PAYMENT_API_URL: peer.url }, port);
    const tokens = await seedTokens({ service, basePath: '/api/v2', appId, databaseUrl: url, env });
    const base = `${service.url}/api/v2`;
    const headers = { 'site-id': String(appId), 'content-type': 'application/json' };
    const post = (path: string, body: string) => fetch(base + path, { method: 'POST', headers, body });

    const routes = new Map<string, RouteStats>();
    const timed = async (route: string, send: () => Promise<Response>, ok = (r: Response) => r.ok): Promise<Response | null> => {
      const stats = routes.get(route) ?? { latencies: [], errors: 0 };
      routes.set(route, stats);
      const started = performance.now();
      try {
        const res = await send();
        await res.clone().arrayBuffer();
        stats.latencies.push(performance.now() - started);
        if (!ok(res)) stats.errors++;
        return res;
      } catch {
        stats.errors++;
        return null;
      }
    };
    const purchase = async () => {
      const created = await timed('createOrder', () => post('/ecommerce/createOrder', JSON.stringify({ appID: appId })));
      if (!created?.ok) return;
      const orderId = ((await created.json()) as { data: { _id: string } }).data._id;
      const items = [
        { productID: shop.book, Qty: 1, Price: 2500 },
        { productID: shop.ebook, Qty: 1, Price: 1500 },
      ];
      if (!(await timed('addCart', () => post('/ecommerce/addCart', JSON.stringify({ appID: appId, _orderID: orderId, items }))))?.ok)
        return;
      const billing = {
        firstName: 'Soak',
        lastName: 'Buyer',
        email: 'buyer@soak.example.test',
        address: '1 Main St',
        suburb: 'Perth',
        postCode: '6000',
      };
      const checkout = await timed('checkout', () =>
        post('/ecommerce/checkout', JSON.stringify({ appID: appId, _orderID: orderId, amount: 4000, data: billing })),
      );
      if (!checkout?.ok) return;
      const intentId = ((await checkout.json()) as { data: { paymentIntentID: string } }).data.paymentIntentID;
      await timed('pay at the double (webhook delivered)', () =>
        fetch(`${peer!.url}/v1/payment_intents/${intentId}/confirm`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SECRET_KEY}` },
        }),
      );
      await timed(
        'orderStatus (Paid)',
        () => fetch(`${base}/ecommerce/orderStatus/${encodeURIComponent(orderId)}`, { headers: { 'site-id': String(appId) } }),
        (r) => r.ok, // Paid is checked below, on the body
      ).then(async (res) => {
        const body = res && ((await res.json()) as { data?: { orderStatus?: string } });
        if (body?.data?.orderStatus !== 'Paid') routes.get('orderStatus (Paid)')!.errors++;
      });
    };
    const mix: [string, number, () => Promise<unknown>][] = [
      ['getApp', 4, () => timed('getApp', () => post('/getApp', '{}'))],
      [
        'getDataRows',
        2,
        () =>
          timed('getDataRows', () =>
            post(
              '/getDataRows',
              JSON.stringify({
                table: 'core_products',
                isPaging: true,
                perPage: 20,
                page: 1 + Math.floor(Math.random() * 50),
                orderBy: 'title ASC',
              }),
            ),
          ),
      ],
      ['login', 1, () => timed('login', () => post('/auth/login', LOGIN))],
      [
        'validateToken',
        2,
        () =>
          timed('validateToken', () =>
            post(
              '/ecommerce/validateToken',
              JSON.stringify({ tokenValue: tokens.values[Math.floor(Math.random() * 3)], productId: tokens.productId }),
            ),
          ),
      ],
      ['purchase', 1, purchase],
    ];

    const rss: { at: number; mb: number }[] = [];
    const sample = () => rss.push({ at: Math.round((Date.now() - started) / 1000), mb: memoryMb(service!.pid, 'VmRSS') });
    const started = Date.now();
    const deadline = started + SECONDS * 1000;
    sample();
    const sampler = setInterval(sample, SAMPLE_MS);
    await Promise.all(
      mix.flatMap(([, clients, run]) =>
        Array.from({ length: clients }, async () => {
          while (Date.now() < deadline) await run();
        }),
      ),
    );
    clearInterval(sampler);
    sample();
    const highWater = memoryMb(service.pid, 'VmHWM');

    console.log(`platform-service soak: ${SECONDS} s, node ${process.version}, service flags: ${BENCH_NODE_FLAGS.join(' ') || '(none)'}\n`);
    console.log(
      `${'route'.padEnd(40)} ${'requests'.padStart(9)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)}`,
    );
    let errors = 0;
    for (const [route, stats] of routes) {
      const sorted = [...stats.latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
      errors += stats.errors;
      console.log(
        `${route.padEnd(40)} ${String(sorted.length).padStart(9)} ` +
          `${(sorted.length / SECONDS).toFixed(1).padStart(7)} ${at(0.5).toFixed(1).padStart(8)} ` +
          `${at(0.99).toFixed(1).padStart(8)} ${String(stats.errors).padStart(7)}`,
      );
    }
    console.log(`\nresident memory (s: MB): ${rss.map((s) => `${s.at}: ${s.mb.toFixed(0)}`).join(', ')}`);
    console.log(`peak resident memory (VmHWM): ${highWater.toFixed(0)} MB`);
    // Levelled off: the RSS rises and falls with garbage collection, so compare peaks: a leak keeps raising
    // them. The highest sample of the last third may be at most 5 % above the highest of the middle third.
    const peak = (from: number, to: number) => Math.max(...rss.filter((s) => s.at >= from && s.at < to).map((s) => s.mb));
    const growth = peak((2 * SECONDS) / 3, Infinity) / peak(SECONDS / 3, (2 * SECONDS) / 3) - 1;
    console.log('\n## Goals');
    console.log(`  ${goal('no errors over the soak', errors, '<', 1, (v) => String(v))}`);
    console.log(`  ${goal('RSS peak of the last third over the middle third', growth * 100, '<', 5, (v) => `${v.toFixed(1)} %`)}`);
    console.log(`  ${goal('peak RSS over the soak (VmHWM)', highWater, '<=', 300, (v) => `${v.toFixed(0)} MB`)}`);
    if (verdicts.some((v) => v.startsWith('FALL'))) process.exitCode = 1;
  } finally {
    await service?.stop();
    await peer?.stop();
    await db.end().catch(() => undefined);
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

/** A memory figure of /proc/<pid>/status (Linux): VmRSS now, VmHWM the highest it has been. */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1]) / 1024;
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
