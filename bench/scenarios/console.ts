import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { goal, median, ROOT } from '../lib';
import { BenchContext, Scenario } from './types';

/** Orders of the console's tenant. */
const ORDERS = Number(process.env.BENCH_CONSOLE_ORDERS ?? 10_000);
/** Timed loads of /console/orders (cold and warm cache each), and rounds of filters, searches and detail pages. */
const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 10);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DIST = process.env.CONSOLE_DIR ?? join(ROOT, 'console', 'dist');
const OWNER_EMAIL = 'owner@console.bench.test';
const OWNER_PASSWORD = 'Console-Bench@1234';
const PER_PAGE = 20;
const STATUSES = ['New', 'Paid', 'Ordered'];
const PAYMENT_STATUSES = ['Success', 'Failed', 'Partially Refunded', 'Refunded', 'Disputed'];
const FIRST = ['Olivia', 'Liam', 'Charlotte', 'Noah', 'Amelia', 'Jack', 'Isla', 'William', 'Mia', 'Oliver', 'Ava', 'Leo', 'Grace', 'Henry'];
const LAST = ['Smith', 'Nguyen', 'Williams', 'Brown', 'Wilson', 'Taylor', 'Johnson', 'White', 'Martin', 'Anderson', 'Thompson', 'Walker'];

/** Issue 39's goals: the console's first load, the orders list in Chromium, and every API call it makes on those orders. */
const GOAL_FIRST_LOAD_KB = 250;
const GOAL_LIST_SHOWN_MS = 1000;
const GOAL_CALL_P50_MS = 50;

/**
 * The staff console (README "Staff console"; issue 39's figures):
 *
 * - its first load: the JS and CSS index.html references and their static imports, and the orders screen's lazy
 *   chunk with its imports (what the first load of /console/orders fetches), each gzipped at level 9 from
 *   console/dist as `npm run build` left it; the files Chromium actually fetched are printed beside them;
 * - a tenant of its own (tenant:create, an owner made with user:create) with 10,000 orders of 1–3 items, mixed
 *   statuses and payment statuses, billing names and emails, one every 6 minutes going back 42 days;
 * - Debian's Chromium through playwright-core: the owner signs in through the sign-in page once, then RUNS
 *   times a fresh page goes to /console/orders, signed in by the session cookie (the reload path), and the
 *   time from page.goto until the frame after the first page's first and last order links are in the DOM is
 *   taken (Load.ms; Playwright then checks that they are visible). Cold: each
 *   run in a new browser context (empty HTTP cache) given the previous one's cookies; warm: new pages of one
 *   context whose cache holds the hashed assets (a year's `immutable`);
 * - then RUNS rounds of what staff do on that list: another page (a reload), a status and a payment status
 *   filter, a search by email, last name, full name and order number, a date range and its next page, and an
 *   order's detail page (getOrder, orderTimeline). Every API and session call of the browser is recorded
 *   (requestfinished, request.timing(): request start to the last byte of the answer) and reported per
 *   operation, with its p50 against the goal.
 */
export const consoleScenario: Scenario = {
  name: `console: first load, the orders list of ${ORDERS.toLocaleString('en')} orders in Chromium, its API calls`,
  async run(ctx) {
    const lines: string[] = [...firstLoadSize()];
    const seeded = await seedTenant(ctx);
    lines.push(seeded.summary);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    try {
      lines.push(...(await inBrowser(ctx, browser, seeded)));
    } finally {
      await browser.close();
    }
    return lines;
  },
};

interface Seeded {
  appId: number;
  summary: string;
  /** The order numbers of the newest page (what /console/orders shows first), newest first. */
  firstPage: string[];
  /** Orders to search for and open: order number, billing email. */
  samples: { number: string; email: string }[];
}

