import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { goal, measure, probeLatency, ROOT, startService } from '../lib';
import { Scenario } from './types';

const FLOODERS = 5;
/** Rows of each flooding tenant: a heavy read on them takes ~0.3 s alone here, several of them at once seconds. */
const FLOOD_ROWS = Number(process.env.BENCH_FAIRNESS_ROWS ?? 50_000);
const FLOOD_CLIENTS = 25;
const QUIET_CLIENTS = 2;

/** The heavy anonymous read: twenty `contains` on the unindexed description, ordered by it. */
const HEAVY_READ = JSON.stringify({
  table: 'core_products',
  whereConditions: {
    operator: 'OR',
    conditions: Array.from({ length: 20 }, (_, i) => ({ field: 'description', operator: 'contains', value: `zq${i}x` })),
  },
  orderBy: 'description DESC',
});
const CHEAP_READ = JSON.stringify({ table: 'core_products', isPaging: true, perPage: 5 });

/**
 * Issue 37: a quiet tenant's cheap read (p50, p99) while 1, 2 and 5 other tenants each flood 25 heavy anonymous
 * /getDataRows reads, on a second instance started with the service's default share settings (the bench's own
 * instance gives its one tenant the whole pool). Flooding tenants are made with `tenant:create` and their rows
 * inserted straight through SQL, as test/support/slow-reads.ts does.
 */
export const fairnessScenario: Scenario = {
  name: 'fairness',
  async run(ctx) {
    const env = { ...ctx.env };
    for (const name of ['DB_TENANT_MAX_CONNECTIONS', 'DB_TENANT_HEADROOM', 'DB_PRIORITY_CONNECTIONS']) delete env[name];
    const flooders: number[] = [];
    const stamp = Date.now().toString(36);
    for (let i = 0; i < FLOODERS; i++) {
      const out = execFileSync(
        process.execPath,
        [join(ROOT, 'dist/src/cli.js'), 'tenant:create', '--name', `Flooder ${i}`, '--domain', `flood${i}-${stamp}.bench.test`],
        { env: { ...process.env, ...env }, encoding: 'utf8' },
      );
      flooders.push((JSON.parse(out) as { appID: number }).appID);
    }
    await seedRows(ctx.databaseUrl, flooders, FLOOD_ROWS);
    const service = await startService(env);
    const lines: string[] = [
      `a second instance with the default shares (pool ${env.DB_POOL_SIZE ?? 10}, headroom and priority reserve a fifth of it each); ${FLOOD_ROWS} rows per flooding tenant`,
    ];
    try {
      const url = `${service.url}${ctx.basePath}/getDataRows`;
      const quiet = { url, headers: { 'site-id': String(ctx.appId) }, body: CHEAP_READ };
      await probeLatency(quiet, QUIET_CLIENTS, 2); // warm
      const alone = await probeLatency(quiet, QUIET_CLIENTS, 5);
      lines.push(`quiet tenant alone: p50 ${alone.p50.toFixed(1)} ms, p99 ${alone.p99.toFixed(1)} ms (${alone.count} reads)`);
      const seconds = Math.max(5, Number(process.env.BENCH_DURATION ?? 10));
      for (const n of [1, 2, 5]) {
        const flood = Promise.all(
          flooders
            .slice(0, n)
            .map((appId) =>
              measure(
                { url, headers: { 'site-id': String(appId) }, body: HEAVY_READ },
                { duration: seconds + 3, connections: FLOOD_CLIENTS },
              ),
            ),
        );
        await new Promise((resolve) => setTimeout(resolve, 2000)); // the flood has taken what it can
        const during = await probeLatency(quiet, QUIET_CLIENTS, seconds);
        const floods = await flood;
        const answered = floods.reduce((sum, f) => sum + f.count, 0);
        const refused = floods.reduce((sum, f) => sum + f.non2xx, 0);
        lines.push(
          `${n} flooding tenant${n > 1 ? 's' : ''} (${n * FLOOD_CLIENTS} heavy reads at once): quiet p50 ${during.p50.toFixed(1)} ms, p99 ${during.p99.toFixed(1)} ms ` +
            `(${during.count} reads, ${during.non2xx} not 2xx); flood ${answered} answered, ${refused} of them 503`,
        );
        lines.push(
          goal(`fairness: quiet tenant's cheap read p50 with ${n} flooding tenant(s), ms`, during.p50, '<=', 100, (v) => v.toFixed(1)),
        );
        lines.push(
          goal(`fairness: quiet tenant's cheap read p99 with ${n} flooding tenant(s), ms`, during.p99, '<=', 500, (v) => v.toFixed(1)),
        );
        await new Promise((resolve) => setTimeout(resolve, 6000)); // the last heavy reads end (statement timeout 5 s)
      }
    } finally {
      await service.stop();
    }
    return lines;
  },
};

async function seedRows(url: string, appIds: number[], count: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (const appId of appIds) {
      await client.query('BEGIN');
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO core_products (app_id, title, description, price, tax, bond, "IsDigital", "IsEvent")
         SELECT $1, 'Product ' || g, md5(g::text) || ' description of product ' || g, 1000 + g % 5000, 100, 0, 0, 0 FROM generate_series(1, $2) g
         RETURNING id`,
        [appId, count],
      );
      await client.query(
        `INSERT INTO core_data ("Shop_ID", "Source_Table", "Current_ID", "Master_ID", "IsCurrent", "Status", "Published", "Staged", "Title", "Publish_Set_Date")
         SELECT $1, 'core_products', id, id, 1, 'Published', 1, 1, 'Product', now() - interval '1 day' FROM unnest($2::int[]) id`,
        [appId, rows.map((r) => r.id)],
      );
      await client.query('COMMIT');
    }
    await client.query('ANALYZE core_products, core_data');
  } finally {
    await client.end();
  }
}
