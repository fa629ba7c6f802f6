/**
 * How the request pool is shared (README "Fair shares and timeouts"): the settings and the in-process count.
 * TenantShare (tenant-share.ts) takes a slot here first and then, with REDIS_URL, a lease across instances.
 */
export interface ShareSettings {
  /** DB_POOL_SIZE: the instance's request pool. */
  pool: number;
  /** DB_TENANT_HEADROOM: connections kept free for a tenant that holds none yet. */
  headroom: number;
  /** DB_TENANT_MAX_CONNECTIONS: the most one tenant holds, however few tenants are active. */
  cap: number;
  /** DB_PRIORITY_CONNECTIONS: connections anonymous requests, all tenants together, never take. */
  priority: number;
  /** DB_TENANT_QUEUE: requests of one tenant that may wait for a slot. */
  queue: number;
  /** DB_TENANT_QUEUE_WAIT_MS: the longest wait for a slot. */
  waitMs: number;
}

/**
 * A tenant's share while `active` tenants (itself included) hold or wait for slots: its fair part of the pool
 * less the headroom, at least 1 (a tenant can always make progress), at most the cap.
 *
 *   share = min(cap, max(1, floor((pool − headroom) / active)))
 *
 * pool 10, headroom 2: one tenant 8, two 4 each, three 2, five and more 1 each.
 */
export function fairShare(settings: Pick<ShareSettings, 'pool' | 'headroom' | 'cap'>, active: number): number {
  return Math.min(settings.cap, Math.max(1, Math.floor((settings.pool - settings.headroom) / Math.max(1, active))));
}

/**
 * The pool as each kind of request sees it: an authenticated (priority) request the whole pool, an anonymous
 * one the pool less the priority reserve. The headroom is kept inside each.
 */
export function poolOf(settings: ShareSettings, priority: boolean): Pick<ShareSettings, 'pool' | 'headroom' | 'cap'> {
  return { pool: priority ? settings.pool : settings.pool - settings.priority, headroom: settings.headroom, cap: settings.cap };
}

interface Waiter {
  priority: boolean;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** One tenant's slots in this process: present while it holds a slot or waits for one (it is active). */
interface TenantSlots {
  /** Slots held, anonymous and priority together. */
  held: number;
  /** Of which priority (an authenticated request). */
  priorityHeld: number;
  /** Waiting priority requests, then anonymous ones, each first come first served. */
  priorityWaiting: Waiter[];
  anonymousWaiting: Waiter[];
}

/**
 * The in-process count of the fair shares. Anonymous requests see a pool of `pool − priority` connections,
 * authenticated (priority) ones the whole pool; in each the last `headroom` connections are for tenants that hold
 * none yet. A request of tenant T gets a slot when:
 * - anonymous: T's slots (of both kinds) < fairShare(pool − priority, active tenants), and the anonymous slots of
 *   all tenants < pool − priority − headroom, or < pool − priority if T holds none (its first slot may use the
 *   headroom);
 * - authenticated: T's priority slots < fairShare(pool, active tenants) (T's own anonymous flood does not keep
 *   them waiting), and all slots < pool − headroom unless T holds no priority slot yet.
 * Otherwise it waits (at most `queue` of one tenant, at most `waitMs`), priority requests first; every slot given
 * back lets the waiters that now fit go, in the order their tenants started waiting. A share that shrinks when
 * a tenant arrives applies to the slots taken from then on: slots already held are never taken back.
 * Without waiters a take or a give is a map lookup and a few counters.
 */
export class FairShareGate {
  private readonly tenants = new Map<number, TenantSlots>();
  /** Tenants with waiters, in the order they started waiting. */
  private readonly waiting = new Set<number>();
  private held = 0;
  private anonymousHeld = 0;
  private readonly anonymousPool: Pick<ShareSettings, 'pool' | 'headroom' | 'cap'>;
  private readonly wholePool: Pick<ShareSettings, 'pool' | 'headroom' | 'cap'>;

  constructor(
    private readonly settings: ShareSettings,
    private readonly busy: () => Error,
  ) {
    this.anonymousPool = poolOf(settings, false);
    this.wholePool = poolOf(settings, true);
  }

