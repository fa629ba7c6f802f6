import { EntityManager } from 'typeorm';

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
}

/** Holds `lock` for one record, named by `key`, until the transaction of `em` ends. */
export async function lockRecord(em: EntityManager, lock: DatabaseLock, key: string): Promise<void> {
  // Raw SQL: advisory locks are PostgreSQL functions, not tables (no entity to use).
  await em.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [lock, key]);
}
