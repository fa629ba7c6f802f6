import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { ShareSettings } from './fair-share';

/**
 * Takes one slot of a tenant's fair share across instances, atomically. Keys: KEYS[1] the tenant's leases (all
 * its slots), KEYS[2] its priority leases (authenticated requests; also in KEYS[1]), KEYS[3] the active tenants
 * (member: app id, score: until when it counts as active). It drops what expired (an instance that crashed never
 * gave its slots back), marks the tenant active for at least ARGV[7] ms (it is waiting or holding), computes the
 * share of the active tenants, min(ARGV[2], max(1, floor(ARGV[1] / active))), and adds the lease ARGV[4] until
 * now + ARGV[3] ms unless the tenant's leases of its kind (all for an anonymous request, the priority ones for
 * ARGV[6] = 1) already fill the share. Redis's clock, so the instances' clocks do not matter. 1 taken, 0 full.
 */
const TAKE_SCRIPT = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ms)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ms)
local mark = ms + tonumber(ARGV[7])
if tonumber(redis.call('ZSCORE', KEYS[3], ARGV[5]) or '0') < mark then redis.call('ZADD', KEYS[3], mark, ARGV[5]) end
redis.call('PEXPIRE', KEYS[3], ARGV[3])
local share = math.floor(tonumber(ARGV[1]) / redis.call('ZCARD', KEYS[3]))
if share < 1 then share = 1 end
if share > tonumber(ARGV[2]) then share = tonumber(ARGV[2]) end
local priority = ARGV[6] == '1'
local held
if priority then held = redis.call('ZCARD', KEYS[2]) else held = redis.call('ZCARD', KEYS[1]) end
if held >= share then return 0 end
local expiry = ms + tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], expiry, ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if priority then
  redis.call('ZADD', KEYS[2], expiry, ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
redis.call('ZADD', KEYS[3], expiry, ARGV[5])
return 1`;

/** Gives the lease ARGV[1] back; a tenant left with no lease is no longer active (KEYS as TAKE_SCRIPT's, ARGV[2] its app id). */
const GIVE_SCRIPT = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('ZREM', KEYS[3], ARGV[2]) end
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
/** How long a tenant that tried and found its share full still counts as active (it tries again within LONGEST_PAUSE_MS). */
const WAITING_MARK_MS = 1000;

interface SlotCommands {
  tenantSlotTake(
    leases: string,
    priorityLeases: string,
    tenants: string,
    usable: number,
    cap: number,
    leaseMs: number,
    lease: string,
    appId: number,
    priority: 0 | 1,
    waitingMarkMs: number,
  ): Promise<number>;
  tenantSlotGive(leases: string, priorityLeases: string, tenants: string, lease: string, appId: number): Promise<number>;
}

/**
 * The cross-instance part of TenantShare: each slot a lease in the tenant's sorted set in Redis (score: when
 * it expires), and each tenant holding or waiting a member of the set of active tenants, taken with one
 * EVALSHA and given back with another without waiting for the answer. Keys (under REDIS_KEY_PREFIX + `db:`):
 * `tenant:<appId>` (all the tenant's leases), `tenant:<appId>:priority` (those of authenticated requests) and
 * `tenants` (the active tenants, scored by when they stop counting). A command never waits
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
    this.redis.defineCommand('tenantSlotTake', { numberOfKeys: 3, lua: TAKE_SCRIPT });
    this.redis.defineCommand('tenantSlotGive', { numberOfKeys: 3, lua: GIVE_SCRIPT });
    this.redis.on('error', (error: Error) => (this.lastError = error.message));
    this.started = new Promise((resolve) => {
      this.redis.once('ready', resolve);
      setTimeout(resolve, CONNECT_TIMEOUT_MS + 100).unref();
    });
  }

  /**
   * A lease on a slot of `appId`'s fair share across instances (`priority` for an authenticated request),
   * trying again until `deadline` while the share is full (then `exhausted()` is thrown); null while Redis
   * cannot be asked.
   */
  async take(
    appId: number,
    priority: boolean,
    settings: Pick<ShareSettings, 'pool' | 'headroom' | 'cap'>,
    deadline: number,
    exhausted: () => Error,
  ): Promise<string | null> {
    const lease = `${this.instance}:${++this.leases}`;
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      if (this.redis.status !== 'ready') return this.inProcess();
      let taken: number;
      try {
        const key = this.key(appId);
        taken = await this.redis.tenantSlotTake(
          key,
          `${key}:priority`,
          this.tenantsKey,
          settings.pool - settings.headroom,
          settings.cap,
          LEASE_MS,
          lease,
          appId,
          priority ? 1 : 0,
          WAITING_MARK_MS,
        );
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
    if (this.redis.status !== 'ready') return;
    const key = this.key(appId);
    this.redis.tenantSlotGive(key, `${key}:priority`, this.tenantsKey, lease, appId).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** The active tenants of all instances. */
  private get tenantsKey(): string {
    return `${this.prefix}tenants`;
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
