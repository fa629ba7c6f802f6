import { Global, Module } from '@nestjs/common';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter } from './rate-limiter.service';

@Global()
@Module({ providers: [RateLimiter, RateLimitGuard], exports: [RateLimiter, RateLimitGuard] })
export class RateLimitModule {}