/** The files a first load of /console/orders fetches, gzipped; from console/dist. */
function firstLoadSize(): string[] {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const referenced = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  const ordersChunk = readdirSync(join(DIST, 'assets')).find((file) => /^Orders-[\w-]+\.js$/.test(file));
  if (!referenced.length) throw new Error(`console/dist/index.html references no script or stylesheet (npm run build)`);
  // Static imports only (`from"./x.js"`, `import"./x.js"`): the other screens' dynamic import("./X.js") load when visited.
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    if (!file.endsWith('.js')) return;
    for (const m of readFileSync(join(DIST, file), 'utf8').matchAll(/(?:from|import)\s*"\.\/([^"]+\.(?:js|css))"/g))
      visit(`assets/${m[1]}`);
  };
  referenced.forEach(visit);
  const entryCount = files.size;
  if (ordersChunk) visit(`assets/${ordersChunk}`); // none: the orders screen is in the main bundle
  const sizes = [...files].map((file, i) => {
    const bytes = readFileSync(join(DIST, file));
    return { file, raw: bytes.length, gz: gzipSync(bytes, { level: 9 }).length, lazy: i >= entryCount };
  });
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const total = sizes.reduce((sum, s) => sum + s.gz, 0);
  firstLoadFiles.push(...files);
  return [
    'first load of /console/orders (console/dist, gzip level 9):',
    ...sizes.map(
      (s) =>
        `  ${(s.file + (s.lazy ? ' (orders screen, lazy)' : '')).padEnd(58)} ${kb(s.raw).padStart(9)}  gzipped ${kb(s.gz).padStart(8)}`,
    ),
    `  ${'total'.padEnd(58)} ${kb(sizes.reduce((sum, s) => sum + s.raw, 0)).padStart(9)}  gzipped ${kb(total).padStart(8)}`,
    goal('console JS and CSS on the first load of /console/orders, gzipped', total / 1024, '<=', GOAL_FIRST_LOAD_KB, (v) => kb(v * 1024)),
  ];
}

/** The files firstLoadSize counted, to compare with what Chromium fetched. */
const firstLoadFiles: string[] = [];

/**
 * A tenant with ORDERS orders. The rows are inserted with generate_series in a few statements rather than through
 * checkout and the payment webhook: 10,000 purchases would take minutes and measure nothing this scenario is about
 * (the other bench scenarios seed their large tables the same way). The tenant and its owner are made with the CLI.
 */
