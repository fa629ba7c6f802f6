import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Piscina } from 'piscina';
import type { BcryptTask } from './bcrypt.worker';

/**
 * bcrypt on a pool of worker threads, one per core, running at the lowest scheduling priority on Linux (nice
 * +19 through piscina's niceIncrement). A login flood thus uses every core, yet the event loop thread, at normal
 * priority, is scheduled first whenever a request arrives, so other requests keep their latency
 * (docs/auth.md "Performance"; at nice +10, /getApp's p99 during a flood was several times its quiet p99).
 * Threads start on
 * demand and end after a minute idle. A comparison whose caller gave up (its client left) before a thread took
 * it is skipped: under a flood, logins whose clients timed out would otherwise cost a core as much as served ones.
 */
export class BcryptPool {
  private readonly pool = new Piscina<BcryptTask, boolean | string | null>({
    // .ts under the test runner (Node strips the types), .js when built
    filename: join(__dirname, `bcrypt.worker${extname(__filename)}`),
    minThreads: 0,
    maxThreads: availableParallelism(),
    idleTimeout: 60_000,
    // nice(2) is per thread on Linux only; elsewhere it would lower the whole process
    niceIncrement: process.platform === 'linux' ? 19 : 0,
  });

  /** `onSkipped` is told of each task skipped because its signal was aborted before a thread took it. */
  constructor(private readonly onSkipped: () => void = () => {}) {}

  /**
   * Whether `plain` matches `hash`. Once `signal` is aborted, a comparison that has not started yet is skipped
   * and this rejects with the signal's reason; one already running finishes (bcrypt cannot be interrupted).
   */
  async compare(plain: string, hash: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.run({ op: 'compare', plain, hash }, signal)) as boolean;
  }

  async hash(plain: string, cost: number): Promise<string> {
    return (await this.run({ op: 'hash', plain, cost })) as string;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }

  /**
   * Not piscina's own `signal` option: aborting a task that already runs terminates its thread. A flag shared
   * with the worker instead, which it reads when the task starts.
   */
  private async run(task: BcryptTask, signal?: AbortSignal): Promise<boolean | string> {
    if (!signal) return (await this.pool.run(task))!;
    if (signal.aborted) return this.skip(signal);
    const cancelled = new Int32Array(new SharedArrayBuffer(4));
    const cancel = () => Atomics.store(cancelled, 0, 1);
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const result = await this.pool.run({ ...task, cancelled });
      return result ?? this.skip(signal);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  private skip(signal: AbortSignal): never {
    this.onSkipped();
    throw signal.reason;
  }
}
