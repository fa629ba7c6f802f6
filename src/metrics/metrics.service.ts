import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { ReplicaReads } from '../database/replica-reads';
import { TransactionalConnection } from '../database/transactional-connection';

/** The background jobs whose runs are counted (job label). */
export type JobName = 'notification_sender' | 'content_expiry' | 'payment_events' | 'payment_reconcile';
const JOBS: JobName[] = ['notification_sender', 'content_expiry', 'payment_events', 'payment_reconcile'];

/** Why a request was refused with 429 (reason label): `requests` is the global limit per tenant and client address. */
export type RateLimitReason = 'requests';

/** The route label of answers no route matched (404, and 405 for a known path with another method). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Records one answer of a route: its method, status and duration in milliseconds (Fastify's reply.elapsedTime). */
export type RouteRecorder = (method: string, status: number, elapsedMs: number) => void;

/** The outbox as read at scrape time. */
export interface OutboxState {
  pending: number;
  /** Seconds since the oldest Pending row was queued; 0 when none is. */
  oldestAgeSeconds: number;
}

/** The payment events' inbox as read at scrape time (README "Payment events"). */
export interface PaymentEventsState {
  pending: number;
  /** Seconds since the oldest pending event was received; 0 when none is. */
  oldestPendingSeconds: number;
  /** Events given up after PAYMENT_EVENTS_MAX_ATTEMPTS tries: someone has to look at them. */
  failed: number;
}

/** A scrape does not wait longer than this for the outbox query (the pool may be saturated): its gauges read NaN then. */
const PROBE_TIMEOUT_MS = 1000;

/** The pg Pool behind TypeORM's postgres driver (its `master`). */
interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

