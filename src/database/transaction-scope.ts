import { EntityManager } from 'typeorm';

type AfterCommit = () => unknown;

/**
 * The transaction a use case runs in, carried by its RequestContext (or created by a background job), so
 * every repository call of that use case sees the same manager and none escapes to the pool by accident.
 * Effects that leave the process (mail wake-ups, SMS, payment calls) are queued with `afterCommit` and run
 * only once the transaction committed; a rollback discards them.
 */
export class TransactionScope {
  /** The open transaction's manager; unset outside a transaction. */
  manager?: EntityManager;
  private pending: AfterCommit[] = [];

  /**
   * Runs `effect` after the scope's transaction commits, or now when none is open. The same function queued
   * again in one transaction runs once (the outbox wakes the senders once, however many mails it wrote).
   */
  async afterCommit(effect: AfterCommit): Promise<void> {
    if (!this.manager) await effect();
    else if (!this.pending.includes(effect)) this.pending.push(effect);
  }

  /**
   * Why a read whose rows only this scope's answer needs should not run: a RequestContext's client has
   * closed its connection (TransactionalConnection.query). Undefined while the answer is wanted, and
   * always for background work.
   */
  get unwanted(): Error | undefined {
    return undefined;
  }

  /** @internal used by TransactionalConnection */
  takePending(): AfterCommit[] {
    const pending = this.pending;
    this.pending = [];
    return pending;
  }
}
