import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { HEAVY_READ, seedManyProducts } from '../heavy-reads';
import { goal, measure, probeLatency, ROOT, startService } from '../lib';
import { Scenario } from './types';

const FLOODERS = 5;
/** Rows of each flooding tenant: enough that a heavy read on them takes a noticeable time alone, several of them at once seconds. */
const FLOOD_ROWS = Number(process.env.BENCH_FAIRNESS_ROWS ?? 50_000);
const FLOOD_CLIENTS = 25;
const QUIET_CLIENTS = 2;

const HEAVY_READ_BODY = JSON.stringify(HEAVY_READ);
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
    for (const appId of flooders) await seedManyProducts(ctx.databaseUrl, appId, FLOOD_ROWS);
    const service = await startService(env);
    const lines: string[] = [
      `a second instance with the default shares (pool ${env.DB_POOL_SIZE ?? 10}, headroom and priority ` +
        `reserve a fifth of it each); ${FLOOD_ROWS} rows per flooding tenant`,
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
                { url, headers: { 'site-id': String(appId) }, body: HEAVY_READ_BODY },
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
          `${n} flooding tenant${n > 1 ? 's' : ''} (${n * FLOOD_CLIENTS} heavy reads at once): quiet p50 ` +
            `${during.p50.toFixed(1)} ms, p99 ${during.p99.toFixed(1)} ms ` +
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
