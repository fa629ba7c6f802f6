import { ThrottlerStorage } from '@nestjs/throttler';

/** What the throttler's storage answers per hit (the package does not export the type by name). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The throttler's counters: fixed windows, so a key over its limit stays refused until its window ends
 * (blockDuration is not used: the window is the block). Every hit counts, refused ones included.
 *
 * ThrottlerStorage has only `increment`. The login limit also needs to take a counted attempt back (one that
 * turned out not to be a failure) and to forget an address's failures after a success, so our storages add
 * `decrement` and `reset`.
 */
export abstract class RateLimitStorage implements ThrottlerStorage {
  /** Counts one hit on `key`, opening a window of `ttl` ms when none is open; blocked past `limit` hits. */
  abstract increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord>;
  /**
   * `increment` answered at once, where the counters are in this process (RateLimitGuard then counts a request
   * without a promise); absent where they are not.
   */
  incrementNow?(key: string, ttl: number, limit: number): ThrottlerStorageRecord;
  /** Takes one hit back from the open window; never below zero, never reopens an ended window. */
  abstract decrement(key: string): Promise<void>;
  /** Forgets the key's count. */
  abstract reset(key: string): Promise<void>;
}

/** The throttler's record of a fixed window: `hits` counted, `ttlMs` left; times in seconds, as the throttler's own storage gives them. */
export function windowRecord(hits: number, ttlMs: number, limit: number): ThrottlerStorageRecord {
  const timeToExpire = Math.max(1, Math.ceil(ttlMs / 1000));
  const isBlocked = hits > limit;
  return { totalHits: hits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
}
