import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MemoryRateLimitStore, RateLimitStore, RedisRateLimitStore } from './rate-limit.store';

export interface Limit {
  max: number;
  windowMs: number;
}

/**
 * Counts hits per key in fixed windows and refuses the excess with 429. With REDIS_URL the counts are
 * shared through Redis, and kept in this process while Redis is unreachable (rate-limit.store.ts).
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnApplicationShutdown {
  private readonly store: RateLimitStore;
  private readonly redisStore: RedisRateLimitStore | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.redisStore = config.redisUrl ? new RedisRateLimitStore(config.redisUrl, `${config.redisKeyPrefix}rl:`, new Logger(RateLimiter.name)) : null;
    this.store = this.redisStore ?? new MemoryRateLimitStore();
  }

  /** The first requests count where the others will: wait (about a second at most) for Redis's first answer. */
  async onModuleInit(): Promise<void> {
    await this.redisStore?.whenStarted();
  }

  /** Counts one hit on `key`; throws 429 with Retry-After once the limit is passed. */
  async consume(key: string, limit: Limit, message = 'Too many requests, please try again later'): Promise<void> {
    const { count, resetInMs } = await this.store.hit(key, limit.windowMs);
    if (count > limit.max) {
      const retryAfter = String(Math.max(1, Math.ceil(resetInMs / 1000)));
      throw new ApiError(429, message, undefined, {}, 'Failed', { 'retry-after': retryAfter });
    }
  }

  /** Takes back one hit that `consume` counted on `key`. */
  release(key: string): Promise<void> {
    return this.store.unhit(key);
  }

  /** Forgets `key`'s count. */
  reset(key: string): Promise<void> {
    return this.store.reset(key);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