async function seedTenant(ctx: BenchContext): Promise<Seeded> {
  const cli = (args: string[]) =>
    JSON.parse(
      execFileSync(process.execPath, [join(ROOT, 'dist/src/cli.js'), ...args], { env: { ...process.env, ...ctx.env }, encoding: 'utf8' }),
    );
  const started = Date.now();
  const { appID: appId } = cli(['tenant:create', '--name', 'Console bench', '--domain', `console-${Date.now().toString(36)}.bench.test`]);
  cli([
    'user:create',
    '--app',
    String(appId),
    '--email',
    OWNER_EMAIL,
    '--password',
    OWNER_PASSWORD,
    '--role',
    'admin',
    '--firstname',
    'Ada',
  ]);
  const db = new Client({ connectionString: ctx.databaseUrl });
  await db.connect();
  try {
    await db.query('BEGIN');
    // New (a tenth of them Failed payments), Paid and Ordered; paid ones partly Refunded, Refunded or Disputed now and then.
    await db.query(
      `INSERT INTO core_orders (app_id, orderstatus, orderstatuslabel, payment_status, "paymentMethodRef", "AuthCode", "TrxnReference",
              order_date, currency, "BillingEmail", "BillingFirstName", "BillingLastName", "BillingAddress", "BillingSuburb", "BillingPostCode",
              payment_error, created, updated)
       SELECT $1, s.status, s.status,
              CASE WHEN s.status = 'New' THEN CASE WHEN g % 20 = 1 THEN 'Failed' END
                   WHEN g % 97 = 0 THEN 'Disputed' WHEN g % 29 = 0 THEN 'Refunded' WHEN g % 17 = 0 THEN 'Partially Refunded' ELSE 'Success' END,
              CASE WHEN s.status <> 'New' OR g % 20 = 1 THEN 'Card' END,
              CASE WHEN s.status <> 'New' THEN 'pi_bench_' || g END, CASE WHEN s.status <> 'New' THEN 'pi_bench_' || g END,
              CASE WHEN s.status <> 'New' THEN now() - g * interval '6 minutes' + interval '2 minutes' END, 'aud',
              lower(n.first || '.' || n.last || (g % 500)) || '@example.test', n.first, n.last,
              (g % 300 + 1) || ' George Street', 'Sydney', '2000',
              CASE WHEN s.status = 'New' AND g % 20 = 1 THEN 'Your card was declined.' END,
              now() - g * interval '6 minutes', now() - g * interval '6 minutes'
         FROM generate_series(1, $2::int) g,
              LATERAL (SELECT CASE WHEN g % 10 < 2 THEN 'New' WHEN g % 10 = 9 THEN 'Ordered' ELSE 'Paid' END AS status) s,
              LATERAL (SELECT ($3::text[])[g % cardinality($3::text[]) + 1] AS first,
                              ($4::text[])[(g / 7) % cardinality($4::text[]) + 1] AS last) n`,
      [appId, ORDERS, FIRST, LAST],
    );
    await db.query(
      `INSERT INTO core_order_items (app_id, "Order_ID", "ItemStatus", "IsDigital", "product_ID", product_mid, "Qty", "Price", title, tax, created, updated)
       SELECT o.app_id, o.id, CASE WHEN o.orderstatus = 'New' THEN 'Pending' ELSE 'Ordered' END, (k % 2)::smallint, 100 + (o.id + k) % 40,
              100 + (o.id + k) % 40, 1 + (o.id + k) % 3, 1500 + ((o.id * 7 + k * 13) % 60) * 50, 'Product ' || (100 + (o.id + k) % 40),
              (1500 + ((o.id * 7 + k * 13) % 60) * 50) / 11, o.created, o.created
         FROM core_orders o, generate_series(1, 1 + o.id % 3) k
        WHERE o.app_id = $1`,
      [appId],
    );
    await db.query(
      `UPDATE core_orders o SET total = t.sum,
              refunded_total = CASE o.payment_status WHEN 'Refunded' THEN t.sum WHEN 'Partially Refunded' THEN t.sum / 2 ELSE 0 END
         FROM (SELECT "Order_ID" AS id, SUM("Qty" * "Price")::int AS sum FROM core_order_items WHERE app_id = $1 GROUP BY "Order_ID") t
        WHERE o.id = t.id AND o.app_id = $1`,
      [appId],
    );
    await db.query('COMMIT');
    await db.query('VACUUM ANALYZE core_orders');
    await db.query('VACUUM ANALYZE core_order_items');
    const { rows: newest } = await db.query<{ id: number }>(
      `SELECT id FROM core_orders WHERE app_id = $1 ORDER BY created DESC, id DESC LIMIT ${PER_PAGE}`,
      [appId],
    );
    const { rows: samples } = await db.query<{ id: number; email: string }>(
      `SELECT id, "BillingEmail" AS email FROM core_orders WHERE app_id = $1 ORDER BY id OFFSET 137 LIMIT $2`,
      [appId, RUNS * 997],
    );
    const { rows: counts } = await db.query<{ orders: number; items: number }>(
      `SELECT (SELECT count(*) FROM core_orders WHERE app_id = $1)::int AS orders, (SELECT count(*) FROM core_order_items WHERE app_id = $1)::int AS items`,
      [appId],
    );
    return {
      appId,
      summary:
        `tenant ${appId}: ${counts[0].orders.toLocaleString('en')} orders, ` +
        `${counts[0].items.toLocaleString('en')} items seeded in ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s`,
      firstPage: newest.map((r) => orderNumber(r.id)),
      samples: samples.filter((_, i) => i % 997 === 0).map((r) => ({ number: orderNumber(r.id), email: r.email })),
    };
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await db.end();
  }
}

/** The order number the console shows (orderNumberOf in src/orders/orders.service.ts). */
function orderNumber(id: number): string {
  return String(id).padStart(8, '0');
}

