import { OnApplicationShutdown } from '@nestjs/common';
import { RateLimitStorage, ThrottlerStorageRecord, windowRecord } from './rate-limit.storage';

/** Fixed-window counters in this process (no REDIS_URL, or while Redis is unreachable). */
export class MemoryRateLimitStorage extends RateLimitStorage implements OnApplicationShutdown {
  private readonly windows = new Map<string, { hits: number; endsAt: number }>();
  private increments = 0;

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    return this.incrementNow(key, ttl, limit);
  }

  override incrementNow(key: string, ttl: number, limit: number): ThrottlerStorageRecord {
    const now = Date.now();
    if (++this.increments % 1000 === 0) this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { hits: 0, endsAt: now + ttl };
      this.windows.set(key, window);
    }
    window.hits++;
    return windowRecord(window.hits, window.endsAt - now, limit);
  }

  async decrement(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.hits > 0) window.hits--;
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  clear(): void {
    this.windows.clear();
  }

  onApplicationShutdown(): void {
    this.clear();
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}
