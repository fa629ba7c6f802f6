import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';
import { RateLimitStorage, ThrottlerStorageRecord } from './rate-limit.storage';

/**
 * One hit, atomically: INCR, the window's expiry when none is set (so concurrent first hits cannot lose it),
 * and the throttler's record as windowRecord() builds it in process: totalHits, timeToExpire (s),
 * isBlocked (0/1), timeToBlockExpire (s).
 */
const INCREMENT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
local seconds = math.max(1, math.ceil(ttl / 1000))
if hits > tonumber(ARGV[2]) then return { hits, seconds, 1, seconds } end
return { hits, seconds, 0, 0 }`;

/** DECR only an existing positive count: a key that expired or was reset stays absent. */
const DECREMENT_SCRIPT = `
local hits = tonumber(redis.call('GET', KEYS[1]))
if hits and hits > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

interface RateLimitCommands {
  rateLimitIncrement(key: string, ttl: number, limit: number): Promise<[number, number, number, number]>;
  rateLimitDecrement(key: string): Promise<number>;
}

/** A Redis command that takes longer counts as Redis being unreachable. */
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1000;
/** While Redis is up but not answering commands, how often one command checks whether it answers again. */
const PROBE_INTERVAL_MS = 1000;

type Counters = 'starting' | 'redis' | 'memory';

/**
 * Counters in Redis under REDIS_KEY_PREFIX, shared by all instances, and in this process while Redis is
 * unreachable: a command never waits for a connection (no offline queue) nor longer than
 * COMMAND_TIMEOUT_MS, and after a failure every count goes to in-process counters at once, so limits still
 * hold per instance and requests do not slow down. Counting returns to Redis when the connection is ready
 * again (the process's own counts are dropped: Redis's are the shared truth). Each switch is logged once;
 * ioredis's own errors are only remembered for that line, never printed.
 */
export class RedisRateLimitStorage extends RateLimitStorage implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RateLimitStorage.name);
  private readonly redis: Redis & RateLimitCommands;
  private readonly fallback = new MemoryRateLimitStorage();
  private counters: Counters = 'starting';
  private lastError = '';
  private nextProbeAt = 0;
  private readonly started: Promise<void>;
  private markStarted!: () => void;
  private readonly startTimer: NodeJS.Timeout;
  private closed: Promise<void> | null = null;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    super();
    this.started = new Promise((resolve) => (this.markStarted = resolve));
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Commands in flight when the connection drops fail at once instead of waiting for a reconnect.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    }) as Redis & RateLimitCommands;
    this.redis.defineCommand('rateLimitIncrement', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
    this.redis.defineCommand('rateLimitDecrement', { numberOfKeys: 1, lua: DECREMENT_SCRIPT });
    this.redis.on('error', (error: Error) => (this.lastError = error.message));
    this.redis.on('ready', () => this.switchTo('redis'));
    this.redis.on('close', () => this.switchTo('memory'));
    // A Redis that never answers the connection attempt: count in process after the connect timeout.
    this.startTimer = setTimeout(() => this.counters === 'starting' && this.switchTo('memory'), CONNECT_TIMEOUT_MS + 100);
  }

  /** The first requests count where the others will: wait (about a second at most) for Redis's first answer. */
  onModuleInit(): Promise<void> {
    return this.started;
  }

  increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    return this.use(
      async (redis) => {
        const [totalHits, timeToExpire, isBlocked, timeToBlockExpire] = await redis.rateLimitIncrement(this.prefix + key, ttl, limit);
        return { totalHits, timeToExpire, isBlocked: isBlocked === 1, timeToBlockExpire };
      },
      (memory) => memory.increment(key, ttl, limit),
    );
  }

  decrement(key: string): Promise<void> {
    return this.use(
      async (redis) => void (await redis.rateLimitDecrement(this.prefix + key)),
      (memory) => memory.decrement(key),
    );
  }

  reset(key: string): Promise<void> {
    return this.use(
      async (redis) => void (await redis.del(this.prefix + key)),
      (memory) => memory.reset(key),
    );
  }

  private async use<T>(
    onRedis: (redis: Redis & RateLimitCommands) => Promise<T>,
    inMemory: (memory: MemoryRateLimitStorage) => Promise<T>,
  ): Promise<T> {
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
      this.logger.warn(
        { event: 'rate_limit_store', store: 'memory', err: this.lastError || undefined },
        'Redis unreachable: rate limits counted in this process until it is back',
      );
    } else {
      this.fallback.clear();
      this.logger.log(
        { event: 'rate_limit_store', store: 'redis' },
        previous === 'starting' ? 'Rate limits shared through Redis' : 'Redis reachable again: rate limits shared through Redis',
      );
    }
  }

  /** Idempotent: Nest calls it for each token this instance is registered under (ours and the throttler's). */
  onApplicationShutdown(): Promise<void> {
    this.closed ??= this.close();
    return this.closed;
  }

  private async close(): Promise<void> {
    clearTimeout(this.startTimer);
    this.redis.removeAllListeners('close');
    await this.redis.quit().catch(() => this.redis.disconnect());
    this.fallback.clear();
  }
}
