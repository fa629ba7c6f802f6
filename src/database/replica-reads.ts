import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client, Pool, PoolClient } from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { AppConfig } from '../config/app-config';
import { isDatabaseUnavailable, maskedUrl } from './connection-errors';
import { probeDatabaseUrl } from './pooler-probe';
import { PreparedStatementsClient } from './prepared-statements';
import type { RedisWritePositions } from './redis-write-positions';
import { StatementTimeoutClient, StatementTimeoutConfig } from './statement-timeout';
import { TransactionScope } from './transaction-scope';

/**
 * The reads that may come from a replica, one method of ReplicaReads each. Nothing else ever does: every write,
 * every read inside a transaction, every lock, and the reads of payments, refunds, tokens, jobs and cart prices
 * stay on the primary. (A cart's prices are read inside addCart's and createOrder's transaction and written into
 * the items; no later check on the primary guards them, since checkout recomputes the total from the items
 * without looking at the products again, so they are no lag-tolerant read.)
 */
export type ReplicaReadKind = 'published_rows' | 'site';

/**
 * Why a read that could have come from a replica was served by the primary (the `reason` label of
 * db_replica_reads_total): `transaction`, the caller holds one; `read_your_writes`, the client wrote at a WAL
 * position no usable replica has replayed yet; `unknown_position`, that position could not be read (Redis did not
 * answer); `site_changed`, a core_sites change was announced that no usable replica is known to have replayed;
 * `lagging`, every replica lags more than DATABASE_REPLICA_MAX_LAG_MS; `down`, none answers (or none is a replica);
 * `busy`, every replica connection is taken; `failed`, the replica failed this read (then retried here).
 */
export type PrimaryReason =
  'transaction' | 'read_your_writes' | 'unknown_position' | 'site_changed' | 'lagging' | 'down' | 'busy' | 'failed';

/** One replica as the monitor last saw it (for /metrics and tests). */
export interface ReplicaState {
  /** host:port/database of its URL, never its credentials. */
  name: string;
  /** Its last poll answered, as a server in recovery (a streaming replica). */
  up: boolean;
  /** Reads may go to it now: up, polled recently and lagging no more than DATABASE_REPLICA_MAX_LAG_MS. */
  used: boolean;
  /** How far behind the primary it is, in seconds (NaN while down). */
  lagSeconds: number;
}

/** One line of the served-reads count: what kind of read, who served it (a replica's name or `primary`), and why. */
export interface ServedCount {
  kind: ReplicaReadKind;
  server: string;
  reason: 'replica' | PrimaryReason;
  count: number;
}

/** The scope of a read or write, as far as read-your-writes needs it (a RequestContext has these fields). */
interface Requester {
  readonly site?: { readonly id: number } | null;
  readonly principal?: { readonly userId: number; readonly authTable: string } | null;
  readonly ip?: string;
  /** Set on a RequestContext that serves an HTTP request (unset for jobs and commands). */
  readonly response?: unknown;
}

/** How often the monitor asks the primary for its WAL position and each replica for what it has replayed. */
export const REPLICA_POLL_MS = 150;
/** A replica whose last answer is older than this is not used (its state is unknown). */
const STALE_AFTER_MS = 1000;
/** Each poll statement, and a replica's connection, gives up after this. */
const POLL_TIMEOUT_MS = 1000;
/** Primary WAL positions kept to turn a replica's replayed position into a lag in time (one per change). */
const SAMPLES_KEPT = 400;
/** Write positions remembered in this process (beyond it the oldest are dropped). */
const LOCAL_POSITIONS_KEPT = 10_000;
/** A WAL position greater than any: "this client wrote, where is not known", keeping its reads on the primary. */
const UNKNOWN_POSITION = (1n << 64n) - 1n;

/** A pg_lsn text (`16/B374D848`) as a number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** A WAL position as 16 hexadecimal digits: its text order is its numeric order (the Redis script compares text). */
export function lsnKey(lsn: bigint): string {
  return lsn.toString(16).padStart(16, '0');
}

