import { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { TenantShareExhausted } from './connection-errors';
import type { RedisTenantSlots } from './redis-tenant-slots';
import { TenantGate } from './tenant-gate';

/**
 * Each tenant's share of the request pool (README "Fair shares and timeouts"): at most
 * DB_TENANT_MAX_CONNECTIONS connections of one tenant at once; its further requests wait in a queue of
 * DB_TENANT_QUEUE for at most DB_TENANT_QUEUE_WAIT_MS, then get 503 with Retry-After. So one tenant's slow
 * queries cannot take the connections every other tenant needs. The limit holds in this process always, and
 * with REDIS_URL across all instances together as well (leases in Redis; while Redis is unreachable the
 * process's own limit stands alone). The pool takes a slot per request holding connections (tenant-pool.ts).
 */
export class TenantShare implements OnModuleInit, OnApplicationShutdown {
  private readonly gate: TenantGate;

  constructor(
    readonly maxConnections: number,
    private readonly waitMs: number,
    queue: number,
    private readonly cluster: RedisTenantSlots | null,
  ) {
    this.gate = new TenantGate({ perApp: maxConnections, queue, waitMs }, () => this.exhausted());
  }

  static forConfig(config: AppConfig): TenantShare {
    const { tenantMaxConnections, tenantQueue, tenantQueueWaitMs } = config.database;
    return new TenantShare(
      tenantMaxConnections,
      tenantQueueWaitMs,
      tenantQueue,
      config.redisUrl ? clusterSlots(config.redisUrl, `${config.redisKeyPrefix}db:`) : null,
    );
  }

  /**
   * Whether it limits anything on a pool of `poolSize` connections: not when one tenant could not hold more
   * anyway, nor on the embedded database's single connection.
   */
  limits(poolSize: number): boolean {
    return poolSize > 1 && (this.cluster !== null || this.maxConnections < poolSize);
  }

  /** Waits for a slot of `appId`'s share (or throws TenantShareExhausted); answers the function that gives it back. */
  async take(appId: number): Promise<() => void> {
    const deadline = Date.now() + this.waitMs;
    await this.gate.enter(appId);
    const cluster = this.cluster;
    if (!cluster) return () => this.gate.leave(appId);
    try {
      const lease = await cluster.take(appId, this.maxConnections, deadline, () => this.exhausted());
      return () => {
        this.gate.leave(appId);
        if (lease) cluster.give(appId, lease);
      };
    } catch (error) {
      this.gate.leave(appId);
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
