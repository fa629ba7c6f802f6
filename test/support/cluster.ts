import { ChildProcess, execSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { Agent, createServer, IncomingHttpHeaders, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort, SmtpPeer } from '../messaging/support/smtp-peer';
import { dropDatabase } from './database';
import type { DoubleWebhook } from '../../src/cli/payment-double';
import { PaymentPeer } from './payment-peer';
import { PgBouncer } from './pgbouncer';
import { ReplicaPair } from './replica';
import { createTestDatabase, startTestApp, TEST_ENV, TestApp } from './test-app';
import { SERVICE_ENTRY } from '../../src/service-process';

const ROOT = join(__dirname, '..', '..');
/** The built service, as `npm run start:prod` runs it. */
export const SERVICE_MAIN = join(ROOT, SERVICE_ENTRY);

/** The response header the proxy adds: the index of the instance that answered. */
export const INSTANCE_HEADER = 'x-cluster-instance';
/** A request header the proxy takes off: the index of the instance the request goes to, out of turn. */
export const PIN_HEADER = 'x-cluster-pin';

/** The newest modification time of the files under `dir`. */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);
}

/**
 * `npm test` builds first (pretest); a run of the files that start the built service alone builds (`npm run
 * build`: tsc, then the bundle) when the bundle is older than src/. The build's start is remembered for the
 * next files of the run: a source saved unchanged is not emitted again.
 */
