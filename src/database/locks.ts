import { EntityManager } from 'typeorm';

/** A session a lock can be held on: a TypeORM QueryRunner or a pg Client. */
interface Session {
  query(sql: string, parameters: unknown[]): Promise<unknown>;
}

/**
 * Every PostgreSQL advisory lock the service takes, in one place so no two uses share a key. Session-wide
 * single-key locks use the value itself; per-record transaction locks use it as the first of two keys
 * (`lockRecord`). PostgreSQL keeps the one-key and two-key spaces apart.
 */
export enum DatabaseLock {
  /** Serializes migrations when several instances start at once. */
  Migrations = 7_420_001,
  /** The content expiry tick: one instance runs it, the others skip ("CDXP"). */
  ContentExpiryTick = 0x43445850,
  /** Checked /addrelated adds of one link ("CREL"). */
  RelatedLink = 0x4352454c,
  /** Invitations of one user to one folder ("INVT"). */
  FolderInvite = 0x494e5654,
  /** One notification claim at a time across instances (the sending itself runs in parallel) ("NCLM"). */
  NotificationClaim = 0x4e434c4d,
  /** Changes of one app's staff roles, so that the last owner is never taken away by two changes at once ("STFO"). */
  StaffOwners = 0x5354464f,
  /** The payment reconciliation tick: one instance asks the provider about open intents ("PRCN"). */
  PaymentReconcileTick = 0x5052434e,
  /** Changes of one app's template for one event (create, update, delete, restore), which number its versions ("NTMP"). */
  NotificationTemplate = 0x4e544d50,
}

// Every advisory-lock statement of the service is below. Raw SQL: advisory locks are PostgreSQL functions, not tables.

/** Holds `lock` for one record, named by `key`, until the transaction of `em` ends. */
export async function lockRecord(em: EntityManager, lock: DatabaseLock, key: string): Promise<void> {
  await em.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [lock, key]);
}

/** Waits for `lock` and holds it until the transaction of `em` ends. */
export async function lockForTransaction(em: EntityManager, lock: DatabaseLock): Promise<void> {
  await em.query('SELECT pg_advisory_xact_lock($1)', [lock]);
}

/** Takes `lock` for the transaction of `em` when no one holds it; false when another session does. */
export async function tryLockForTransaction(em: EntityManager, lock: DatabaseLock): Promise<boolean> {
  const [{ locked }] = (await em.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [lock])) as { locked: boolean }[];
  return locked;
}

/** How often lockSession tries again while another session holds the lock. */
const SESSION_LOCK_RETRY_MS = 100;

/**
 * Waits for `lock` on `session` (it outlives transactions); release with unlockSession. A session lock needs a
 * session of its own: a direct connection (DATABASE_DIRECT_URL), never one through a transaction-mode pooler.
 * It tries (`pg_try_advisory_lock`) every SESSION_LOCK_RETRY_MS instead of waiting in `pg_advisory_lock`: a
 * statement waiting there holds a snapshot, and the holder's `CREATE INDEX CONCURRENTLY` (a migration) waits for
 * every older snapshot of the database, so two instances migrating a new database at once would wait for each
 * other forever, where no deadlock detector sees it (the holder's lock and its migration are two sessions).
 */
export async function lockSession(runner: Session, lock: DatabaseLock): Promise<void> {
  for (;;) {
    const answer = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [lock]);
    // A QueryRunner answers the rows, a pg Client its result.
    const [{ locked }] = (Array.isArray(answer) ? answer : (answer as { rows: unknown[] }).rows) as { locked: boolean }[];
    if (locked) return;
    await new Promise((resolve) => setTimeout(resolve, SESSION_LOCK_RETRY_MS));
  }
}

export async function unlockSession(runner: Session, lock: DatabaseLock): Promise<void> {
  await runner.query('SELECT pg_advisory_unlock($1)', [lock]);
}
