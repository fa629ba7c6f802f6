import { join } from 'node:path';
import { adminQuery, databaseUrl, ROOT, settling, startService, verdicts } from './lib';
import { scenarios } from './scenarios';
import { BenchContext } from './scenarios/types';

/**
 * `npm run bench`: the service on PostgreSQL (production mode) with fixtures/bench.json seeded, each
 * scenario measured with autocannon against the service and a raw baseline in the same run.
 * BENCH_DURATION (s), BENCH_CONNECTIONS and BENCH_ONLY (a scenario name fragment) tune it.
 */
async function main(): Promise<void> {
  const name = `bench_${Date.now().toString(36)}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = databaseUrl(name);
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: url,
    JWT_ACCESS_SECRET: 'bench-access-0123456789abcdef0123456789abcdef',
    JWT_REFRESH_SECRET: 'bench-refresh-0123456789abcdef0123456789abcdef',
    ENCRYPTION_KEY: '7f1c2a9e4b6d8f0a1c3e5a7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f',
    ENCRYPTION_IV: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    RATE_LIMIT_WINDOW_MS: '60000',
    RATE_LIMIT_MAX_REQUESTS: '100000000',
    // The messaging scenario sends one template to one address thousands of times a second without a bearer.
    NOTIFY_ANON_PER_RECIPIENT: '0',
    NOTIFY_ANON_PER_TEMPLATE: '0',
    // No mail or SMS gateway here (scenarios that send start their own SMTP server): files, as production must be told.
    MAIL_TO_FILES: 'true',
    SMS_TO_FILES: 'true',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    // One tenant against peers that have no tenant share (PostGraphile, the framework floor, the raw handlers) gets
    // the whole pool, as a single-tenant deployment would configure it; the default shares are for many tenants on
    // one pool (test/rate-limit/tenant-fairness.e2e.ts and the "fairness" scenario)
    DB_TENANT_MAX_CONNECTIONS: process.env.DB_TENANT_MAX_CONNECTIONS ?? process.env.DB_POOL_SIZE ?? '10',
    // and no headroom or priority reserve: nothing is counted (the "fairness" scenario starts an instance with the defaults).
    DB_TENANT_HEADROOM: process.env.DB_TENANT_HEADROOM ?? '0',
    DB_PRIORITY_CONNECTIONS: process.env.DB_PRIORITY_CONNECTIONS ?? '0',
  };
  let service;
  try {
    const seed = await runCli(['seed', join(ROOT, 'fixtures/bench.json')], env);
    service = await startService(env);
    const ctx: BenchContext = { service, basePath: '/api/v2', appId: seed.appID, databaseUrl: url, env };
    console.log(
      `platform-service benchmark: ${process.env.BENCH_DURATION ?? 10}s per measurement, ` +
        `${process.env.BENCH_CONNECTIONS ?? 50} connections, node ${process.version}, ` +
        `service pool ${process.env.DB_POOL_SIZE ?? 10} connections, tenant share ${env.DB_TENANT_MAX_CONNECTIONS}\n`,
    );
    for (const scenario of scenarios) {
      if (process.env.BENCH_ONLY && !scenario.name.includes(process.env.BENCH_ONLY)) continue;
      console.log(`## ${scenario.name}`);
      for (const line of await scenario.run(ctx)) console.log(`  ${line}`);
      console.log('');
    }
    console.log('## Goals');
    for (const line of verdicts) console.log(`  ${line}`);
    if (settling.turns)
      console.log(
        `  (after ${settling.unsettled} of ${settling.turns} interleaved turns the machine was still busy ` +
          'when the bench stopped waiting for it: other work was running)',
      );
  } finally {
    await service?.stop();
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

async function runCli(args: string[], env: Record<string, string>): Promise<{ appID: number; ids: Record<string, number[]> }> {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync(process.execPath, [join(ROOT, 'dist/src/cli.js'), ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
