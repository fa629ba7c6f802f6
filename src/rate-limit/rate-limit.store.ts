import { LoggerService } from '@nestjs/common';
import Redis from 'ioredis';

export interface Hit {
  /** Hits counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetInMs: number;
}

/** Fixed-window counters. With Redis, all instances share them. */
export interface RateLimitStore {
  /** Counts one hit on `key`, opening a window of `windowMs` when none is open. */
  hit(key: string, windowMs: number): Promise<Hit>;
  /** Takes one hit back (a counted attempt that turned out not to count); never below zero. */
  unhit(key: string): Promise<void>;
  /** Forgets the key's count. */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private sweeps = 0;

  async hit(key: string, windowMs: number): Promise<Hit> {
    const now = Date.now();
    if (++this.sweeps % 1000 === 0) this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetInMs: window.resetAt - now };
  }

  async unhit(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.count > 0) window.count--;
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}

/** INCR and the first request's PEXPIRE in one atomic script, so concurrent first hits cannot lose the expiry. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { count, ttl }`;

/** DECR only an existing positive count: a key that expired or was reset stays absent. */
const UNHIT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count and count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/** A Redis command that takes longer counts as Redis being unreachable. */
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1000;
/** While Redis is up but not answering commands, how often one command checks whether it answers again. */
const PROBE_INTERVAL_MS = 1000;

type Counters = 'starting' | 'redis' | 'memory';

/**
 * Counters in Redis, and in this process while Redis is unreachable: a command never waits for a
 * connection (no offline queue) nor longer than COMMAND_TIMEOUT_MS, and after a failure every count goes
 * to in-process counters at once, so limits still hold per instance and requests do not slow down.
 * Counting returns to Redis when the connection is ready again (the process's own counts are dropped:
 * Redis's are the shared truth). Each switch is logged once; ioredis's own errors are only remembered for
 * that line, never printed.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateLimitStore();
  private counters: Counters = 'starting';
  private lastError = '';
  private nextProbeAt = 0;
  private readonly started: Promise<void>;
  private markStarted!: () => void;
  private readonly startTimer: NodeJS.Timeout;

  constructor(url: string, private readonly prefix: string, private readonly logger: LoggerService) {
    this.started = new Promise((resolve) => (this.markStarted = resolve));
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Commands in flight when the connection drops fail at once instead of waiting for a reconnect.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    this.redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.redis.defineCommand('rateLimitUnhit', { numberOfKeys: 1, lua: UNHIT_SCRIPT });
    this.redis.on('error', (error: Error) => (this.lastError = error.message));
    this.redis.on('ready', () => this.switchTo('redis'));
    this.redis.on('close', () => this.switchTo('memory'));
    // A Redis that never answers the connection attempt: count in process after the connect timeout.
    this.startTimer = setTimeout(() => this.counters === 'starting' && this.switchTo('memory'), CONNECT_TIMEOUT_MS + 100);
  }

  /** Resolves once the first connection attempt has succeeded or failed (at most about a second). */
  whenStarted(): Promise<void> {
    return this.started;
  }

  hit(key: string, windowMs: number): Promise<Hit> {
    return this.use(
      async (redis) => {
        const [count, ttl] = await (redis as unknown as { rateLimitHit(k: string, w: number): Promise<[number, number]> }).rateLimitHit(this.prefix + key, windowMs);
        return { count, resetInMs: ttl };
      },
      (memory) => memory.hit(key, windowMs),
    );
  }

  unhit(key: string): Promise<void> {
    return this.use(
      async (redis) => void (await (redis as unknown as { rateLimitUnhit(k: string): Promise<number> }).rateLimitUnhit(this.prefix + key)),
      (memory) => memory.unhit(key),
    );
  }

  reset(key: string): Promise<void> {
    return this.use(
      async (redis) => void (await redis.del(this.prefix + key)),
      (memory) => memory.reset(key),
    );
  }

  private async use<T>(onRedis: (redis: Redis) => Promise<T>, inMemory: (memory: MemoryRateLimitStore) => Promise<T>): Promise<T> {
    if (this.counters !== 'redis') {
      this.probe();
      return inMemory(this.fallback);
    }
    try {
      return await onRedis(this.redis);
    } catch (error) {
      this.lastError = (error as Error).message;
      this.switchTo('memory');
      return inMemory(this.fallback);
    }
  }

  /** The connection is up but commands failed (timeouts): try one, at most once per PROBE_INTERVAL_MS. */
  private probe(): void {
    const now = Date.now();
    if (this.redis.status !== 'ready' || now < this.nextProbeAt) return;
    this.nextProbeAt = now + PROBE_INTERVAL_MS;
    this.redis.ping().then(
      () => this.switchTo('redis'),
      (error: Error) => (this.lastError = error.message),
    );
  }

  private switchTo(counters: 'redis' | 'memory'): void {
    const previous = this.counters;
    if (previous === counters) return;
    this.counters = counters;
    this.markStarted();
    if (counters === 'memory') {
      this.logger.warn({ event: 'rate_limit_store', store: 'memory', err: this.lastError || undefined }, 'Redis unreachable: rate limits counted in this process until it is back');
    } else {
      void this.fallback.close();
      this.logger.log({ event: 'rate_limit_store', store: 'redis' }, previous === 'starting' ? 'Rate limits shared through Redis' : 'Redis reachable again: rate limits shared through Redis');
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.startTimer);
    this.redis.removeAllListeners('close');
    await this.redis.quit().catch(() => this.redis.disconnect());
    await this.fallback.close();
  }
}