export function ensureBuilt(): void {
  const sources = newest(join(ROOT, 'src'));
  const bundled = statSync(join(ROOT, 'dist/bundle/service.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (existsSync(SERVICE_MAIN) && (bundled >= sources || Number(process.env.CLUSTER_TEST_BUILT_AT ?? 0) >= sources)) return;
  const at = Date.now();
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' }); // package.json's build: nest build, then the bundle
  process.env.CLUSTER_TEST_BUILT_AT = String(at);
}

/** One request the proxy passed on: which instance answered it, and how. */
export interface Routed {
  instance: number;
  method: string;
  path: string;
  status: number;
}

// Hop-by-hop headers (RFC 9110 7.6.1) are the proxy's own business on each side, never forwarded.
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out = { ...headers };
  for (const name of HOP_BY_HOP) delete out[name];
  return out;
}

/**
 * A round-robin HTTP load balancer on 127.0.0.1: each request goes to the next backend in turn (or, out of turn,
 * to the one its `x-cluster-pin` header names), with X-Forwarded-For and X-Forwarded-Proto as a load balancer sets
 * them; each answer carries `x-cluster-instance` (the backend's index) and is recorded in `routed`. A backend that
 * cannot be reached answers 502.
 */
export class RoundRobinProxy {
  readonly routed: Routed[] = [];
  backends: URL[] = [];
  private next = 0;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });

  private constructor(private readonly server: Server) {}

  static async start(): Promise<RoundRobinProxy> {
    const server = createServer();
    const proxy = new RoundRobinProxy(server);
    server.on('request', (req, res) => {
      if (proxy.backends.length === 0) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"Failed","message":"No backend"}');
        return;
      }
      const pinned = req.headers[PIN_HEADER];
      const instance = pinned === undefined ? proxy.next++ % proxy.backends.length : Number(pinned);
      const target = proxy.backends[instance];
      const client = req.socket.remoteAddress ?? '';
      const headers = forwardable(req.headers);
      delete headers[PIN_HEADER];
      headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${client}` : client;
      headers['x-forwarded-proto'] = 'http';
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: proxy.agent },
        (answer) => {
          const status = answer.statusCode ?? 502;
          proxy.routed.push({ instance, method: req.method ?? '', path: (req.url ?? '').split('?')[0], status });
          res.writeHead(status, { ...forwardable(answer.headers), [INSTANCE_HEADER]: String(instance) });
          answer.pipe(res);
        },
      );
      upstream.on('error', (error) => {
        proxy.routed.push({ instance, method: req.method ?? '', path: (req.url ?? '').split('?')[0], status: 502 });
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json', [INSTANCE_HEADER]: String(instance) });
        res.end(JSON.stringify({ status: 'Failed', message: `Bad gateway: ${error.message}` }));
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The instances that answered requests to `path` (all paths without one). */
  instancesFor(path?: string): Set<number> {
    return new Set(this.routed.filter((r) => path === undefined || r.path === path).map((r) => r.instance));
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Children still running when the test process exits (a test that failed before its afterAll) are killed with it. */
const children = new Set<ChildProcess>();
process.once('exit', () => children.forEach((child) => child.kill('SIGKILL')));

/** One built service (SERVICE_MAIN) in a child process on 127.0.0.1. */
export class ServiceProcess {
  /** Everything it wrote to stdout and stderr, in chunks. */
  readonly output: string[] = [];

  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(env: Record<string, string>): Promise<ServiceProcess> {
    const port = await freePort();
    // The child's configuration is `env` and the tests' fixed secrets, nothing of this process's service variables.
    const { DATABASE_URL: _d, REDIS_URL: _r, SMTP_URL: _s, PAYMENT_API_URL: _p, ...inherited } = process.env;
    const child = spawn(process.execPath, [SERVICE_MAIN], {
      env: { ...inherited, ...TEST_ENV, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    const service = new ServiceProcess(child, `http://127.0.0.1:${port}`);
    child.stdout!.on('data', (chunk) => service.output.push(String(chunk)));
    child.stderr!.on('data', (chunk) => service.output.push(String(chunk)));
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) throw new Error(`service exited: ${service.output.join('')}`);
      if (
        await fetch(`${service.url}/health/ready`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return service;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGKILL');
    throw new Error(`service did not start: ${service.output.join('')}`);
  }

  /** Its JSON log lines (other output skipped). */
  logLines(): Record<string, any>[] {
    return this.output
      .join('')
      .split('\n')
      .flatMap((line) => {
        try {
          return [JSON.parse(line)];
        } catch {
          return [];
        }
      });
  }

  /** SIGTERM (graceful shutdown), SIGKILL when it has not exited after `graceMs`. */
  stop(graceMs = 10_000): Promise<void> {
    const { child } = this;
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}

export interface ProxiedResponse {
  status: number;
  headers: Headers;
  body: any;
  /** The index of the instance that answered. */
  instance: number;
}

/**
 * A database for Cluster.start's `database` option, which its caller creates and removes. `url` is direct (the
 * seeder's, `cluster.sql`'s, and the instances' DATABASE_DIRECT_URL when `pooledUrl` is given).
 */
export interface ClusterDatabase {
  name: string;
  url: string;
  /** The instances' DATABASE_URL, e.g. through a transaction-mode pooler; default `url`. */
  pooledUrl?: string;
  /** The instances' DATABASE_REPLICA_URLS. */
  replicaUrls?: string[];
}

/**
 * Where issue 40 runs the service: a PostgreSQL 15 primary and a streaming replica of it replaying `applyDelayMs`
 * late (test/support/replica.ts), a PgBouncer in transaction mode in front of the primary (test/support/pgbouncer.ts),
 * and a new database on them, not migrated: the instances of a cluster started on `database` migrate it as they
 * start. Stop it after the cluster.
 */
export class PooledReplicatedDatabase {
  private constructor(
    readonly pair: ReplicaPair,
    readonly bouncer: PgBouncer,
    readonly database: ClusterDatabase & { pooledUrl: string; replicaUrls: string[] },
  ) {}

  static async start(options: { applyDelayMs?: number; poolSize?: number; name?: string } = {}): Promise<PooledReplicatedDatabase> {
    const pair = await ReplicaPair.start({ applyDelayMs: options.applyDelayMs ?? 300 });
    try {
      const name = options.name ?? 'platform';
      await pair.createDatabase(name);
      const bouncer = await PgBouncer.start({ poolSize: options.poolSize, server: pair.primary.url() });
      const url = pair.primary.url(name);
      return new PooledReplicatedDatabase(pair, bouncer, { name, url, pooledUrl: bouncer.url(url), replicaUrls: [pair.replica.url(name)] });
    } catch (error) {
      await pair.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.bouncer.stop();
    await this.pair.stop();
  }
}

/**
 * The cluster test mode: two (or `instances`) built service processes on one cloned database and one Redis
 * (TEST_REDIS_URL, a key prefix of their own), with the same SMTP peer and payment double, behind a
 * round-robin proxy. The payment double delivers its webhook to the proxy, signed with `webhook.secret`
 * (set it to the tenant's payment_webhook_secret). `seeder` is an in-process application on the same
 * database with no background work and no Redis, for seeding and reading rows only: every request under
 * test goes through `proxy`. With `database` (ClusterDatabase) the instances run on that database instead of a
 * cloned one, through its pooler and with its replicas if it has them; the seeder starts after the instances, which
 * migrate it if it is new.
 */
export class Cluster {
  private constructor(
    readonly database: { name: string; url: string },
    readonly smtp: SmtpPeer,
    readonly payment: PaymentPeer,
    readonly webhook: DoubleWebhook & { reports: string[] },
    readonly proxy: RoundRobinProxy,
    readonly seeder: TestApp,
    readonly instances: ServiceProcess[],
    private readonly ownsDatabase: boolean,
  ) {}

  /** `env` applies to every instance, `perInstance[i]` to instance i only (after `env`). */
  static async start(
    options: {
      env?: Record<string, string>;
      perInstance?: Record<string, string>[];
      instances?: number;
      database?: ClusterDatabase;
    } = {},
  ): Promise<Cluster> {
    ensureBuilt();
    // What is up so far, taken down in reverse order when a later part fails to start.
    const undo: (() => Promise<unknown>)[] = [];
    try {
      const given = options.database;
      const database = given ?? (await createTestDatabase());
      if (!given) undo.push(() => dropDatabase(database.name));
      const smtp = await SmtpPeer.start();
      undo.push(() => smtp.stop());
      const proxy = await RoundRobinProxy.start();
      undo.push(() => proxy.stop());
      const reports: string[] = [];
      const webhook = { url: `${proxy.url}/ecommerce/payment-webhook`, secret: '', report: (line: string) => reports.push(line), reports };
      const payment = await PaymentPeer.start({ webhook });
      undo.push(() => payment.stop());
      const env = {
        DATABASE_URL: given?.pooledUrl ?? database.url,
        ...(given?.pooledUrl ? { DATABASE_DIRECT_URL: given.url } : {}),
        ...(given?.replicaUrls?.length ? { DATABASE_REPLICA_URLS: given.replicaUrls.join(',') } : {}),
        REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_KEY_PREFIX: `test:cluster:${randomBytes(6).toString('hex')}:`,
        SMTP_URL: smtp.url,
        PAYMENT_API_URL: payment.url,
        TRUST_PROXY: 'true',
        ...options.env,
      };
      const started = await Promise.allSettled(
        Array.from({ length: options.instances ?? 2 }, (_, i) => ServiceProcess.start({ ...env, ...options.perInstance?.[i] })),
      );
      const instances = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      undo.push(() => Promise.all(instances.map((i) => i.stop())));
      const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      // After the instances, which have migrated a new database by now.
      const seeder = await startTestApp(
        { NOTIFY_SENDER_ENABLED: 'false', CONTENT_EXPIRY_TICK_MS: '0' },
        { name: database.name, url: database.url },
      );
      undo.push(() => seeder.close());
      proxy.backends = instances.map((i) => new URL(i.url));
      return new Cluster({ name: database.name, url: database.url }, smtp, payment, webhook, proxy, seeder, instances, !given);
    } catch (error) {
      for (const step of undo.reverse()) await step().catch(() => undefined);
      throw error;
    }
  }

  get url(): string {
    return this.proxy.url;
  }

  /** A request through the proxy; JSON bodies are sent and parsed as JSON. */
  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ProxiedResponse> {
    const res = await fetch(`${this.proxy.url}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed, instance: Number(res.headers.get(INSTANCE_HEADER)) };
  }

  post(path: string, body: unknown = {}, headers: Record<string, string> = {}): Promise<ProxiedResponse> {
    return this.request('POST', path, body, headers);
  }

  sql<T = any>(query: string, params: unknown[] = []): Promise<T[]> {
    return this.seeder.dataSource.query(query, params);
  }

  async stop(): Promise<void> {
    await Promise.all(this.instances.map((i) => i.stop()));
    await this.seeder.close();
    await this.proxy.stop();
    await this.payment.stop();
    await this.smtp.stop();
    if (this.ownsDatabase) await dropDatabase(this.database.name);
  }
}
