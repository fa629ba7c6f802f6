import { DataSource, EntityManager } from 'typeorm';
import { DatabaseLock, tryLockForTransaction } from './locks';

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock

/**
 * Runs `work` in one transaction and retries it on a serialization failure or deadlock. Side effects that
 * leave the process belong after this returns (or in an outbox row written inside `work`).
 */
export async function inTransaction<T>(dataSource: DataSource, work: (em: EntityManager) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await dataSource.transaction(work);
    } catch (error) {
      const code = (error as { driverError?: { code?: string }; code?: string }).driverError?.code ?? (error as { code?: string }).code;
      if (attempt >= attempts || !code || !RETRYABLE.has(code)) throw error;
    }
  }
}

/**
 * Runs `work` only if this instance wins the transaction-level advisory lock `key`; other instances skip
 * the tick. The lock is released when the transaction ends. A tick is background work on the request
 * pool: the requests' statement timeout (DB_STATEMENT_TIMEOUT_MS) does not apply to it.
 */
export async function withTickLock<T>(
  dataSource: DataSource,
  key: DatabaseLock,
  work: (em: EntityManager) => Promise<T>,
): Promise<T | undefined> {
  return dataSource.transaction(async (em) => {
    if (!(await tryLockForTransaction(em, key))) return undefined;
    // Raw SQL: a session setting, not a table; SET LOCAL ends with the transaction.
    await em.query('SET LOCAL statement_timeout = 0');
    return work(em);
  });
}

/** True when `error` is PostgreSQL's unique violation. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { driverError?: { code?: string }; code?: string };
  return (e.driverError?.code ?? e.code) === '23505';
}
