import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Piscina } from 'piscina';
import type { BcryptTask } from './bcrypt.worker';

/**
 * bcrypt on a pool of worker threads, one per core, running at the lowest scheduling priority on Linux (nice
 * +19 through piscina's niceIncrement). A login flood thus uses every core, yet the event loop thread, at normal
 * priority, is scheduled first whenever a request arrives, so other requests keep their latency
 * (docs/auth.md "Performance"; at +10, /getApp's p99 during a flood was 4–5× its quiet p99). Threads start on
 * demand and end after a minute idle.
 */
export class BcryptPool {
  private readonly pool = new Piscina<BcryptTask, boolean | string>({
    // .ts under the test runner (Node strips the types), .js when built
    filename: join(__dirname, `bcrypt.worker${extname(__filename)}`),
    minThreads: 0,
    maxThreads: availableParallelism(),
    idleTimeout: 60_000,
    // nice(2) is per thread on Linux only; elsewhere it would lower the whole process
    niceIncrement: process.platform === 'linux' ? 19 : 0,
  });

  async compare(plain: string, hash: string): Promise<boolean> {
    return (await this.pool.run({ op: 'compare', plain, hash })) as boolean;
  }

  async hash(plain: string, cost: number): Promise<string> {
    return (await this.pool.run({ op: 'hash', plain, cost })) as string;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