/**
 * The Prometheus metrics of this instance, on a registry of its own (several apps can share a process: tests,
 * the benchmark). Other modules record into it through this service; gauges of shared state (the database
 * pool, the outbox) are read when /metrics is scraped. Names and labels: README "Operations".
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests by method, route template (unmatched: no route) and status; _count is the request count',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly jobRuns = new Counter({
    name: 'job_runs_total',
    help: 'Background job runs (notification sender rounds, content expiry ticks), failed ones included',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });
  private readonly jobFailures = new Counter({
    name: 'job_failures_total',
    help: 'Background job runs that failed (an error, or the mail server unreachable for a sender round)',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });
  private readonly jobLastSuccess = new Gauge({
    name: 'job_last_success_timestamp_seconds',
    help: 'Unix time at which the job last finished a run without failure on this instance',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });
  private readonly rateLimitRejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 by the request rate limit, by reason and route template',
    labelNames: ['reason', 'route'] as const,
    registers: [this.registry],
  });
  private readonly passwordChecksSkipped = new Counter({
    name: 'password_checks_skipped_total',
    help: 'Password checks (bcrypt) skipped because the client closed its connection while the check waited for a worker thread',
    registers: [this.registry],
  });
  private readonly readsSkipped = new Counter({
    name: 'database_reads_skipped_total',
    help: 'Reads not run because the client closed its connection while the read waited for a connection of the database pool',
    registers: [this.registry],
  });
  private readsSkippedCounted = 0;
  private readonly outboxPending = new Gauge({
    name: 'outbox_pending_notifications',
    help: 'Pending rows of core_notification_log (queued, waiting for a retry, or being sent); the whole database, the same on every instance',
    registers: [this.registry],
  });
  private readonly outboxOldestAge = new Gauge({
    name: 'outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest Pending row of core_notification_log (0 when none); the whole database',
    registers: [this.registry],
  });
  private readonly paymentEvents = {
    pending: this.gauge(
      'payment_events_pending',
      'Payment provider events recorded and not applied yet (core_payment_events pending); the whole database',
    ),
    oldest: this.gauge('payment_events_oldest_pending_age_seconds', 'Age of the oldest pending payment event (0 when none)'),
    failed: this.gauge(
      'payment_events_failed',
      'Payment events given up after PAYMENT_EVENTS_MAX_ATTEMPTS tries (npm run cli -- events:failed); alert when above 0',
    ),
  };
  private readonly pool = {
    total: this.gauge('db_pool_connections', 'Connections the database pool holds (idle and in use)'),
    idle: this.gauge('db_pool_idle_connections', 'Connections of the database pool that are idle'),
    waiting: this.gauge('db_pool_waiting_requests', 'Queries waiting for a connection of the database pool'),
    max: this.gauge('db_pool_max_connections', 'Most connections the database pool opens'),
  };
  /** Read replicas (README "Read replicas"): registered only when DATABASE_REPLICA_URLS names some. */
  private readonly replicaMetrics: ReturnType<MetricsService['replicaGauges']> | null;
  /** The served-reads counts already added to the counter, by label set. */
  private readonly replicaReadsCounted = new Map<string, number>();
  private readonly unmatched: RouteRecorder;
  private outboxReader: (() => Promise<OutboxState>) | null = null;
  private paymentEventsReader: (() => Promise<PaymentEventsState>) | null = null;
  private defaultMetrics = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly connection: TransactionalConnection,
    private readonly replicas: ReplicaReads,
  ) {
    this.replicaMetrics = replicas.enabled ? this.replicaGauges() : null;
    for (const job of JOBS) {
      this.jobRuns.inc({ job }, 0);
      this.jobFailures.inc({ job }, 0);
    }
    this.unmatched = this.routeRecorder(UNMATCHED_ROUTE);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * The recorder of one route template, made once per route when it is registered: it keeps the histogram's
   * child per method and status, so an answer costs two map lookups and one observe.
   */
  routeRecorder(route: string): RouteRecorder {
    const byMethod = new Map<string, Map<number, (seconds: number) => void>>();
    return (method, status, elapsedMs) => {
      let byStatus = byMethod.get(method);
      if (!byStatus) byMethod.set(method, (byStatus = new Map()));
      let observe = byStatus.get(status);
      if (!observe) byStatus.set(status, (observe = this.requestDuration.labels(method, route, String(status)).observe));
      observe(elapsedMs / 1000);
    };
  }

  /** An answer no route matched. */
  recordUnmatched(method: string, status: number, elapsedMs: number): void {
    this.unmatched(method, status, elapsedMs);
  }

  /** A run of a background job ended: `ok` false when it failed. */
  jobFinished(job: JobName, ok: boolean): void {
    this.jobRuns.inc({ job });
    if (ok) this.jobLastSuccess.set({ job }, Date.now() / 1000);
    else this.jobFailures.inc({ job });
  }

  rateLimited(reason: RateLimitReason, route: string): void {
    this.rateLimitRejections.inc({ reason, route });
  }

  passwordCheckSkipped(): void {
    this.passwordChecksSkipped.inc();
  }

  /** How the outbox is read at scrape time (the messaging module owns the table). */
  readOutboxWith(reader: () => Promise<OutboxState>): void {
    this.outboxReader = reader;
  }

  /** How the payment events' inbox is read at scrape time (the orders module owns the table). */
  readPaymentEventsWith(reader: () => Promise<PaymentEventsState>): void {
    this.paymentEventsReader = reader;
  }

  /** The exposition text: the outbox read first, then every metric collected. */
  async scrape(): Promise<string> {
    if (!this.defaultMetrics) {
      // Process and Node metrics (CPU, memory, event loop lag, GC) from the first scrape on: their monitors
      // cannot be stopped, so apps that are never scraped (tests, the CLI) do not start them.
      this.defaultMetrics = true;
      collectDefaultMetrics({ register: this.registry });
    }
    this.readDatabase(); // first: the outbox query may wait for a connection
    this.readReplicas();
    await this.readOutbox();
    await this.readPaymentEvents();
    return this.registry.metrics();
  }

  private replicaGauges() {
    const byReplica = (name: string, help: string) =>
      new Gauge({ name, help, labelNames: ['replica'] as const, registers: [this.registry] });
    return {
      lag: byReplica(
        'db_replica_lag_seconds',
        'How far the replica is behind the primary (its last poll): since when the primary stood at a WAL position ' +
          'it has not replayed; NaN while it does not answer',
      ),
      up: byReplica('db_replica_up', 'Whether the replica answered its last poll as a streaming replica (1) or not (0)'),
      used: byReplica(
        'db_replica_used',
        'Whether reads go to the replica now (1), or it is skipped (0: down, or lagging more than DATABASE_REPLICA_MAX_LAG_MS)',
      ),
      reads: new Counter({
        name: 'db_replica_reads_total',
        help:
          'Lag-tolerant reads (kind: published_rows, site) by the server that served them (a replica, or primary) and why ' +
          '(replica; or the reason the primary served: read_your_writes, site_changed, lagging, down, busy, failed, transaction, unknown_position)',
        labelNames: ['kind', 'server', 'reason'] as const,
        registers: [this.registry],
      }),
    };
  }

  /** The replicas' state and the reads each served since the last scrape. */
  private readReplicas(): void {
    const metrics = this.replicaMetrics;
    if (!metrics) return;
    for (const state of this.replicas.states()) {
      metrics.lag.set({ replica: state.name }, state.lagSeconds);
      metrics.up.set({ replica: state.name }, state.up ? 1 : 0);
      metrics.used.set({ replica: state.name }, state.used ? 1 : 0);
    }
    for (const { kind, server, reason, count } of this.replicas.servedCounts()) {
      const key = `${kind}\0${server}\0${reason}`;
      metrics.reads.inc({ kind, server, reason }, count - (this.replicaReadsCounted.get(key) ?? 0));
      this.replicaReadsCounted.set(key, count);
    }
  }

  private gauge(name: string, help: string): Gauge {
    return new Gauge({ name, help, registers: [this.registry] });
  }

  /** The pool's gauges, and the reads skipped since the last scrape. */
  private readDatabase(): void {
    const pool = this.dataSource.isInitialized ? (this.dataSource.driver as unknown as { master?: PgPool }).master : undefined;
    this.pool.total.set(pool?.totalCount ?? Number.NaN);
    this.pool.idle.set(pool?.idleCount ?? Number.NaN);
    this.pool.waiting.set(pool?.waitingCount ?? Number.NaN);
    this.pool.max.set(pool?.options?.max ?? Number.NaN);
    const skipped = this.connection.readsSkipped;
    this.readsSkipped.inc(skipped - this.readsSkippedCounted);
    this.readsSkippedCounted = skipped;
  }

  private async readOutbox(): Promise<void> {
    const state = this.outboxReader ? await probe(this.outboxReader) : undefined;
    if (state === undefined) return;
    this.outboxPending.set(state?.pending ?? Number.NaN);
    this.outboxOldestAge.set(state?.oldestAgeSeconds ?? Number.NaN);
  }

  private async readPaymentEvents(): Promise<void> {
    const state = this.paymentEventsReader ? await probe(this.paymentEventsReader) : undefined;
    if (state === undefined) return;
    this.paymentEvents.pending.set(state?.pending ?? Number.NaN);
    this.paymentEvents.oldest.set(state?.oldestPendingSeconds ?? Number.NaN);
    this.paymentEvents.failed.set(state?.failed ?? Number.NaN);
  }
}

/** What `reader` answers within PROBE_TIMEOUT_MS, or null (database down or busy: the gauges read NaN rather than a stale value). */
async function probe<T>(reader: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      reader(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('read timed out')), PROBE_TIMEOUT_MS))),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
