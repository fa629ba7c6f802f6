import { join } from 'node:path';
import { Client } from 'pg';
import { DURATION_S, Figures, freePort, goal, interleaved, measure, median, ratio, ROOT, row, startNode, warmUp } from '../lib';
import { PeerPair, PostGraphilePeer, serviceTarget, startPostGraphile, versusPostGraphile } from './postgraphile-peer';
import { BenchContext, Scenario } from './types';

const PRODUCTS = 10_000;
const LARGE_PRODUCTS = 100_000;
/** The pages of the first scenario, in rotation: the first page, a middle one and one deep in the table. */
const PAGES = [1, 25, 250];
/** The orders tenants page their products by (each served by an index, ASC and DESC). */
const ORDERS = ['title', 'created', 'updated', 'sort_order', 'price'].flatMap((column) => [`${column} ASC`, `${column} DESC`]);

/**
 * `count` published products of tenant `appId`, each with its core_data row, written straight through pg
 * and then analyzed, as the seed command does after a load. Ties as tenants have them: sort_order mostly 0,
 * prices repeated, updated in 1,000 distinct minutes.
 */
export async function seedProducts(client: Client, appId: number, count: number): Promise<void> {
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO core_products (app_id, title, description, price, tax, bond, "IsDigital", "IsEvent", sort_order, created, updated)
     SELECT $1, 'Product ' || g, 'Description of product ' || g, 1000 + (g * 7919) % 50000, 100, 0, (g % 2)::smallint, (g % 5 = 0)::int::smallint,
            CASE WHEN g % 20 = 0 THEN g / 20 ELSE 0 END, now() - g * interval '1 minute', now() - (g % 1000) * interval '1 minute'
       FROM generate_series(1, $2) g`,
    [appId, count],
  );
  await client.query(
    `INSERT INTO core_data ("Shop_ID", "Source_Table", "Current_ID", "Master_ID", "IsCurrent", "Status", "Published", "Staged", "Title", "Publish_Set_Date")
     SELECT app_id, 'core_products', id, id, 1, 'Published', 1, 1, title, now() - interval '1 day' FROM core_products WHERE app_id = $1`,
    [appId],
  );
  await client.query('COMMIT');
  await client.query('ANALYZE core_products, core_data');
}

/**
 * The bench tenant gets PRODUCTS products and a second tenant LARGE_PRODUCTS (once per run, whichever
 * scenario comes first); answers the second tenant's id.
 */
let tenants: Promise<number> | undefined;
function seedTenants(ctx: BenchContext): Promise<number> {
  tenants ??= (async () => {
    const client = new Client({ connectionString: ctx.databaseUrl });
    await client.connect();
    try {
      await seedProducts(client, ctx.appId, PRODUCTS);
      const [{ id }] = (
        await client.query(`INSERT INTO core_sites (name, domain) VALUES ('Bench 100k', 'bench-100k.example.test') RETURNING id`)
      ).rows;
      await seedProducts(client, id, LARGE_PRODUCTS);
      return id as number;
    } finally {
      await client.end();
    }
  })();
  return tenants;
}

async function checkPage(url: string, appId: number, body: string): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'site-id': String(appId), 'content-type': 'application/json' }, body });
  const sample = (await res.json()) as { data?: unknown[] };
  if (!res.ok || sample.data?.length !== 20) throw new Error(`${url} answered ${res.status} with ${sample.data?.length} rows for ${body}`);
}

function short(f: Figures): string {
  return `${f.rps.toFixed(0).padStart(6)} req/s p99 ${String(f.p99).padStart(4)} ms${f.errors || f.non2xx ? ` (errors ${f.errors}, non-2xx ${f.non2xx})` : ''}`;
}

/** Benchmark scenarios of the content module. */
export const contentScenarios: Scenario[] = [
  {
    name: 'POST /getDataRows published page of 20 from 10,000 rows',
    async run(ctx) {
      await seedTenants(ctx);
      const headers = { 'site-id': String(ctx.appId) };
      const requests = PAGES.map((page) => ({
        method: 'POST' as const,
        body: JSON.stringify({ table: 'core_products', isPaging: true, perPage: 20, page }),
      }));
      const baseline = await startNode(
        join(ROOT, 'dist/bench/baseline/get-data-rows.js'),
        { DATABASE_URL: ctx.databaseUrl },
        await freePort(),
        '/ready',
      );
      let peer: PostGraphilePeer | undefined;
      try {
        const url = `${ctx.service.url}${ctx.basePath}/getDataRows`;
        await checkPage(url, ctx.appId, requests[0].body);
        const first = [requests[0]];
        peer = await startPostGraphile(ctx, [ctx.appId], PAGES);
        // PostGraphile orders by title (the view has no Master_ID order an index serves), so the service does too here.
        const versus: PeerPair = {
          label: '10k, pages 1/25/250 by title',
          service: serviceTarget(ctx, ctx.appId, PAGES),
          peer: peer.target(ctx.appId, PAGES),
        };
        await warmUp([{ url, headers, requests }, { url: `${baseline.url}/getDataRows`, headers, requests }, versus.service, versus.peer]);
        // Right after the warm-up, while both are as recently used (the raw baseline, warm in seconds, waits).
        const versusLines = await versusPostGraphile(ctx, peer, [versus], Math.max(3, DURATION_S));
        const service1 = await measure({ url, headers, requests: first });
        const raw1 = await measure({ url: `${baseline.url}/getDataRows`, headers, requests: first });
        const serviceMix = await measure({ url, headers, requests });
        const rawMix = await measure({ url: `${baseline.url}/getDataRows`, headers, requests });
        return [
          row('service, page 1', service1),
          row('baseline Fastify+pg, page 1', raw1),
          ratio(service1, raw1),
          row('service, pages 1/25/250 in rotation', serviceMix),
          row('baseline, pages 1/25/250 in rotation', rawMix),
          ratio(serviceMix, rawMix),
          'against PostGraphile 5 (measured first, interleaved after the warm-up):',
          ...versusLines,
        ];
      } finally {
        await Promise.all([baseline.stop(), peer?.stop()]);
      }
    },
  },
  {
    name: 'POST /getDataRows published page 3 of 20 by order, from 10,000 and from 100,000 rows',
    async run(ctx) {
      const largeId = await seedTenants(ctx);
      // BENCH_DURATION is per measurement: each of the 40 here (10 orders, 4 sides) gets about a third of it, at least 3 one-second turns.
      const rounds = Math.max(3, Math.round(DURATION_S / 3));
      const url = `${ctx.service.url}${ctx.basePath}/getDataRows`;
      const baseline = await startNode(
        join(ROOT, 'dist/bench/baseline/get-data-rows.js'),
        { DATABASE_URL: ctx.databaseUrl },
        await freePort(),
        '/ready',
      );
      const floor = await startNode(
        join(ROOT, 'dist/bench/baseline/nest-floor.js'),
        { DATABASE_URL: ctx.databaseUrl },
        await freePort(),
        '/ready',
      );
      let peer: PostGraphilePeer | undefined;
      try {
        const pageBody = (orderBy: string) => JSON.stringify({ table: 'core_products', isPaging: true, perPage: 20, page: 3, orderBy });
        const target = (base: string, appId: number, orderBy: string) => ({
          url: base,
          headers: { 'site-id': String(appId) },
          body: pageBody(orderBy),
        });
        const sides = (orderBy: string) => [
          target(url, ctx.appId, orderBy),
          target(url, largeId, orderBy),
          target(`${baseline.url}/getDataRows`, largeId, orderBy),
          target(`${floor.url}/getDataRows`, largeId, orderBy),
        ];
        for (const orderBy of ORDERS) {
          for (const t of sides(orderBy)) await checkPage(t.url, Number(t.headers['site-id']), t.body);
        }
        peer = await startPostGraphile(ctx, [ctx.appId, largeId], [3]);
        const versus: PeerPair[] = [
          { label: '10k, page 3 by title', service: serviceTarget(ctx, ctx.appId, [3]), peer: peer.target(ctx.appId, [3]) },
          { label: '100k, page 3 by title', service: serviceTarget(ctx, largeId, [3]), peer: peer.target(largeId, [3]) },
        ];
        // Warm-up: every order in rotation on each side, and PostGraphile's pages, until no side's rate is rising.
        await warmUp([
          ...sides(ORDERS[0]).map((side) => ({
            url: side.url,
            headers: side.headers,
            requests: ORDERS.map((orderBy) => ({ method: 'POST' as const, body: pageBody(orderBy) })),
          })),
          ...versus.map((pair) => pair.peer),
        ]);
        // PostGraphile right after the warm-up: left idle through the orders below, it would be measured cold.
        const versusLines = await versusPostGraphile(ctx, peer, versus, Math.max(3, DURATION_S));

        const lines = [
          `${'order'.padEnd(16)} ${'service, 10,000 rows'.padEnd(28)} ${'service, 100,000 rows'.padEnd(28)} ` +
            `${'raw best SQL, 100,000'.padEnd(28)} 100k/10k  service/raw  bare NestJS/raw  service/bare NestJS (medians of rounds)`,
        ];
        type Worst = { value: number; order: string };
        const worse = (worst: Worst, value: number, order: string): Worst => (value < worst.value ? { value, order } : worst);
        let worstSize: Worst = { value: Infinity, order: '' };
        let worstRaw: Worst = { value: Infinity, order: '' };
        let worstFloor: Worst = { value: Infinity, order: '' };
        let worstVsFloor: Worst = { value: Infinity, order: '' };
        for (const orderBy of ORDERS) {
          const { figures, perRound } = await interleaved(sides(orderBy), rounds);
          const [small, large, raw] = figures;
          // Ratios of the turns of one round (seconds apart), median over the rounds: a burst of other work lands in one round.
          const size = median(perRound.map(([s10k, s100k]) => s100k / s10k));
          const vsRaw = median(perRound.map(([, s100k, r100k]) => s100k / r100k));
          const floorVsRaw = median(perRound.map(([, , r100k, f100k]) => f100k / r100k));
          const vsFloor = median(perRound.map(([, s100k, , f100k]) => s100k / f100k));
          worstSize = worse(worstSize, size, orderBy);
          worstRaw = worse(worstRaw, vsRaw, orderBy);
          worstFloor = worse(worstFloor, floorVsRaw, orderBy);
          worstVsFloor = worse(worstVsFloor, vsFloor, orderBy);
          lines.push(
            `${orderBy.padEnd(16)} ${short(small).padEnd(28)} ${short(large).padEnd(28)} ${short(raw).padEnd(28)} ` +
              `${size.toFixed(2).padStart(8)}  ${vsRaw.toFixed(2).padStart(11)}  ` +
              `${floorVsRaw.toFixed(2).padStart(15)}  ${vsFloor.toFixed(2).padStart(19)}`,
          );
        }
        return [
          ...lines,
          `framework floor: bare NestJS + pg / raw Fastify + pg, same SQL, worst of ${ORDERS.length} orders (${worstFloor.order}): ` +
            `${worstFloor.value.toFixed(2)}`,
          `reference, not a goal (issue 26): service / raw best SQL, 100,000 rows, worst of ${ORDERS.length} ` +
            `orders (${worstRaw.order}): ${worstRaw.value.toFixed(2)}`,
          'against PostGraphile 5 (measured first, interleaved after the warm-up):',
          ...versusLines,
          goal(
            `getDataRows page 3 from 100,000 rows vs from 10,000, worst of ${ORDERS.length} orders (${worstSize.order})`,
            worstSize.value,
            '>=',
            0.7,
          ),
          goal(
            `getDataRows page 3 from 100,000 rows vs framework floor (bare NestJS + pg, same SQL), worst of ${ORDERS.length} orders (${worstVsFloor.order})`,
            worstVsFloor.value,
            '>=',
            0.8,
          ),
        ];
      } finally {
        await Promise.all([baseline.stop(), floor.stop(), peer?.stop()]);
      }
    },
  },
];
