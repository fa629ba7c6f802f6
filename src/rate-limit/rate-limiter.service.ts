import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MemoryRateLimitStore, RateLimitStore, RedisRateLimitStore } from './rate-limit.store';

export interface Limit {
  max: number;
  windowMs: number;
}

/** Counts hits per key in fixed windows (shared through Redis when REDIS_URL is set) and refuses the excess with 429. */
@Injectable()
export class RateLimiter implements OnApplicationShutdown {
  private readonly store: RateLimitStore;
  private readonly logger = new Logger(RateLimiter.name);

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.store = config.redisUrl ? new RedisRateLimitStore(config.redisUrl, `${config.redisKeyPrefix}rl:`) : new MemoryRateLimitStore();
  }

  /** Counts one hit on `key`; throws 429 with Retry-After once the limit is passed. */
  async consume(key: string, limit: Limit, message = 'Too many requests, please try again later'): Promise<void> {
    let hit;
    try {
      hit = await this.store.hit(key, limit.windowMs);
    } catch (error) {
      // The limiter guards against abuse; an unreachable Redis must not take the whole service down with it.
      this.logger.warn({ err: (error as Error).message }, 'Rate limit store unavailable; request allowed');
      return;
    }
    const { count, resetInMs } = hit;
    if (count > limit.max) {
      const retryAfter = String(Math.max(1, Math.ceil(resetInMs / 1000)));
      throw new ApiError(429, message, undefined, {}, 'Failed', { 'retry-after': retryAfter });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
