import { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { TenantShareExhausted } from './connection-errors';
import { FairShareGate, poolOf, ShareSettings } from './fair-share';
import type { RedisTenantSlots } from './redis-tenant-slots';

/**
 * Each tenant's fair share of the request pool (README "Fair shares and timeouts"). While `n` tenants are
 * active (holding or waiting for a slot), each holds at most min(DB_TENANT_MAX_CONNECTIONS, max(1, floor((P −
 * DB_TENANT_HEADROOM) / n))) connections, where P is DB_POOL_SIZE for authenticated requests and DB_POOL_SIZE −
 * DB_PRIORITY_CONNECTIONS for anonymous ones; the headroom stays free for a tenant that arrives, and the reserve
 * for authenticated requests (FairShareGate has the rules). Further requests wait in a queue of DB_TENANT_QUEUE for at most
 * DB_TENANT_QUEUE_WAIT_MS, then get 503 with Retry-After. The count holds in this process always, and with
 * REDIS_URL the tenant's share counts all instances together as well (leases in Redis, the active tenants of
 * all instances; while Redis is unreachable the process's own count stands alone). The pool takes a slot per
 * request holding connections (tenant-pool.ts); background work runs outside requests and is not counted.
 */
export class TenantShare implements OnModuleInit, OnApplicationShutdown {
  readonly gate: FairShareGate;
  private readonly waitMs: number;

  constructor(
    readonly settings: ShareSettings,
    private readonly cluster: RedisTenantSlots | null,
  ) {
    this.waitMs = settings.waitMs;
    this.gate = new FairShareGate(settings, () => this.exhausted());
  }

  static forConfig(config: AppConfig): TenantShare {
    const { poolSize, tenantMaxConnections, tenantHeadroom, priorityConnections, tenantQueue, tenantQueueWaitMs } = config.database;
    return new TenantShare(
      {
        pool: poolSize,
        headroom: tenantHeadroom,
        cap: tenantMaxConnections,
        priority: priorityConnections,
        queue: tenantQueue,
        waitMs: tenantQueueWaitMs,
      },
      config.redisUrl ? clusterSlots(config.redisUrl, `${config.redisKeyPrefix}db:`) : null,
    );
  }

  /**
   * Whether it limits anything on a pool of `poolSize` connections: not on the embedded database's single
   * connection, nor in a single-tenant setting (no headroom, no priority reserve, a cap of the whole pool and
   * no Redis), where nothing is counted at all.
   */
  limits(poolSize: number): boolean {
    const { cap, headroom, priority } = this.settings;
    return poolSize > 1 && (this.cluster !== null || cap < poolSize || headroom > 0 || priority > 0);
  }

  /**
   * Waits for a slot of `appId`'s share (or throws TenantShareExhausted); `priority` for an authenticated
   * request. Answers the function that gives it back.
   */
  async take(appId: number, priority: boolean): Promise<() => void> {
    const deadline = Date.now() + this.waitMs;
    await this.gate.enter(appId, priority);
    const cluster = this.cluster;
    if (!cluster) return () => this.gate.leave(appId, priority);
    try {
      const lease = await cluster.take(appId, priority, poolOf(this.settings, priority), deadline, () => this.exhausted());
      return () => {
        this.gate.leave(appId, priority);
        if (lease) cluster.give(appId, lease);
      };
    } catch (error) {
      this.gate.leave(appId, priority);
      throw error;
    }
  }

  /** The first requests count where the others will: wait (about a second at most) for Redis's first answer. */
  onModuleInit(): Promise<void> | undefined {
    return this.cluster?.started;
  }

  onApplicationShutdown(): Promise<void> | undefined {
    return this.cluster?.close();
  }

  private exhausted(): TenantShareExhausted {
    return new TenantShareExhausted(Math.max(1, Math.ceil(this.waitMs / 1000)));
  }
}

/** Loaded only with REDIS_URL (as the rate limit's Redis storage is). */
function clusterSlots(url: string, prefix: string): RedisTenantSlots {
  const { RedisTenantSlots } = require('./redis-tenant-slots') as typeof import('./redis-tenant-slots');
  return new RedisTenantSlots(url, prefix);
}
