import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimitStorage } from './rate-limit.storage';

/** The counters: in Redis under REDIS_KEY_PREFIX with REDIS_URL (shared by all instances), else in process. */
@Module({
  providers: [
    {
      provide: RateLimitStorage,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.redisUrl ? redisStorage(config.redisUrl, `${config.redisKeyPrefix}rl:`) : new MemoryRateLimitStorage(),
    },
  ],
  exports: [RateLimitStorage],
})
class RateLimitStorageModule {}

/** Loaded only with REDIS_URL: an instance without Redis never loads its client (start time and memory saved). */
function redisStorage(url: string, prefix: string): RateLimitStorage {
  const { RedisRateLimitStorage } = require('./redis-rate-limit.storage') as typeof import('./redis-rate-limit.storage');
  return new RedisRateLimitStorage(url, prefix);
}

/**
 * Rate limits on @nestjs/throttler with our storage: the global request limit (RateLimitGuard, an app guard
 * after AppContextGuard) and RateLimitStorage for limits counted by services (auth's abuse limits).
 */
@Global()
@Module({
  imports: [
    RateLimitStorageModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStorageModule],
      inject: [APP_CONFIG, RateLimitStorage],
      useFactory: (config: AppConfig, storage: RateLimitStorage) => ({
        throttlers: [{ ttl: config.rateLimit.windowMs, limit: config.rateLimit.maxRequests }],
        storage,
        // Only a refused request gets a header (Retry-After, set with the 429 in RateLimitGuard), as before.
        setHeaders: false,
      }),
    }),
  ],
  providers: [RateLimitGuard, { provide: APP_GUARD, useExisting: RateLimitGuard }],
  exports: [RateLimitGuard, RateLimitStorageModule],
})
export class RateLimitModule {}
