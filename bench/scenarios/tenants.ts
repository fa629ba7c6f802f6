import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { Client } from 'pg';
import { PgBouncer } from '../../test/support/pgbouncer';
import { ADMIN_URL, adminQuery, BENCH_NODE_FLAGS, cpuSeconds, databaseUrl, freePort, goal, ROOT, Server, startService } from '../lib';
import { Scenario } from './types';

/** Issue 40, part 4: thousands of tenants. BENCH_TENANTS (1000), BENCH_TENANTS_SECONDS (20) and BENCH_TENANTS_CLIENTS (200) tune it. */
const TENANTS = Number(process.env.BENCH_TENANTS ?? 1000);
const SECONDS = Number(process.env.BENCH_TENANTS_SECONDS ?? 20);
const CLIENTS = Number(process.env.BENCH_TENANTS_CLIENTS ?? 200);
/** PgBouncer's server connections to the primary (default_pool_size: one database, one user). */
const POOLER_SIZE = 20;
const INSTANCES = 2;
/** Tenants that warm the instance's code before its memory is read (the rest count as newly cached). */
const WARM_TENANTS = 10;
const ORDERS = 20;
/** The light mix before the full one: the service's own latency, with CPU to spare. */
const LIGHT_CLIENTS = 10;
const LIGHT_SECONDS = 8;

interface SeededTenant {
  appID: number;
  domain: string;
  products: number[];
  orders: string[];
}

interface Tenant extends SeededTenant {
  /** Current price of each product (cents), read once from the database. */
  prices: Map<number, number>;
}

interface Answer {
  status: number;
  body: string;
  ms: number;
}

/**
 * `tenants`: 1,000 tenants seeded through the CLI (`tenants:seed`) on a database of their own; two instances of the
 * built service with DATABASE_URL through PgBouncer in transaction mode (pool 20) and DATABASE_DIRECT_URL straight to
 * PostgreSQL (migrations, the listener), and Redis shared as "Several instances" says. Reports:
 * - memory per cached tenant: the heap in use and RSS of an instance that served every route once for each of
 *   990 tenants, minus those of one that served as many requests to the 10 tenants both were warmed on, over 990;
 *   each reading after full garbage collections asked through the inspector (these two alone run with --inspect);
 * - the mix of 10 clients (the service's own latency), then of 200 clients, over both instances and all tenants (a
 *   random tenant per request): p50/p99 per route, and the CPU it cost the instances, PostgreSQL and the clients;
 * - connections to the primary's database, polled every 100 ms from pg_stat_activity during the run, pooled
 *   (through PgBouncer) and direct (the listeners); PgBouncer's own count of its server connections;
 * - a deploy's migration on the seeded rows: the newest three migrations (when written: 9 indexes built CONCURRENTLY
 *   on core_orders, core_customers and core_tokens, docs/performance.md "Issue 40's figures") reverted and `migrate`
 *   timed applying them again, against a `migrate` with nothing to apply (the process start and the ledger check).
 */
