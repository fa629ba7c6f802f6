export interface TenantGateLimits {
  /** Jobs of one app running at once. */
  perApp: number;
  /** Jobs of one app waiting for a turn; one more is refused at once. */
  queue: number;
  /** Longest wait for a turn before the job is refused. */
  waitMs: number;
}

interface Waiter {
  resolve: () => void;
  timer: NodeJS.Timeout;
}

/**
 * A per-app concurrency cap with a bounded FIFO queue (in-process, per instance). A job that finds its
 * app's queue full, or waits longer than `waitMs`, is refused with the error `busy` builds. Used for the
 * request pool's tenant shares (TenantShare) and the notification SQL merges.
 */
export class TenantGate {
  private readonly apps = new Map<number, { running: number; waiting: Waiter[] }>();

  constructor(
    private readonly limits: TenantGateLimits,
    private readonly busy: () => Error,
  ) {}

  async run<T>(appId: number, job: () => Promise<T>): Promise<T> {
    await this.enter(appId);
    try {
      return await job();
    } finally {
      this.leave(appId);
    }
  }

  /** Jobs of `appId` running now (tests and diagnostics). */
  running(appId: number): number {
    return this.apps.get(appId)?.running ?? 0;
  }

  /** Takes a turn of `appId`, waiting in its queue when all are taken; every turn taken is given back with `leave`. */
  enter(appId: number): Promise<void> {
    let state = this.apps.get(appId);
    if (!state) this.apps.set(appId, (state = { running: 0, waiting: [] }));
    if (state.running < this.limits.perApp) {
      state.running++;
      return Promise.resolve();
    }
    if (state.waiting.length >= this.limits.queue) return Promise.reject(this.busy());
    const waiting = state.waiting;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          reject(this.busy());
        }, this.limits.waitMs),
      };
      waiting.push(waiter);
    });
  }

  /** Hands the turn to the next waiter, else frees it. */
  leave(appId: number): void {
    const state = this.apps.get(appId)!;
    const next = state.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve();
      return;
    }
    state.running--;
    if (state.running === 0) this.apps.delete(appId);
  }
}