  /** Tenants holding or waiting for a slot in this process. */
  get activeTenants(): number {
    return this.tenants.size;
  }

  /** The share each active tenant has now for its anonymous requests (or its authenticated ones). */
  currentShare(priority = false): number {
    return fairShare(priority ? this.wholePool : this.anonymousPool, this.tenants.size);
  }

  /** Slots held in this process: of one tenant, or of all (tests and diagnostics). */
  running(appId?: number): number {
    return appId === undefined ? this.held : (this.tenants.get(appId)?.held ?? 0);
  }

  /** Takes a slot of `appId` (waiting for one when none fits now); every slot taken is given back with `leave`. */
  enter(appId: number, priority: boolean): Promise<void> {
    let tenant = this.tenants.get(appId);
    if (!tenant) this.tenants.set(appId, (tenant = { held: 0, priorityHeld: 0, priorityWaiting: [], anonymousWaiting: [] }));
    // Behind the tenant's own waiters of its kind (a priority request is behind priority ones only).
    const ahead = priority ? tenant.priorityWaiting.length : tenant.priorityWaiting.length + tenant.anonymousWaiting.length;
    if (ahead === 0 && this.fits(tenant, priority)) {
      this.count(tenant, priority, 1);
      return Promise.resolve();
    }
    const queue = priority ? tenant.priorityWaiting : tenant.anonymousWaiting;
    if (tenant.priorityWaiting.length + tenant.anonymousWaiting.length >= this.settings.queue) {
      this.forget(appId, tenant);
      return Promise.reject(this.busy());
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        priority,
        resolve,
        reject,
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          if (!tenant.priorityWaiting.length && !tenant.anonymousWaiting.length) this.waiting.delete(appId);
          this.forget(appId, tenant);
          reject(this.busy());
          // A tenant no longer active leaves a larger share to the others.
          if (this.waiting.size) this.admitWaiters();
        }, this.settings.waitMs),
      };
      queue.push(waiter);
      this.waiting.add(appId);
    });
  }

  /** Gives a slot back, then lets the waiters that now fit take theirs. */
  leave(appId: number, priority: boolean): void {
    const tenant = this.tenants.get(appId)!;
    this.count(tenant, priority, -1);
    this.forget(appId, tenant);
    if (this.waiting.size) this.admitWaiters();
  }

  private fits(tenant: TenantSlots, priority: boolean): boolean {
    if (priority) {
      const { pool, headroom } = this.wholePool;
      return (
        tenant.priorityHeld < fairShare(this.wholePool, this.tenants.size) && (tenant.priorityHeld === 0 || this.held < pool - headroom)
      );
    }
    const { pool, headroom } = this.anonymousPool;
    return (
      tenant.held < fairShare(this.anonymousPool, this.tenants.size) && this.anonymousHeld < (tenant.held === 0 ? pool : pool - headroom)
    );
  }

  private count(tenant: TenantSlots, priority: boolean, by: 1 | -1): void {
    tenant.held += by;
    this.held += by;
    if (priority) tenant.priorityHeld += by;
    else this.anonymousHeld += by;
  }

  /** Drops a tenant that neither holds nor waits: it is no longer active. */
  private forget(appId: number, tenant: TenantSlots): void {
    if (tenant.held === 0 && !tenant.priorityWaiting.length && !tenant.anonymousWaiting.length) this.tenants.delete(appId);
  }

  private admitWaiters(): void {
    for (const queueOf of [(t: TenantSlots) => t.priorityWaiting, (t: TenantSlots) => t.anonymousWaiting]) {
      for (const appId of this.waiting) {
        const tenant = this.tenants.get(appId)!;
        const queue = queueOf(tenant);
        while (queue.length && this.fits(tenant, queue[0].priority)) {
          const waiter = queue.shift()!;
          clearTimeout(waiter.timer);
          this.count(tenant, waiter.priority, 1);
          waiter.resolve();
        }
        if (!tenant.priorityWaiting.length && !tenant.anonymousWaiting.length) this.waiting.delete(appId);
      }
    }
  }
}
