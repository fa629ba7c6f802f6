import { Logger } from '@nestjs/common';
import Redis from 'ioredis';

/**
 * Takes one slot of a tenant's share across instances, atomically: drops the leases that expired (an
 * instance that crashed never gave its slots back), then adds the lease `ARGV[3]` until now + `ARGV[2]` ms
 * unless `ARGV[1]` leases are held. Redis's clock, so the instances' clocks do not matter. 1 taken, 0 full.
 */
const TAKE_SCRIPT = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/**
 * How long a slot counts in Redis without being given back: what a crashed instance's slots cost its
 * tenants. A connection held longer (a transaction beyond every statement timeout) stops counting across
 * instances, never in its own instance.
 */
const LEASE_MS = 15_000;
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1000;
/** Pauses between tries while the tenant's share is full on other instances (doubling up to the last). */
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 100;

interface SlotCommands {
  tenantSlotTake(key: string, max: number, leaseMs: number, lease: string): Promise<number>;
}

/**
 * The cross-instance part of TenantShare: each slot a lease in the tenant's sorted set in Redis (score: when
 * it expires), taken with one EVALSHA and given back without waiting for the answer. A command never waits
 * for a connection (no offline queue) nor longer than COMMAND_TIMEOUT_MS: while Redis cannot answer, `take`
 * answers null and each instance's own limit stands alone. Each switch is logged once.
 */
export class RedisTenantSlots {
  private readonly logger = new Logger('TenantShare');
  private readonly redis: Redis & SlotCommands;
  private shared = true;
  private lastError = '';
  private leases = 0;
  private readonly instance = Math.random().toString(36).slice(2, 10);
  /** Settles at the first connection, or once the connect timeout passed without one. */
  readonly started: Promise<void>;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    }) as Redis & SlotCommands;
    this.redis.defineCommand('tenantSlotTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis.on('error', (error: Error) => (this.lastError = error.message));
    this.started = new Promise((resolve) => {
      this.redis.once('ready', resolve);
      setTimeout(resolve, CONNECT_TIMEOUT_MS + 100).unref();
    });
  }

  /**
   * A lease on one of `max` slots of `appId` across instances, trying again until `deadline` while all are
   * held (then `exhausted()` is thrown); null while Redis cannot be asked.
   */
  async take(appId: number, max: number, deadline: number, exhausted: () => Error): Promise<string | null> {
    const lease = `${this.instance}:${++this.leases}`;
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      if (this.redis.status !== 'ready') return this.inProcess();
      let taken: number;
      try {
        taken = await this.redis.tenantSlotTake(this.key(appId), max, LEASE_MS, lease);
      } catch (error) {
        this.lastError = (error as Error).message;
        return this.inProcess();
      }
      this.sharedAgain();
      if (taken === 1) return lease;
      const left = deadline - Date.now();
      if (left <= 0) throw exhausted();
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }

  /** Gives the lease back; should that fail, it expires by itself. */
  give(appId: number, lease: string): void {
    if (this.redis.status === 'ready') this.redis.zrem(this.key(appId), lease).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private key(appId: number): string {
    return `${this.prefix}tenant:${appId}`;
  }

  private inProcess(): null {
    if (this.shared) {
      this.shared = false;
      this.logger.warn(
        { event: 'tenant_share_store', store: 'memory', err: this.lastError || undefined },
        'Redis unreachable: tenant shares of the pool counted in this process until it is back',
      );
    }
    return null;
  }

  private sharedAgain(): void {
    if (this.shared) return;
    this.shared = true;
    this.logger.log(
      { event: 'tenant_share_store', store: 'redis' },
      'Redis reachable again: tenant shares of the pool counted across instances',
    );
  }
}
