import { compare, hash } from 'bcrypt';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { DURATION_S, Figures, freePort, measure, ROOT, row, startNode } from '../lib';
import { BenchContext, Scenario } from './types';

/** The fixtures/bench.json account used for logins. */
const LOGIN = JSON.stringify({ email: 'bench-admin@bench.example.test', password: 'Bench@1234' });
const LOGIN_CONNECTIONS = Number(process.env.BENCH_LOGIN_CONNECTIONS ?? 16);
const GET_APP_CONNECTIONS = 10;

/** Verifications per second of the bare library at `cost`, `parallel` at a time (the ceiling a login endpoint can reach). */
async function bareVerifyRate(cost: number, parallel: number, seconds: number): Promise<{ rps: number; meanMs: number }> {
  const stored = await hash('Bench@1234', cost);
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  let busyMs = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        if (!(await compare('Bench@1234', stored))) throw new Error('bcrypt verify failed');
        busyMs += performance.now() - started;
        done++;
      }
    }),
  );
  return { rps: done / seconds, meanMs: busyMs / done };
}

/**
 * A second service process on the same database with the per-account login limits lifted: the bench sends
 * LOGIN_CONNECTIONS logins to one account from one address at once, and attempts in flight count against
 * AUTH_LOGIN_MAX_PER_ACCOUNT until they succeed.
 */
async function startUnlimited(ctx: BenchContext) {
  return startNode(join(ROOT, 'dist/src/main.js'), { ...ctx.env, AUTH_LOGIN_MAX_PER_ACCOUNT: '1000000000', LOG_LEVEL: 'warn' }, await freePort(), '/health/ready');
}

export const loginScenario: Scenario = {
  name: 'POST /auth/login (bcrypt)',
  async run(ctx) {
    const cost = Number(ctx.env.BCRYPT_COST ?? 10);
    const server = await startUnlimited(ctx);
    try {
      const target = { url: `${server.url}${ctx.basePath}/auth/login`, headers: { 'site-id': String(ctx.appId) }, body: LOGIN };
      await measure(target, { duration: 2, connections: LOGIN_CONNECTIONS }); // warm-up
      const service = await measure(target, { connections: LOGIN_CONNECTIONS });
      const bare = await bareVerifyRate(cost, LOGIN_CONNECTIONS, DURATION_S);
      // The service runs at most cores-1 bcrypt at once (src/auth/bcrypt-slots.ts): the same bound, bare.
      const slots = Math.max(1, availableParallelism() - 1);
      const bounded = await bareVerifyRate(cost, slots, DURATION_S);
      const line = (label: string, r: { rps: number; meanMs: number }) => `${label.padEnd(44)} ${r.rps.toFixed(1).padStart(8)} verify/s   mean ${r.meanMs.toFixed(0)} ms`;
      return [
        row(`service POST /auth/login (${LOGIN_CONNECTIONS} conn)`, service),
        line(`bare bcrypt verify, cost ${cost}, ${LOGIN_CONNECTIONS} parallel`, bare),
        line(`bare verify, ${slots} parallel (service bound)`, bounded),
        `ratio login/bare verify: ${(service.rps / bare.rps).toFixed(2)} unbounded, ${(service.rps / bounded.rps).toFixed(2)} at the service's bound`,
      ];
    } finally {
      await server.stop();
    }
  },
};

export const getAppUnderLoginLoadScenario: Scenario = {
  name: 'POST /getApp while logins saturate the cores',
  async run(ctx) {
    const server = await startUnlimited(ctx);
    try {
      const headers = { 'site-id': String(ctx.appId) };
      const getApp = { url: `${server.url}${ctx.basePath}/getApp`, headers, body: '{}' };
      const login = { url: `${server.url}${ctx.basePath}/auth/login`, headers, body: LOGIN };
      await measure(getApp, { duration: 2, connections: GET_APP_CONNECTIONS }); // warm-up
      const alone = await measure(getApp, { connections: GET_APP_CONNECTIONS });
      const [loaded, logins]: Figures[] = await Promise.all([
        measure(getApp, { connections: GET_APP_CONNECTIONS }),
        measure(login, { connections: LOGIN_CONNECTIONS }),
      ]);
      return [
        row(`/getApp alone (${GET_APP_CONNECTIONS} conn)`, alone),
        row(`/getApp with logins (${GET_APP_CONNECTIONS} conn)`, loaded),
        row(`  concurrent /auth/login (${LOGIN_CONNECTIONS} conn)`, logins),
        `/getApp p99 under login load: ${loaded.p99} ms vs ${alone.p99} ms alone (${alone.p99 ? (loaded.p99 / alone.p99).toFixed(1) : 'n/a'}x)`,
      ];
    } finally {
      await server.stop();
    }
  },
};

/** Benchmark scenarios of the auth module. */
export const authScenarios: Scenario[] = [loginScenario, getAppUnderLoginLoadScenario];
