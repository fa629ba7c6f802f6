import { compare, hash } from 'bcrypt';
import { alternate, combined, DURATION_S, Figures, goal, measure, median, probeLatency, row, startService } from '../lib';
import { BenchContext, Scenario } from './types';

/** The fixtures/bench.json account used for logins. */
const LOGIN = JSON.stringify({ email: 'bench-admin@bench.example.test', password: 'Bench@1234' });
const LOGIN_CONNECTIONS = Number(process.env.BENCH_LOGIN_CONNECTIONS ?? 16);
const GET_APP_CONNECTIONS = 10;
const LOGIN_FLOOD_CONNECTIONS = 64;
/**
 * Seconds of each side's turn in the login comparison: long beside a login's time under load, since each turn loses the
 * logins still in flight at its end.
 */
const LOGIN_TURN_S = 5;

interface BareRate {
  rps: number;
  meanMs: number;
}

/** Verifications per second of the bare library at `cost`, `parallel` at a time (the ceiling a login endpoint can reach). */
async function bareVerifyRate(cost: number, parallel: number, seconds: number): Promise<BareRate> {
  const stored = await hash('Bench@1234', cost);
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  let busyMs = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        if (!(await compare('Bench@1234', stored))) throw new Error('bcrypt verify failed');
        if (Date.now() > deadline) break; // counted like autocannon counts requests: only those done in time
        busyMs += performance.now() - started;
        done++;
      }
    }),
  );
  return { rps: done / seconds, meanMs: busyMs / done };
}

/**
 * A second service process on the same database with the per-account login limits lifted: the bench sends
 * up to 64 logins to one account from one address at once, and attempts in flight count against
 * AUTH_LOGIN_MAX_PER_ACCOUNT until they succeed.
 */
async function startUnlimited(ctx: BenchContext) {
  return startService({ ...ctx.env, AUTH_LOGIN_MAX_PER_ACCOUNT: '1000000000', LOG_LEVEL: 'warn' });
}

export const loginScenario: Scenario = {
  name: 'POST /auth/login (bcrypt)',
  async run(ctx) {
    const cost = Number(ctx.env.BCRYPT_COST ?? 10);
    const server = await startUnlimited(ctx);
    try {
      const target = { url: `${server.url}${ctx.basePath}/auth/login`, headers: { 'site-id': String(ctx.appId) }, body: LOGIN };
      await measure(target, { duration: 2, connections: LOGIN_CONNECTIONS }); // warm-up: the worker threads start with the first login
      // Service and bare library in interleaved turns of LOGIN_TURN_S, the ratio the median of the rounds' ratios
      // (as versusBaseline does). The bare library runs on libuv's thread pool, as many at once as the service gets.
      const rounds = await alternate<Figures | BareRate>(
        [
          () => measure(target, { duration: LOGIN_TURN_S, connections: LOGIN_CONNECTIONS }),
          () => bareVerifyRate(cost, LOGIN_CONNECTIONS, LOGIN_TURN_S),
        ],
        Math.max(3, Math.round(DURATION_S / LOGIN_TURN_S)),
      );
      const service = combined(rounds.map(([s]) => s as Figures));
      const bares = rounds.map(([, b]) => b as BareRate);
      const mean = (pick: (b: BareRate) => number) => bares.reduce((sum, b) => sum + pick(b), 0) / bares.length;
      const bare = { rps: mean((b) => b.rps), meanMs: mean((b) => b.meanMs) };
      const ratio = median(rounds.map(([s, b]) => s.rps / b.rps));
      return [
        row(`service POST /auth/login (${LOGIN_CONNECTIONS} conn)`, service),
        `${`bare bcrypt verify, cost ${cost}, ${LOGIN_CONNECTIONS} parallel`.padEnd(44)} ` +
          `${bare.rps.toFixed(1).padStart(8)} verify/s   mean ${bare.meanMs.toFixed(0)} ms`,
        goal('login rate / bare native verify on all cores (median of interleaved rounds)', ratio, '>=', 0.9),
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
      await probeLatency(getApp, GET_APP_CONNECTIONS, 2); // warm-up
      const alone = await probeLatency(getApp, GET_APP_CONNECTIONS, DURATION_S);
      const [loaded, logins] = await Promise.all([
        probeLatency(getApp, GET_APP_CONNECTIONS, DURATION_S),
        measure(login, { connections: LOGIN_FLOOD_CONNECTIONS }),
      ]);
      const latency = (label: string, f: { p50: number; p99: number; count: number }) =>
        `${label.padEnd(44)} ${(f.count / DURATION_S).toFixed(0).padStart(8)} req/s   p50 ${f.p50.toFixed(2)} ms   p99 ${f.p99.toFixed(2)} ms`;
      const ms = (v: number) => `${v.toFixed(2)} ms`;
      return [
        latency(`/getApp alone (${GET_APP_CONNECTIONS} conn)`, alone),
        latency(`/getApp during the login flood (${GET_APP_CONNECTIONS} conn)`, loaded),
        row(`  concurrent /auth/login (${LOGIN_FLOOD_CONNECTIONS} conn)`, logins),
        goal('/getApp p99 during a 64-connection login flood', loaded.p99, '<', 25, ms),
        goal('/getApp p99 during the flood / quiet p99', loaded.p99 / alone.p99, '<', 2),
      ];
    } finally {
      await server.stop();
    }
  },
};

/** Benchmark scenarios of the auth module. */
export const authScenarios: Scenario[] = [loginScenario, getAppUnderLoginLoadScenario];
