import { join } from 'node:path';
import { Client } from 'pg';
import { freePort, measure, ratio, ROOT, row, startNode } from '../lib';
import { BenchContext, Scenario } from './types';

const PRODUCTS = 10_000;

/** 10,000 published products of the bench tenant, each with its core_data row, written straight through pg. */
async function seedProducts(ctx: BenchContext): Promise<void> {
  const client = new Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO core_products (app_id, title, description, price, tax, bond, "IsDigital", "IsEvent")
       SELECT $1, 'Product ' || g, 'Description of product ' || g, 1000 + g, 100, 0, (g % 2)::smallint, (g % 5 = 0)::int::smallint
         FROM generate_series(1, $2) g`,
      [ctx.appId, PRODUCTS],
    );
    await client.query(
      `INSERT INTO core_data ("Shop_ID", "Source_Table", "Current_ID", "Master_ID", "IsCurrent", "Status", "Published", "Staged", "Title", "Publish_Set_Date")
       SELECT app_id, 'core_products', id, id, 1, 'Published', 1, 1, title, now() - interval '1 day' FROM core_products WHERE app_id = $1`,
      [ctx.appId],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE core_products; ANALYZE core_data');
  } finally {
    await client.end();
  }
}

/** Benchmark scenarios of the content module. */
export const contentScenarios: Scenario[] = [
  {
    name: 'POST /getDataRows published page of 20 from 10,000 rows',
    async run(ctx) {
      await seedProducts(ctx);
      const headers = { 'site-id': String(ctx.appId) };
      // Pages 1, 25 and 250 in rotation: the first page, a middle one and one deep in the table.
      const requests = [1, 25, 250].map((page) => ({ method: 'POST' as const, body: JSON.stringify({ table: 'core_products', isPaging: true, perPage: 20, page }) }));
      const baseline = await startNode(join(ROOT, 'dist/bench/baseline/get-data-rows.js'), { DATABASE_URL: ctx.databaseUrl }, await freePort(), '/ready');
      try {
        const check = await fetch(`${ctx.service.url}${ctx.basePath}/getDataRows`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: requests[0].body });
        const sample = (await check.json()) as { data?: unknown[] };
        if (!check.ok || sample.data?.length !== 20) throw new Error(`getDataRows answered ${check.status} with ${sample.data?.length} rows`);
        const url = `${ctx.service.url}${ctx.basePath}/getDataRows`;
        const first = [requests[0]];
        await measure({ url, headers, requests }, { duration: 2 }); // warm-up
        const service1 = await measure({ url, headers, requests: first });
        const raw1 = await measure({ url: `${baseline.url}/getDataRows`, headers, requests: first });
        const serviceMix = await measure({ url, headers, requests });
        const rawMix = await measure({ url: `${baseline.url}/getDataRows`, headers, requests });
        return [
          row('service, page 1', service1),
          row('baseline Fastify+pg same SQL, page 1', raw1),
          ratio(service1, raw1),
          row('service, pages 1/25/250 in rotation', serviceMix),
          row('baseline, pages 1/25/250 in rotation', rawMix),
          ratio(serviceMix, rawMix),
        ];
      } finally {
        await baseline.stop();
      }
    },
  },
];