class Replica {
  readonly name: string;
  up = false;
  /** What it had replayed at its last poll. */
  replay = 0n;
  lagMs = Number.POSITIVE_INFINITY;
  polledAt = 0;
  used = false;
  monitor: Client | null = null;
  pool: Pool | null = null;

  constructor(readonly url: string) {
    const parsed = new URL(url);
    this.name = `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  }

  usable(now: number, maxLagMs: number): boolean {
    return this.up && now - this.polledAt < STALE_AFTER_MS && this.lagMs <= maxLagMs;
  }

  busy(): boolean {
    const pool = this.pool!;
    return pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 1);
  }
}

/**
 * Read replicas (DATABASE_REPLICA_URLS; README "Read replicas"), used only for the reads that tolerate a short lag,
 * each through its own method called at its one call site: `publishedRows` (/getDataRows of published content) and
 * `siteLookup` (the tenant lookups the site cache misses). Without replicas both answer `primary()` at once and
 * nothing else runs: no monitor, no connection, no extra statement.
 *
 * Each replica has a small pg Pool (DB_REPLICA_POOL_SIZE, closing idle connections) with the request pool's
 * statement timeout, and a monitor connection: every REPLICA_POLL_MS the primary's `pg_current_wal_lsn()` is read
 * (one connection on DATABASE_URL) and each replica's `pg_last_wal_replay_lsn()`. A replica's lag is how long ago the
 * primary first stood at a position the replica has not replayed (0 when it has replayed the primary's last known
 * position), which, unlike `now() - pg_last_xact_replay_timestamp()`, is not inflated while the primary is idle. A
 * replica lagging more than DATABASE_REPLICA_MAX_LAG_MS, not answering, or failing a read (connection lost,
 * cancelled by recovery) is skipped, and the primary serves, until a poll finds it well again.
 *
 * Read-your-writes (GitLab's database load balancing): once a request's transaction has committed
 * (TransactionalConnection.inTransaction), the primary's `pg_current_wal_lsn()` (at or past that commit) is kept for
 * the client, keyed by its tenant and principal (`p:<app>:<table>:<user>`) and by its address (`a:<address>`: an
 * anonymous client's, and the tenant lookups, which run before the bearer is read). The position lives in this
 * process and, with REDIS_URL, in Redis (keys `<REDIS_KEY_PREFIX>ryw:…`, kept at least 30 s, only the highest), so
 * the client's next request on any instance finds it. A read of that client goes to a replica only once that
 * replica has replayed past it; until then (a few hundred milliseconds) the primary answers. A core_sites change
 * announced by the site cache's notification `fence`s the site lookups the same way, at the primary's position
 * read at the next poll after the notice. Positions are read with one MGET per replica read; without Redis, writes
 * made through another instance are not known to this one.
 */
export class ReplicaReads implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ReplicaReads');
  readonly enabled: boolean;
  /**
   * Tests only: false forgets every client's writes, so a read goes to a replica that has not replayed them
   * (what proves that the lag the tests measure is real). Never set by configuration.
   */
  readYourWrites = true;
  private readonly replicas: Replica[];
  private readonly maxLagMs: number;
  private readonly positionTtlMs: number;
  private primaryMonitor: Pool | null = null;
  /** Primary positions in the order they were first seen, each with when (ascending in both). */
  private samples: { lsn: bigint; at: number }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private next = 0;
  private readonly served = new Map<string, ServedCount>();
  private readonly local = new Map<string, { lsn: bigint; expires: number }>();
  private readonly redis: RedisWritePositions | null;
  /** Fences asked for and not yet placed (by kind: the poll sequence number after which the next sample places it). */
  private readonly fenceRequests = new Map<ReplicaReadKind, number>();
  private readonly fences = new Map<ReplicaReadKind, bigint>();
  private polls = 0;

  constructor(
    private readonly config: AppConfig,
    private readonly requestPool: DataSource | null,
  ) {
    this.replicas = config.replicas.urls.map((url) => new Replica(url));
    this.enabled = this.replicas.length > 0 && requestPool !== null;
    this.maxLagMs = config.replicas.maxLagMs;
    this.positionTtlMs = Math.max(30_000, 2 * this.maxLagMs);
    this.redis = this.enabled && config.redisUrl ? redisPositions(config.redisUrl, `${config.redisKeyPrefix}ryw:`) : null;
  }

  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    const primaryUrl = this.config.databaseUrl!;
    this.primaryMonitor = new Pool({
      connectionString: primaryUrl,
      max: 1,
      application_name: 'platform-replica-monitor',
      connectionTimeoutMillis: POLL_TIMEOUT_MS,
      query_timeout: POLL_TIMEOUT_MS,
      idleTimeoutMillis: 0,
    });
    this.primaryMonitor.on('error', () => undefined);
    await Promise.all(this.replicas.map((replica) => this.openPool(replica)));
    await this.redis?.started;
    await this.tick();
    this.timer = setInterval(() => void this.tick(), REPLICA_POLL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const closing: Promise<unknown>[] = [];
    for (const replica of this.replicas) {
      if (replica.monitor) closing.push(replica.monitor.end().catch(() => undefined));
      if (replica.pool) closing.push(replica.pool.end().catch(() => undefined));
      replica.monitor = null;
    }
    if (this.primaryMonitor) closing.push(this.primaryMonitor.end().catch(() => undefined));
    if (this.redis) closing.push(this.redis.close());
    await Promise.all(closing);
  }

  /** A /getDataRows read of published content (no transaction): from a replica when one may serve it, else `primary()`. */
  publishedRows<Row>(scope: TransactionScope, sql: string, params: unknown[] | undefined, primary: () => Promise<Row[]>): Promise<Row[]> {
    return this.read('published_rows', scope, sql, params, primary);
  }

  /** A core_sites row the site cache missed (tenant resolution): from a replica when one may serve it, else `primary()`. */
  siteLookup<Row>(scope: TransactionScope, sql: string, params: unknown[], primary: () => Promise<Row[]>): Promise<Row[]> {
    return this.read('site', scope, sql, params, primary);
  }

  /**
   * After a request's transaction committed: keeps the primary's WAL position for the client (read-your-writes).
   * One statement on the request pool and, with Redis, one script; a failure keeps the client on the primary for
   * the positions' lifetime rather than fail the request. Nothing without replicas, nor for work outside a request.
   */
  async committed(scope: TransactionScope): Promise<void> {
    if (!this.enabled) return;
    const keys = this.keysOf(scope as Requester);
    if (keys.length === 0) return;
    let lsn = UNKNOWN_POSITION;
    try {
      const pool = (this.requestPool!.driver as PostgresDriver).master as Pool;
      // The insert position: at or past the end of the commit record even with synchronous_commit off, where the
      // write position (pg_current_wal_lsn) may still be short of it.
      const { rows } = await pool.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
      lsn = parseLsn(rows[0].lsn);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'Could not read the WAL position of a write: the client reads from the primary');
    }
    const expires = Date.now() + this.positionTtlMs;
    for (const key of keys) {
      const known = this.local.get(key);
      this.local.delete(key); // set again below: the Map's order stays the order of last writes
      this.local.set(key, { lsn: known && known.expires > Date.now() && known.lsn > lsn ? known.lsn : lsn, expires });
    }
    if (this.local.size > LOCAL_POSITIONS_KEPT) {
      for (const key of this.local.keys()) {
        this.local.delete(key);
        if (this.local.size <= LOCAL_POSITIONS_KEPT * 0.9) break;
      }
    }
    await this.redis?.record(keys, lsnKey(lsn), this.positionTtlMs);
  }

  /**
   * Reads of `kind` stay on the primary until every replica they use has replayed what the primary had written when
   * this was called (placed at the next poll's primary position). The site cache calls it for each announced
   * core_sites change.
   */
  fence(kind: ReplicaReadKind): void {
    if (this.enabled) this.fenceRequests.set(kind, this.polls);
  }

  /** Each replica as last seen. */
  states(): ReplicaState[] {
    const now = Date.now();
    return this.replicas.map((replica) => ({
      name: replica.name,
      up: replica.up,
      used: replica.usable(now, this.maxLagMs),
      lagSeconds: replica.up ? replica.lagMs / 1000 : Number.NaN,
    }));
  }

  /** Reads served so far, by kind, server and reason. */
  servedCounts(): ServedCount[] {
    return [...this.served.values()].map((count) => ({ ...count }));
  }

  /** Waits until a poll has run that started after this call (tests: the state then reflects the servers' present). */
  async polled(): Promise<void> {
    const target = this.polls + 2;
    while (this.polls < target) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  private async read<Row>(
    kind: ReplicaReadKind,
    scope: TransactionScope,
    sql: string,
    params: unknown[] | undefined,
    primary: () => Promise<Row[]>,
  ): Promise<Row[]> {
    if (!this.enabled) return primary();
    if (scope.manager) return this.onPrimary(kind, 'transaction', primary);
    const choice = await this.choose(kind, scope as Requester);
    if (typeof choice === 'string') return this.onPrimary(kind, choice, primary);
    let rows: Row[];
    try {
      rows = await this.query<Row>(choice, scope, sql, params);
    } catch (error) {
      if (!replicaFault(error)) throw error; // the statement's own failure (bad input, its timeout): as on the primary
      this.failed(choice, error as Error);
      return this.onPrimary(kind, 'failed', primary);
    }
    this.count(kind, choice.name, 'replica');
    return rows;
  }

  private onPrimary<Row>(kind: ReplicaReadKind, reason: PrimaryReason, primary: () => Promise<Row[]>): Promise<Row[]> {
    this.count(kind, 'primary', reason);
    return primary();
  }

  /** A replica that may serve this read now (round robin among them), or why none may. */
  private async choose(kind: ReplicaReadKind, requester: Requester): Promise<Replica | PrimaryReason> {
    const now = Date.now();
    const usable = this.replicas.filter((replica) => replica.usable(now, this.maxLagMs));
    if (usable.length === 0) return this.replicas.some((replica) => replica.up) ? 'lagging' : 'down';
    if (this.fenceRequests.has(kind)) return 'site_changed';
    const fence = this.fences.get(kind) ?? 0n;
    let written: bigint | null = null;
    if (this.readYourWrites) {
      written = await this.positionOf(requester);
      if (written === UNKNOWN_POSITION) return 'unknown_position';
    }
    let reason: PrimaryReason = 'busy';
    for (let i = 0; i < usable.length; i++) {
      const replica = usable[(this.next + i) % usable.length];
      if (replica.replay < fence) {
        reason = 'site_changed';
        continue;
      }
      if (written !== null && replica.replay < written) {
        reason = 'read_your_writes';
        continue;
      }
      if (replica.busy()) continue;
      this.next = (this.next + i + 1) % usable.length;
      return replica;
    }
    return reason;
  }

  /** The highest position the client wrote at (null: none kept), UNKNOWN_POSITION when Redis could not say. */
  private async positionOf(requester: Requester): Promise<bigint | null> {
    const keys = this.keysOf(requester, true);
    if (keys.length === 0) return null;
    const now = Date.now();
    let highest: bigint | null = null;
    for (const key of keys) {
      const known = this.local.get(key);
      if (known && known.expires > now && (highest === null || known.lsn > highest)) highest = known.lsn;
    }
    if (!this.redis) return highest;
    const shared = await this.redis.highest(keys);
    if (shared === undefined) return UNKNOWN_POSITION;
    if (shared !== null) {
      const lsn = BigInt(`0x${shared}`);
      if (highest === null || lsn > highest) highest = lsn;
    }
    return highest;
  }

  /**
   * The keys of the client's write positions: its principal within its tenant, and its address (reads check both:
   * the tenant lookup runs before the bearer is read). Only for HTTP requests (`response` set): jobs and commands
   * have no client to read anything back. `reading`: also an address without a tenant resolved yet.
   */
  private keysOf(requester: Requester, reading = false): string[] {
    if (!requester.response && !reading) return [];
    const keys: string[] = [];
    const principal = requester.principal;
    const appId = requester.site?.id;
    if (principal && appId !== undefined) keys.push(`p:${appId}:${principal.authTable}:${principal.userId}`);
    if (requester.ip) keys.push(`a:${requester.ip}`);
    return keys;
  }

  private async query<Row>(replica: Replica, scope: TransactionScope, sql: string, params: unknown[] | undefined): Promise<Row[]> {
    const unwanted = scope.unwanted;
    if (unwanted) throw unwanted;
    const client: PoolClient = await replica.pool!.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      return (await client.query(sql, params)).rows as Row[];
    } catch (error) {
      throw new QueryFailedError(sql, params, error as Error);
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  private failed(replica: Replica, error: Error): void {
    const wasUsed = replica.used;
    replica.up = false;
    replica.used = false;
    if (wasUsed)
      this.logger.warn({ replica: replica.name, err: error.message }, 'A read replica failed a read: skipped until it answers again');
  }

  private count(kind: ReplicaReadKind, server: string, reason: ServedCount['reason']): void {
    const key = `${kind}\0${server}\0${reason}`;
    const entry = this.served.get(key);
    if (entry) entry.count++;
    else this.served.set(key, { kind, server, reason, count: 1 });
  }

  /**
   * A replica's pool: the request pool's statement timeout, and its prepared statements where the replica's own
   * connection can carry them (the same probe as DATABASE_URL's: pooler-probe.ts; a replica that does not answer
   * at start gets the choice that works everywhere, the timeout per statement and no prepared statements).
   */
  private async openPool(replica: Replica): Promise<void> {
    const timeoutMs = this.config.database.statementTimeoutMs;
    const probe = await probeDatabaseUrl(replica.url, timeoutMs).catch(() => ({ sharedServerConnections: true, startupTimeout: false }));
    const setting = this.config.database.preparedStatements;
    const prepared = setting === 'auto' ? !probe.sharedServerConnections : setting;
    const options: StatementTimeoutConfig & { Client?: unknown; max: number; idleTimeoutMillis: number } = {
      connectionString: replica.url,
      max: this.config.replicas.poolSize,
      idleTimeoutMillis: 10_000,
      connectionTimeoutMillis: POLL_TIMEOUT_MS,
      application_name: 'platform-replica',
    };
    const startup = timeoutMs > 0 && !probe.sharedServerConnections && probe.startupTimeout;
    if (startup) options.statement_timeout = timeoutMs;
    else if (timeoutMs > 0) options.requestStatementTimeoutMs = timeoutMs;
    if (prepared) options.Client = PreparedStatementsClient;
    else if (!startup && timeoutMs > 0) options.Client = StatementTimeoutClient;
    replica.pool = new Pool(options as never);
    replica.pool.on('error', () => undefined); // an idle connection that broke: dropped by the pool
  }

  /** One poll: the primary's position, then each replica's (at once). Never two at a time. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    const poll = this.polls;
    try {
      try {
        // Lags are measured against the write position (a replica that replayed everything stands exactly there);
        // fences are placed at the insert position (past every commit made before, even an asynchronous one).
        const { rows } = await this.primaryMonitor!.query<{ lsn: string; inserted: string }>(
          'SELECT pg_current_wal_lsn()::text AS lsn, pg_current_wal_insert_lsn()::text AS inserted',
        );
        const lsn = parseLsn(rows[0].lsn);
        const inserted = parseLsn(rows[0].inserted);
        const last = this.samples[this.samples.length - 1];
        if (!last || lsn > last.lsn) {
          this.samples.push({ lsn, at: Date.now() });
          if (this.samples.length > SAMPLES_KEPT) this.samples = this.samples.slice(-SAMPLES_KEPT / 2);
        }
        // A fence asked for before this poll began is placed at a position read after it: at or past the change.
        for (const [kind, asked] of this.fenceRequests) {
          if (asked > poll) continue;
          this.fenceRequests.delete(kind);
          const placed = this.fences.get(kind) ?? 0n;
          if (inserted > placed) this.fences.set(kind, inserted);
        }
      } catch {
        // The primary did not answer: lags are measured against the positions known so far.
      }
      await Promise.all(this.replicas.map((replica) => this.pollReplica(replica)));
    } finally {
      this.polls++;
      this.ticking = false;
    }
  }

  private async pollReplica(replica: Replica): Promise<void> {
    try {
      if (!replica.monitor) {
        const monitor = new Client({
          connectionString: replica.url,
          application_name: 'platform-replica-monitor',
          connectionTimeoutMillis: POLL_TIMEOUT_MS,
          query_timeout: POLL_TIMEOUT_MS,
        });
        monitor.on('error', () => undefined);
        replica.monitor = monitor;
        await monitor.connect();
      }
      const { rows } = await replica.monitor.query<{ lsn: string | null; recovery: boolean }>(
        'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS recovery',
      );
      const row = rows[0];
      if (!row.recovery || row.lsn === null) throw new Error('not a streaming replica (not in recovery)');
      replica.replay = parseLsn(row.lsn);
      replica.lagMs = this.lagOf(replica.replay);
      replica.polledAt = Date.now();
      replica.up = true;
    } catch (error) {
      const monitor = replica.monitor;
      replica.monitor = null;
      monitor?.end().catch(() => undefined);
      if (replica.up || replica.used)
        this.logger.warn({ replica: replica.name, err: (error as Error).message }, 'A read replica does not answer');
      replica.up = false;
    }
    const used = replica.usable(Date.now(), this.maxLagMs);
    if (used !== replica.used) {
      replica.used = used;
      this.logger.log(
        { replica: replica.name, lagSeconds: replica.up ? replica.lagMs / 1000 : null },
        used
          ? 'A read replica serves reads'
          : `A read replica is skipped (${replica.up ? 'lagging' : 'down'}): the primary serves its reads`,
      );
    }
  }

  /** How long ago the primary first stood at a position `replay` does not reach; 0 when it reaches the last known one. */
  private lagOf(replay: bigint): number {
    for (const sample of this.samples) if (sample.lsn > replay) return Date.now() - sample.at;
    return 0;
  }

  /** For logs: the replicas' URLs without their passwords. */
  describe(): string {
    return this.replicas.map((replica) => maskedUrl(replica.url)).join(', ');
  }
}

/**
 * Whether a failed replica read says the replica is at fault, so the primary should serve it: the server cannot be
 * reached or went away, the pool had no connection in time, or recovery cancelled the statement (a replayed change
 * conflicted with it: 40001). A statement that fails for its own reasons (bad input, its timeout) fails as it would
 * on the primary.
 */
function replicaFault(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  const driverError = (error as { driverError?: { code?: string } }).driverError;
  return driverError?.code === '40001' || driverError?.code === '25006'; // cancelled by recovery; read-only transaction
}

/** Loaded only with replicas and REDIS_URL (as the tenant share's Redis client is). */
function redisPositions(url: string, prefix: string): RedisWritePositions {
  const { RedisWritePositions } = require('./redis-write-positions') as typeof import('./redis-write-positions');
  return new RedisWritePositions(url, prefix);
}