export const tenantsScenario: Scenario = {
  name: 'tenants',
  async run(ctx) {
    const lines: string[] = [];
    const name = `bench_tenants_${Date.now().toString(36)}`;
    await adminQuery(`CREATE DATABASE "${name}"`);
    const direct = databaseUrl(name);
    const base: Record<string, string> = { ...ctx.env, DATABASE_URL: direct };
    // Many tenants on one pool: the service's default shares (the bench's own instance gives its one tenant the whole pool).
    for (const variable of ['DB_TENANT_MAX_CONNECTIONS', 'DB_TENANT_HEADROOM', 'DB_PRIORITY_CONNECTIONS']) delete base[variable];
    const db = new Client({ connectionString: direct, application_name: 'bench-poller' });
    let bouncer: PgBouncer | undefined;
    const instances: Server[] = [];
    try {
      await cli(['migrate'], base);
      const seedStarted = performance.now();
      const seeded = JSON.parse(
        await cli(
          ['tenants:seed', '--count', String(TENANTS), '--orders', String(ORDERS), '--prefix', 'bench', '--password', 'Bench@1234'],
          base,
        ),
      ) as { rows: Record<string, number>; apps: SeededTenant[] };
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      await db.connect();
      const tenants = await withPrices(db, seeded.apps);
      lines.push(
        `seeded ${TENANTS} tenants with one \`tenants:seed\` (one process, one transaction) in ${seedSeconds.toFixed(1)} s: ` +
          Object.entries(seeded.rows)
            .map(([table, n]) => `${n} ${table}`)
            .join(', '),
      );

      bouncer = await PgBouncer.start({ poolSize: POOLER_SIZE, server: ADMIN_URL });
      const env = {
        ...base,
        DATABASE_URL: bouncer.url(direct),
        DATABASE_DIRECT_URL: direct,
        REDIS_URL: process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_KEY_PREFIX: `${name}:`,
        LOG_LEVEL: 'warn',
      };
      // Memory per cached tenant: two instances of their own, one after the other, each started with the inspector,
      // which collects the garbage before each reading. Both are warmed on WARM_TENANTS tenants, then serve the same
      // requests: one for each of the other tenants, the other for the warm tenants again (as many requests, no new
      // tenant). The difference after is what the new tenants keep; before → after of the first alone includes what
      // any requests leave (buffers, compiled code).
      const touched = tenants.slice(WARM_TENANTS);
      const spread = await probeMemory(env, ctx.basePath, tenants.slice(0, WARM_TENANTS), touched, instances);
      const same = await probeMemory(
        env,
        ctx.basePath,
        tenants.slice(0, WARM_TENANTS),
        touched.map((_, i) => tenants[i % WARM_TENANTS]),
        instances,
      );
      const perTenant = (mb: number) => ((mb * 1024) / touched.length).toFixed(1);
      lines.push(
        `memory per cached tenant: ${perTenant(spread.after.heap - same.after.heap)} KB of heap and ` +
          `${perTenant(spread.after.rss - same.after.rss)} KB of RSS ` +
          `(after ${touched.length} new tenants ${spread.after.heap.toFixed(1)} MB heap used, ` +
          `${spread.after.rss.toFixed(0)} MB RSS; after as many requests to ` +
          `${WARM_TENANTS} tenants ${same.after.heap.toFixed(1)} MB, ${same.after.rss.toFixed(0)} MB; each instance warm on ${WARM_TENANTS} tenants: ` +
          `${spread.before.heap.toFixed(1)} and ${same.before.heap.toFixed(1)} MB, ${spread.before.rss.toFixed(0)} and ${same.before.rss.toFixed(0)} MB; ` +
          `each tenant: /getApp, a page, orderStatus and a cart; garbage collected before each reading)`,
      );

      for (let i = 0; i < INSTANCES; i++) instances.push(await startService(env));
      const client = new LoadClient(instances.map((s) => `${s.url}${ctx.basePath}`));
      await client.mix(tenants, 20, 5); // both instances' code warm

      // Light load first: the latency of the service itself, with CPU to spare.
      const light = await client.mix(tenants, LIGHT_CLIENTS, LIGHT_SECONDS);
      lines.push(
        `light mix: ${LIGHT_CLIENTS} clients for ${LIGHT_SECONDS} s: ${(light.total / LIGHT_SECONDS).toFixed(0)} req/s, ${light.failed} failed; ` +
          [...light.routes]
            .map(
              ([route, st]) =>
                `${route.split(' ')[1]} p50 ${at(st.latencies, 0.5).toFixed(1)} / p99 ${at(st.latencies, 0.99).toFixed(1)} ms`,
            )
            .join(', '),
      );

      // The mix: CLIENTS clients over both instances (each request to the next instance), a random tenant per request.
      const poller = new ConnectionPoller(db, name, bouncer);
      poller.start();
      const cpu = new CpuCount(db, name, instances);
      await cpu.begin();
      const run = await client.mix(tenants, CLIENTS, SECONDS);
      const used = await cpu.end();
      const connections = await poller.stop();
      lines.push(
        `mix: ${CLIENTS} clients for ${SECONDS} s over ${INSTANCES} instances and ${TENANTS} tenants (each request a random tenant, to the next instance): ` +
          `${run.total} answers, ${(run.total / SECONDS).toFixed(0)} req/s, ${run.failed} not 2xx or failed`,
      );
      for (const [route, stats] of run.routes) {
        lines.push(
          `  ${route.padEnd(34)} ${String(stats.latencies.length).padStart(7)} answers  p50 ` +
            `${at(stats.latencies, 0.5).toFixed(1).padStart(6)} ms  p99 ` +
            `${at(stats.latencies, 0.99).toFixed(1).padStart(7)} ms${stats.failed ? `  (${stats.failed} failed: ${[...stats.statuses].join(', ')})` : ''}`,
        );
      }
      const per = (seconds: number) => ((seconds * 1000) / run.total).toFixed(2);
      lines.push(
        `CPU during the mix: instances ${used.instances.toFixed(1)} s (${per(used.instances)} ms per request), PostgreSQL's backends of the database ` +
          `${used.database.toFixed(1)} s (${per(used.database)} ms per request), the load clients (this process) ${used.clients.toFixed(1)} s, ` +
          `of ${(SECONDS * used.cores).toFixed(0)} core-seconds on ${used.cores} cores`,
      );
      lines.push(
        `connections to the primary's database during the mix (${connections.samples} samples, every 100 ms): at most ${connections.maxTotal} ` +
          `(pooled through PgBouncer ${connections.maxPooled}, direct ${connections.maxDirect}: ${[...connections.directNames].join(', ') || 'none'}); ` +
          `PgBouncer's server connections at most ${connections.maxPoolerServers}, its clients (the instances' pools) at most ${connections.maxPoolerClients}`,
      );
      lines.push(
        goal(
          `tenants: pooled connections on the primary, ${CLIENTS} clients, ${INSTANCES} instances (pooler size)`,
          connections.maxPooled,
          '<=',
          POOLER_SIZE,
          String,
        ),
      );
      lines.push(
        goal(
          `tenants: all connections on the primary (pooler size + ${INSTANCES} listeners)`,
          connections.maxTotal,
          '<=',
          POOLER_SIZE + INSTANCES,
          String,
        ),
      );
      lines.push(goal(`tenants: failed requests in the mix`, run.failed, '<=', 0, String));
      const routeP99 = Math.max(...[...run.routes.values()].map((s) => at(s.latencies, 0.99)));
      lines.push(
        `slowest route's p99: ${routeP99.toFixed(0)} ms (no goal in the issue: the machine's 2 cores run the ` +
          'clients, both instances, PgBouncer and PostgreSQL)',
      );

      for (const instance of instances.splice(0)) await instance.stop();
      // A deploy's migration on the seeded rows: the last three migrations reverted and applied again, three times, and
      // `migrate` with nothing to apply as often; the best of each (the machine is shared).
      let applying = { out: '', seconds: Infinity };
      let nothing = { out: '', seconds: Infinity };
      for (let round = 0; round < 3; round++) {
        await cli(['migrate:revert', '--count', '3'], base);
        const once = await timed(() => cli(['migrate'], base));
        if (once.seconds < applying.seconds) applying = once;
        const idle = await timed(() => cli(['migrate'], base));
        if (idle.seconds < nothing.seconds) nothing = idle;
      }
      const applied = (JSON.parse(applying.out) as { applied: string[] }).applied;
      lines.push(
        `deploy's migration with ${TENANTS} tenants' rows: \`migrate\` applying ${applied.join(', ')} (the newest three, reverted before each of 3 rounds; ` +
          `on ${seeded.rows.core_orders} orders, ${seeded.rows.core_order_items} items and ${seeded.rows.core_customers} customers) ` +
          `${applying.seconds.toFixed(2)} s; \`migrate\` with nothing to apply ${nothing.seconds.toFixed(2)} s (best of 3 each): ` +
          `the migrations themselves ~${Math.max(0, applying.seconds - nothing.seconds).toFixed(2)} s`,
      );
    } finally {
      for (const instance of instances) await instance.stop();
      await bouncer?.stop();
      await db.end().catch(() => undefined);
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
    return lines;
  },
};

/**
 * An instance of its own with the inspector: warmed with the mix on `warm` for 5 s, then each of `touch` served once
 * (every route of the mix); its memory after a full collection before and after.
 */
async function probeMemory(
  env: Record<string, string>,
  basePath: string,
  warm: Tenant[],
  touch: Tenant[],
  instances: Server[],
): Promise<{ before: { rss: number; heap: number }; after: { rss: number; heap: number } }> {
  const inspectPort = await freePort();
  const probe = await startService(env, undefined, { flags: [...BENCH_NODE_FLAGS, `--inspect=127.0.0.1:${inspectPort}`] });
  instances.push(probe);
  try {
    const alone = new LoadClient([`${probe.url}${basePath}`]);
    await alone.mix(warm, 20, 5);
    const before = await memory(probe, inspectPort);
    await alone.everyTenant(touch, 20);
    return { before, after: await memory(probe, inspectPort) };
  } finally {
    instances.splice(instances.indexOf(probe), 1);
    await probe.stop();
  }
}

/** The built CLI with `env`; its stdout. */
function cli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist/src/cli.js'), ...args],
      { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`cli ${args[0]}: ${stderr || error.message}`)) : resolve(stdout)),
    );
  });
}

