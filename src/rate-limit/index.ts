export { RateLimitModule } from './rate-limit.module';
export { RateLimitGuard } from './rate-limit.guard';
export { RateLimitStorage } from './rate-limit.storage';
export { refusedHit } from './rate-limit.errors';
