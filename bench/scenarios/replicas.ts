import { Client } from 'pg';
import { PgBouncer } from '../../test/support/pgbouncer';
import { ReplicaPair } from '../../test/support/replica';
import { DURATION_S, interleaved, median, row, Server, startService, Target, warmUp } from '../lib';
import { seedProducts } from './content';
import { Scenario } from './types';

const PRODUCTS = 10_000;
/** The pages in rotation, as the published page scenario (content.ts). */
const PAGES = [1, 25, 250];

/**
 * `replicas` (issue 40): the published page of 20 from 10,000 rows, as "POST /getDataRows published page" measures it,
 * served three ways from one PostgreSQL 15 primary and its streaming replica (test/support/replica.ts, no apply delay),
 * each by an instance of its own: DATABASE_URL straight to the primary (prepared statements, the timeout a startup
 * parameter); through PgBouncer 1.18 in transaction mode (test/support/pgbouncer.ts: no prepared statements, the
 * timeout set with each statement); and straight to the primary with DATABASE_REPLICA_URLS naming the replica, whose
 * pool (DB_REPLICA_POOL_SIZE) is as large as the request pool here. Warmed up together, then measured in interleaved
 * one-second turns; the ratios are medians of the rounds' ratios.
 */
export const replicasScenario: Scenario = {
  name: 'replicas: published page of 20 from 10,000 rows, direct, through PgBouncer and from a replica',
  async run(ctx) {
    const pair = await ReplicaPair.start({ applyDelayMs: 0 });
    let bouncer: PgBouncer | undefined;
    const servers: Server[] = [];
    try {
      const name = 'bench';
      await pair.createDatabase(name);
      const direct = pair.primary.url(name);
      const env = { ...ctx.env, DATABASE_URL: direct };
      servers.push(await startService(env)); // migrates the new database
      const client = new Client({ connectionString: direct });
      await client.connect();
      let appId: number;
      try {
        appId = (
          await client.query(`INSERT INTO core_sites (name, domain) VALUES ('Bench replicas', 'bench-replicas.example.test') RETURNING id`)
        ).rows[0].id;
        await seedProducts(client, appId, PRODUCTS);
      } finally {
        await client.end();
      }
      await pair.caughtUp(60_000);
      bouncer = await PgBouncer.start({ server: pair.primary.url() });
      servers.push(await startService({ ...env, DATABASE_URL: bouncer.url(direct), DATABASE_DIRECT_URL: direct }));
      servers.push(
        await startService({
          ...env,
          DATABASE_REPLICA_URLS: pair.replica.url(name),
          DB_REPLICA_POOL_SIZE: process.env.DB_POOL_SIZE ?? '10',
        }),
      );
      const headers = { 'site-id': String(appId) };
      const requests = PAGES.map((page) => ({
        method: 'POST' as const,
        body: JSON.stringify({ table: 'core_products', isPaging: true, perPage: 20, page }),
      }));
      const targets: Target[] = servers.map((server) => ({ url: `${server.url}${ctx.basePath}/getDataRows`, headers, requests }));
      for (const target of targets) {
        const res = await fetch(target.url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: requests[0].body,
        });
        const page = (await res.json()) as { data?: unknown[] };
        if (!res.ok || page.data?.length !== 20) throw new Error(`${target.url} answered ${res.status} with ${page.data?.length} rows`);
      }
      const warmUpRounds = await warmUp(targets);
      const { figures, perRound } = await interleaved(targets, Math.max(3, DURATION_S));
      const [straight, pooled, replica] = figures;
      // The replica instance's own count: which server answered its published reads, and why.
      const metrics = await (await fetch(`${servers[2].url}/metrics`)).text();
      const served = [...metrics.matchAll(/^db_replica_reads_total\{kind="published_rows",server="([^"]+)",reason="(\w+)"\} (\d+)$/gm)].map(
        ([, server, reason, count]) => `${server === 'primary' ? 'primary' : 'replica'} (${reason}) ${count}`,
      );
      return [
        row('direct to the primary', straight),
        row('through PgBouncer (transaction mode)', pooled),
        row('from the replica', replica),
        `through PgBouncer / direct: ${median(perRound.map(([d, p]) => p / d)).toFixed(2)} (throughput, median of ${perRound.length} rounds)`,
        `from the replica / direct: ${median(perRound.map(([d, , r]) => r / d)).toFixed(2)} (throughput, median of ${perRound.length} rounds)`,
        `the replica instance's published reads: ${served.join(', ')}; warm-up ${warmUpRounds} rounds`,
      ];
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await bouncer?.stop();
      await pair.stop();
    }
  },
};