async function timed(work: () => Promise<string>): Promise<{ out: string; seconds: number }> {
  const started = performance.now();
  const out = await work();
  return { out, seconds: (performance.now() - started) / 1000 };
}

async function withPrices(db: Client, apps: SeededTenant[]): Promise<Tenant[]> {
  const { rows } = await db.query<{ app_id: number; id: number; price: number }>('SELECT app_id, id, price FROM core_products');
  const prices = new Map<number, Map<number, number>>();
  for (const row of rows) {
    if (!prices.has(row.app_id)) prices.set(row.app_id, new Map());
    prices.get(row.app_id)!.set(row.id, row.price);
  }
  return apps.map((app) => ({ ...app, prices: prices.get(app.appID) ?? new Map() }));
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function at(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

/**
 * Resident memory (from /proc) and V8's heap in use (the service's /metrics), in MB, after a full garbage collection
 * asked through the instance's inspector (`--inspect` on `inspectPort`: HeapProfiler.collectGarbage).
 */
async function memory(server: Server, inspectPort: number): Promise<{ rss: number; heap: number }> {
  const [target] = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  // Several collections, apart: V8 drops the bytecode of functions not run lately only after some of them, and
  // objects kept by weak references and finalizers go in a later one.
  for (let id = 1; id <= 6; id++) {
    await new Promise<void>((resolve) => {
      socket.onmessage = (event) => (JSON.parse(String(event.data)).id === id ? resolve() : undefined);
      socket.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
    });
    await pause(100);
  }
  socket.close();
  await pause(500);
  const line = readFileSync(`/proc/${server.pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const heap = Number(/^nodejs_heap_size_used_bytes\s+(\S+)/m.exec(metrics)?.[1] ?? NaN);
  return { rss: Number(line?.split(/\s+/)[1]) / 1024, heap: heap / 1024 / 1024 };
}

interface RouteStats {
  latencies: number[];
  failed: number;
  statuses: Set<string>;
}

/** Clients that send the mix over keep-alive connections, each request to the next of `bases`. */
class LoadClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1000 });
  private next = 0;

  constructor(private readonly bases: string[]) {}

  /** The same clients, sending to one instance only. */
  only(index: number): LoadClient {
    return new LoadClient([this.bases[index]]);
  }

  /** `clients` clients for `seconds`, each request a random tenant's and route by weight; answers per route, sorted latencies. */
  async mix(
    tenants: Tenant[],
    clients: number,
    seconds: number,
  ): Promise<{ routes: Map<string, RouteStats>; total: number; failed: number }> {
    const routes = new Map<string, RouteStats>();
    const deadline = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (Date.now() < deadline) await this.oneOfMix(tenants[Math.floor(Math.random() * tenants.length)], routes);
      }),
    );
    let total = 0;
    let failed = 0;
    for (const stats of routes.values()) {
      stats.latencies.sort((a, b) => a - b);
      total += stats.latencies.length;
      failed += stats.failed;
    }
    return { routes, total, failed };
  }

  /** Every route of the mix once for each tenant, `clients` tenants at a time. */
  async everyTenant(tenants: Tenant[], clients: number): Promise<void> {
    const routes = new Map<string, RouteStats>();
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < tenants.length) {
          const tenant = tenants[next++];
          await this.getApp(tenant, routes);
          await this.page(tenant, routes);
          await this.orderStatus(tenant, routes);
          await this.cart(tenant, routes);
        }
      }),
    );
    const failed = [...routes.values()].reduce((n, s) => n + s.failed, 0);
    if (failed)
      throw new Error(
        `touching every tenant: ${failed} requests failed (${JSON.stringify([...routes].map(([r, s]) => [r, [...s.statuses]]))})`,
      );
  }

  /** One request of the mix: /getApp 35 %, a published page 30 %, orderStatus 20 %, a cart (createOrder, addCart) 15 %. */
  private oneOfMix(tenant: Tenant, routes: Map<string, RouteStats>): Promise<unknown> {
    const r = Math.random();
    if (r < 0.35) return this.getApp(tenant, routes);
    if (r < 0.65) return this.page(tenant, routes);
    if (r < 0.85) return this.orderStatus(tenant, routes);
    return this.cart(tenant, routes);
  }

  private getApp(tenant: Tenant, routes: Map<string, RouteStats>): Promise<Answer> {
    return this.timed(routes, 'POST /getApp', tenant, 'POST', '/getApp', {});
  }

  private page(tenant: Tenant, routes: Map<string, RouteStats>): Promise<Answer> {
    return this.timed(routes, 'POST /getDataRows (published page)', tenant, 'POST', '/getDataRows', {
      table: 'core_products',
      isPaging: true,
      perPage: 5,
      page: 1 + Math.floor(Math.random() * 2),
      orderBy: 'title ASC',
    });
  }

  private orderStatus(tenant: Tenant, routes: Map<string, RouteStats>): Promise<Answer> {
    const id = tenant.orders[Math.floor(Math.random() * tenant.orders.length)];
    return this.timed(routes, 'GET /ecommerce/orderStatus/:id', tenant, 'GET', `/ecommerce/orderStatus/${encodeURIComponent(id)}`);
  }

  private async cart(tenant: Tenant, routes: Map<string, RouteStats>): Promise<void> {
    const created = await this.timed(routes, 'POST /ecommerce/createOrder', tenant, 'POST', '/ecommerce/createOrder', {
      appID: tenant.appID,
    });
    if (created.status !== 201) return;
    const orderId = (JSON.parse(created.body) as { data: { _id: string } }).data._id;
    const product = tenant.products[Math.floor(Math.random() * tenant.products.length)];
    await this.timed(routes, 'POST /ecommerce/addCart', tenant, 'POST', '/ecommerce/addCart', {
      appID: tenant.appID,
      _orderID: orderId,
      items: [{ productID: product, Qty: 1, Price: tenant.prices.get(product) }],
    });
  }

  private async timed(
    routes: Map<string, RouteStats>,
    route: string,
    tenant: Tenant,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<Answer> {
    const stats = routes.get(route) ?? { latencies: [], failed: 0, statuses: new Set<string>() };
    routes.set(route, stats);
    const answer = await this.send(method, path, tenant, body);
    stats.latencies.push(answer.ms);
    if (answer.status < 200 || answer.status >= 300) {
      stats.failed++;
      stats.statuses.add(answer.status ? String(answer.status) : 'no answer');
    }
    return answer;
  }

  private send(method: 'GET' | 'POST', path: string, tenant: Tenant, body?: unknown): Promise<Answer> {
    const url = new URL(this.bases[this.next++ % this.bases.length] + path);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { 'site-id': String(tenant.appID) };
    if (payload !== undefined)
      Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
    const started = performance.now();
    return new Promise((resolve) => {
      const req = request({ agent: this.agent, host: url.hostname, port: url.port, path: url.pathname, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
        );
      });
      req.on('error', () => resolve({ status: 0, body: '', ms: performance.now() - started }));
      req.end(payload);
    });
  }
}

/** CPU seconds between `begin` and `end`: the instances', the database's backends' (PostgreSQL on this machine) and this process's. */
class CpuCount {
  private start = { instances: 0, clients: 0, backends: new Map<number, number>() };

  constructor(
    private readonly db: Client,
    private readonly database: string,
    private readonly instances: Server[],
  ) {}

  async begin(): Promise<void> {
    this.start = { instances: this.instancesNow(), clients: this.clientsNow(), backends: await this.backendsNow() };
  }

  async end(): Promise<{ instances: number; database: number; clients: number; cores: number }> {
    const backends = await this.backendsNow();
    let database = 0;
    for (const [pid, seconds] of backends) database += seconds - (this.start.backends.get(pid) ?? 0);
    return {
      instances: this.instancesNow() - this.start.instances,
      database,
      clients: this.clientsNow() - this.start.clients,
      cores: availableParallelism(),
    };
  }

  private instancesNow(): number {
    return this.instances.reduce((sum, s) => sum + (cpuSeconds(s.pid) ?? 0), 0);
  }

  private clientsNow(): number {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }

  /** The database's backends (PgBouncer's server connections and the listeners, which stay through the run). */
  private async backendsNow(): Promise<Map<number, number>> {
    const { rows } = await this.db.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [this.database],
    );
    const seconds = new Map<number, number>();
    for (const { pid } of rows) {
      const used = cpuSeconds(pid);
      if (used !== undefined) seconds.set(pid, used);
    }
    return seconds;
  }
}

/** Polls pg_stat_activity for the database's connections (but its own) and PgBouncer's SHOW POOLS, every 100 ms. */
class ConnectionPoller {
  private running?: Promise<void>;
  private stopped = false;
  private readonly figures = {
    samples: 0,
    maxTotal: 0,
    maxPooled: 0,
    maxDirect: 0,
    maxPoolerServers: 0,
    maxPoolerClients: 0,
    directNames: new Set<string>(),
  };

  constructor(
    private readonly db: Client,
    private readonly database: string,
    private readonly bouncer: PgBouncer,
  ) {}

  start(): void {
    this.running = (async () => {
      const admin = await this.bouncer.admin();
      try {
        while (!this.stopped) {
          await this.sample(admin);
          await pause(100);
        }
      } finally {
        await admin.end().catch(() => undefined);
      }
    })();
  }

  async stop(): Promise<ConnectionPoller['figures']> {
    this.stopped = true;
    await this.running;
    return this.figures;
  }

  private async sample(admin: Client): Promise<void> {
    // Direct connections are the ones the service opens itself on DATABASE_DIRECT_URL (named platform-…: the listener,
    // a migration); PgBouncer's server connections carry the name of the client they serve at the moment, or none.
    const { rows } = await this.db.query<{ direct: boolean; application_name: string; n: number }>(
      `SELECT application_name = 'platform-listener' OR application_name LIKE 'platform-migrat%' AS direct, application_name, count(*)::int AS n
         FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() GROUP BY 1, 2`,
      [this.database],
    );
    const direct = rows.filter((r) => r.direct).reduce((n, r) => n + r.n, 0);
    const pooled = rows.filter((r) => !r.direct).reduce((n, r) => n + r.n, 0);
    for (const row of rows) if (row.direct) this.figures.directNames.add(row.application_name);
    const pools = (await admin.query('SHOW POOLS')).rows as Record<string, string>[];
    const mine = pools.filter((p) => p.database === this.database);
    const servers = mine.reduce(
      (n, p) => n + ['sv_active', 'sv_idle', 'sv_used', 'sv_tested', 'sv_login'].reduce((m, k) => m + Number(p[k] ?? 0), 0),
      0,
    );
    const clients = mine.reduce((n, p) => n + Number(p.cl_active ?? 0) + Number(p.cl_waiting ?? 0), 0);
    const f = this.figures;
    f.samples++;
    f.maxTotal = Math.max(f.maxTotal, direct + pooled);
    f.maxPooled = Math.max(f.maxPooled, pooled);
    f.maxDirect = Math.max(f.maxDirect, direct);
    f.maxPoolerServers = Math.max(f.maxPoolerServers, servers);
    f.maxPoolerClients = Math.max(f.maxPoolerClients, clients);
  }
}
