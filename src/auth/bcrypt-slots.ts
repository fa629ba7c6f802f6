import { availableParallelism } from 'node:os';

/**
 * At most `size` bcrypt computations at once; the rest wait in line. bcrypt runs on libuv's thread pool
 * (4 threads): unbounded, a burst of logins takes every core and starves the event loop, so every other
 * request waits. One core stays free for the event loop (docs/auth.md "Performance").
 */
export class BcryptSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number = Math.max(1, availableParallelism() - 1)) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