interface Call {
  operation: string;
  ms: number;
  status: number;
}

async function inBrowser(ctx: BenchContext, browser: Browser, seeded: Seeded): Promise<string[]> {
  const calls: Call[] = [];
  const pending: Promise<void>[] = [];
  const fetched = new Set<string>();
  const failures: string[] = [];
  // What the browser is doing when a call starts: names listOrders' filters (a fetch's body is not visible to the
  // harness: the typed client posts a Request object) and the refresh of the sign-in page, which has no cookie yet.
  const step = { name: 'signed out' };
  const steps = new WeakMap<Request, string>();
  const watch = (page: Page) => {
    page.on('request', (request) => steps.set(request, step.name));
    page.on('requestfinished', (request) => pending.push(record(request)));
    page.on('requestfailed', (request) => failures.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`));
    page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
    return page;
  };
  const record = async (request: Request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/console/assets/')) fetched.add(url.pathname.slice('/console/'.length));
    const operation = operationOf(url.pathname, ctx.basePath, request, steps.get(request) ?? step.name);
    if (!operation) return;
    const response = await request.response();
    calls.push({ operation, ms: request.timing().responseEnd, status: response?.status() ?? 0 });
  };
  const newContext = async (storageState?: Awaited<ReturnType<BrowserContext['storageState']>>) => {
    const context = await browser.newContext({ baseURL: ctx.service.url, viewport: { width: 1280, height: 900 }, storageState });
    await context.addInitScript(shownWatcher(seeded.firstPage));
    return context;
  };

  // Sign in once, through the sign-in page; every later page is signed in by the session cookie.
  const first = await newContext();
  const signInPage = watch(await first.newPage());
  await signInPage.goto('/console/');
  await signInPage.getByLabel('Shop domain or app ID').fill(String(seeded.appId));
  await signInPage.getByLabel('Email').fill(OWNER_EMAIL);
  await signInPage.getByLabel('Password').fill(OWNER_PASSWORD);
  step.name = 'no filter, page 1 (the page after sign-in)';
  await signInPage.getByRole('button', { name: 'Sign in' }).click();
  await signInPage.getByRole('navigation', { name: 'Main' }).waitFor();
  let state = await first.storageState();
  await first.close();
  step.name = 'no filter, page 1 (the loads of /console/orders)';

  const load = async (page: Page): Promise<Load> => {
    const wallStart = Date.now();
    const started = performance.now();
    await page.goto('/console/orders', { waitUntil: 'commit' });
    await page.getByRole('link', { name: seeded.firstPage[0], exact: true }).waitFor();
    await page.getByRole('link', { name: seeded.firstPage[seeded.firstPage.length - 1], exact: true }).waitFor();
    const seen = performance.now() - started;
    const milestones = await readMilestones(page, ctx.basePath);
    if (!milestones.shown) throw new Error('the page did not note when its first page of orders was shown');
    // The page's clock starts at navigation start: how long after page.goto that was (both clocks are the system's).
    const toNavigation = milestones.timeOrigin - wallStart;
    const ms = toNavigation + milestones.painted;
    return { ms, milestones, toNavigation, seenAfter: seen - ms };
  };

  // Cold: a new context (empty cache) per run, with the cookies the previous run's refresh left.
  const cold: Load[] = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await newContext(state);
    cold.push(await load(watch(await context.newPage())));
    state = await context.storageState();
    await context.close();
  }
  const coldFetched = new Set(fetched);

  // Warm: new pages of one context whose HTTP cache holds the assets (one load to fill it first).
  const context = await newContext(state);
  const warm: Load[] = [];
  try {
    const filler = watch(await context.newPage());
    await load(filler);
    await filler.close();
    for (let i = 0; i < RUNS; i++) {
      const page = watch(await context.newPage());
      warm.push(await load(page));
      await page.close();
    }
    await browse(watch(await context.newPage()), seeded, step);
  } finally {
    await context.close();
  }
  await Promise.all(pending);

  const lines: string[] = [];
  const missing = [...coldFetched].filter((file) => !firstLoadFiles.includes(file));
  const unused = firstLoadFiles.filter((file) => !coldFetched.has(file));
  lines.push(
    missing.length || unused.length
      ? `Chromium's first load of /console/orders fetched ${[...coldFetched].join(', ')} (not counted above: ` +
          `${missing.join(', ') || 'none'}; counted but not fetched: ${unused.join(', ') || 'none'})`
      : `Chromium's first load of /console/orders fetched exactly the ${coldFetched.size} files counted above`,
  );
  const fmt = (v: number) => `${Math.round(v)} ms`;
  for (const [name, runs] of [
    ['cold cache', cold],
    ['warm cache', warm],
  ] as const) {
    const ms = runs.map((r) => r.ms);
    lines.push(
      `/console/orders → first page shown, ${name}, ${runs.length} runs: p50 ${fmt(median(ms))}, max ${fmt(Math.max(...ms))}, min ${fmt(Math.min(...ms))} ` +
        `(page.goto to the frame after the first page's rows are in the DOM)`,
    );
    const m = (pick: (x: Milestones) => number) => fmt(median(runs.map((r) => pick(r.milestones))));
    lines.push(
      `  page.goto → navigation start p50 ${fmt(median(runs.map((r) => r.toNavigation)))}; Playwright's locator saw the links visible ` +
        `p50 ${fmt(median(runs.map((r) => r.seenAfter)))} after that frame (it polls, every 500 ms after its first tries)`,
    );
    lines.push(
      `  where the time goes (p50, ms after navigation start, the page's clock): index.html ` +
        `${m((x) => x.document)}, main script and CSS ${m((x) => x.entry)}, ` +
        `csrf ${m((x) => x.csrf)}, refresh ${m((x) => x.refresh)}, orders chunk ` +
        `${runs.some((r) => r.milestones.chunk) ? m((x) => x.chunk) : 'none'}, listOrders ${m((x) => x.list)}, ` +
        `rows in the DOM ${m((x) => x.shown)}, next frame ${m((x) => x.painted)}`,
    );
  }

  const byOperation = new Map<string, Call[]>();
  for (const call of calls) byOperation.set(call.operation, [...(byOperation.get(call.operation) ?? []), call]);
  const operations = [...byOperation.keys()].sort((a, b) => OPERATION_ORDER(a) - OPERATION_ORDER(b) || a.localeCompare(b));
  lines.push(`API and session calls Chromium made (request start to the answer's last byte, request.timing()):`);
  for (const operation of operations) {
    const list = byOperation.get(operation)!;
    const ms = list.map((c) => c.ms);
    const bad = list.filter((c) => c.status < 200 || c.status >= 300);
    lines.push(
      `  ${operation.padEnd(46)} ${String(list.length).padStart(3)} calls   p50 ${median(ms).toFixed(1).padStart(6)} ms   max ${Math.max(
        ...ms,
      )
        .toFixed(1)
        .padStart(6)} ms${bad.length ? `   (${bad.length} not 2xx: ${[...new Set(bad.map((c) => c.status))].join(', ')})` : ''}`,
    );
  }
  if (failures.length) lines.push(`failures in the browser: ${failures.slice(0, 5).join('; ')}`);
  const coldMs = cold.map((r) => r.ms);
  const warmMs = warm.map((r) => r.ms);
  lines.push(
    goal(
      `/console/orders → first page of ${ORDERS.toLocaleString('en')} orders shown (page.goto → rows painted), cold cache, p50`,
      median(coldMs),
      '<',
      GOAL_LIST_SHOWN_MS,
      fmt,
    ),
    goal(`/console/orders → first page shown, cold cache, max of ${RUNS}`, Math.max(...coldMs), '<', GOAL_LIST_SHOWN_MS, fmt),
    goal(`/console/orders → first page shown, warm cache, p50`, median(warmMs), '<', GOAL_LIST_SHOWN_MS, fmt),
    goal(`/console/orders → first page shown, warm cache, max of ${RUNS}`, Math.max(...warmMs), '<', GOAL_LIST_SHOWN_MS, fmt),
  );
  for (const operation of operations) {
    if (operation === SIGN_IN) continue; // once, and a bcrypt check by design: shown above, no goal
    const ms = byOperation.get(operation)!.map((c) => c.ms);
    lines.push(goal(`console call p50: ${operation}`, median(ms), '<=', GOAL_CALL_P50_MS, (v) => `${v.toFixed(1)} ms`));
  }
  return lines;
}

const SIGN_IN = 'session: sign-in (once)';

/** Reports list operations in this order: session calls, the list, the detail page. */
function OPERATION_ORDER(operation: string): number {
  return operation.startsWith('session')
    ? 0
    : operation.startsWith('listOrders, no filter')
      ? 1
      : operation.startsWith('listOrders')
        ? 2
        : 3;
}

/** The operation a call of the console is, or null for a page or an asset. listOrders is told apart by its filters. */
function operationOf(path: string, basePath: string, request: Request, step: string): string | null {
  if (path.startsWith('/console/session/')) {
    const route = path.slice('/console/session/'.length);
    if (route === 'sign-in') return SIGN_IN;
    return `session: ${request.method()} ${route}${step === 'signed out' ? ' (sign-in page, no cookie yet)' : ''}`;
  }
  if (!path.startsWith(`${basePath}/`)) return null;
  const name = path.slice(basePath.length + 1).replace(/^ecommerce\//, '');
  return name === 'listOrders' ? `listOrders, ${step}` : name;
}

interface Load {
  /**
   * page.goto until the frame after the first page's first and last order links are in the DOM (shownWatcher, on
   * the page's clock, plus navigation start's delay after page.goto on the system clock). Playwright's locator sees
   * them visible later (`seenAfter`): its waitFor polls, at 500 ms intervals after its first tries, so its own time
   * would measure its polling.
   */
  ms: number;
  milestones: Milestones;
  /** Navigation start after page.goto. */
  toNavigation: number;
  seenAfter: number;
}

interface Milestones {
  /** performance.timeOrigin: the navigation start, ms since the epoch. */
  timeOrigin: number;
  document: number;
  entry: number;
  csrf: number;
  refresh: number;
  chunk: number;
  list: number;
  /** When the first page's first and last order links were in the DOM (shownWatcher), and the next frame. */
  shown: number;
  painted: number;
}

/**
 * A script run in every page before the console's own (CDP, not subject to the page's CSP): notes the page's
 * time when the table holds the first page's first and last order links, and the next animation frame after it.
 */
function shownWatcher(firstPage: string[]): string {
  const wanted = JSON.stringify([firstPage[0], firstPage[firstPage.length - 1]]);
  return `(() => {
    const wanted = ${wanted};
    const observer = new MutationObserver(() => {
      const links = new Set(Array.from(document.querySelectorAll('table a'), (a) => a.textContent.trim()));
      if (!wanted.every((number) => links.has(number))) return;
      observer.disconnect();
      window.__benchShown = performance.now();
      requestAnimationFrame(() => { window.__benchPainted = performance.now(); });
    });
    observer.observe(document, { childList: true, subtree: true, characterData: true });
  })();`;
}

/** From the page's own clock (Resource Timing and shownWatcher), in ms after navigation start. */
async function readMilestones(page: Page, basePath: string): Promise<Milestones> {
  await page.waitForFunction('window.__benchPainted !== undefined');
  return page.evaluate((base) => {
    // The page's globals (no DOM types in this project): the entries' name and responseEnd only.
    type Entry = { name: string; responseEnd: number };
    const g = globalThis as unknown as {
      performance: { getEntriesByType(type: string): Entry[] };
      __benchShown: number;
      __benchPainted: number;
    };
    const timeOrigin = (g.performance as unknown as { timeOrigin: number }).timeOrigin;
    const resources = g.performance.getEntriesByType('resource');
    const end = (test: (path: string) => boolean) =>
      Math.max(0, ...resources.filter((r) => test(new URL(r.name).pathname)).map((r) => r.responseEnd));
    return {
      timeOrigin,
      document: g.performance.getEntriesByType('navigation')[0].responseEnd,
      entry: end((p) => /^\/console\/assets\/index-[\w-]+\.(js|css)$/.test(p)),
      csrf: end((p) => p === '/console/session/csrf'),
      refresh: end((p) => p === '/console/session/refresh'),
      chunk: end((p) => /^\/console\/assets\/(?!index-)[\w-]+\.js$/.test(p)),
      list: end((p) => p === `${base}/ecommerce/listOrders`),
      shown: g.__benchShown,
      painted: g.__benchPainted,
    };
  }, basePath);
}

/**
 * RUNS rounds of what staff do on the list, each query new to the console's cache (it keeps answers 15 s; each
 * round starts with a reload, which empties it): another page by URL (csrf, refresh, listOrders), then through
 * the filter form a status, a payment status, an email, a last name, a full name, an order number, a date range
 * and its next page, and an order's page. `step.name` names the listOrders calls each step makes.
 */
async function browse(page: Page, seeded: Seeded, step: { name: string }): Promise<void> {
  const list = (response: { url(): string; request(): Request }) =>
    response.url().endsWith('/ecommerce/listOrders') && response.request().method() === 'POST';
  const shown = () =>
    page
      .getByRole('status')
      .filter({ hasText: /^(Showing \d+ orders? on page \d+\.|No orders match these filters\.)$/ })
      .waitFor();
  const filter = async (name: string, fields: { q?: string; status?: string; payment?: string; from?: string; to?: string }) => {
    const form = page.getByRole('search', { name: 'Filter orders' });
    await form.getByLabel('Search', { exact: true }).fill(fields.q ?? '');
    await form.getByLabel('Status', { exact: true }).selectOption(fields.status ?? '');
    await form.getByLabel('Payment status', { exact: true }).selectOption(fields.payment ?? '');
    await form.getByLabel('Created from', { exact: true }).fill(fields.from ?? '');
    await form.getByLabel('Created to', { exact: true }).fill(fields.to ?? '');
    step.name = name;
    const answered = page.waitForResponse(list);
    await form.getByRole('button', { name: 'Search', exact: true }).click();
    await answered;
    await shown();
  };
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  for (let r = 0; r < RUNS; r++) {
    const sample = seeded.samples[r % seeded.samples.length];
    step.name = 'no filter, page 2–11 (a reload)';
    const answered = page.waitForResponse(list);
    await page.goto(`/console/orders?page=${r + 2}`);
    await answered;
    await shown();
    await filter('status', { status: STATUSES[r % STATUSES.length] });
    await filter('payment status', { payment: PAYMENT_STATUSES[r % PAYMENT_STATUSES.length] });
    await filter('search: email', { q: sample.email });
    await filter('search: last name', { q: LAST[r % LAST.length] });
    await filter('search: first and last name', { q: `${FIRST[(r * 5) % FIRST.length]} ${LAST[(r * 7 + 3) % LAST.length]}` });
    await filter('search: order number', { q: sample.number });
    await filter('created from / to (two days)', { from: day(r * 3 + 3), to: day(r * 3 + 2) });
    step.name = 'created from / to, next page';
    const next = page.waitForResponse(list);
    await page.getByRole('button', { name: 'Next page' }).click();
    await next;
    await shown();
    // An order's page: its items, payments and mails (getOrder) and its timeline (orderTimeline).
    step.name = 'order page';
    const link = page
      .getByRole('table')
      .getByRole('link')
      .nth(r % 10);
    const number = (await link.textContent())!.trim();
    const detail = Promise.all([
      page.waitForResponse((res) => res.url().endsWith('/ecommerce/getOrder')),
      page.waitForResponse((res) => res.url().endsWith('/ecommerce/orderTimeline')),
    ]);
    await link.click();
    await detail;
    await page.getByRole('heading', { level: 1, name: `Order ${number}` }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Timeline' }).waitFor();
  }
}
