import { EntityManager } from 'typeorm';
import { flagsFor, LifecycleStatus } from './lifecycle';

export interface NewVersionRecord {
  appId: number;
  table: string;
  rowId: number;
  masterId?: number;
  status?: LifecycleStatus;
  title?: string | null;
  userId?: number | null;
}

/**
 * Writes the core_data metadata row of a new record (the first version: Master_ID = Current_ID unless
 * given). Published and Staged records get their Publish_Set_Date now, so they are visible at once.
 */
export async function insertFirstVersion(em: EntityManager, record: NewVersionRecord): Promise<number> {
  const status = record.status ?? 'New';
  const flags = flagsFor(status);
  const visibleNow = flags.Published === 1 || flags.Staged === 1;
  const rows: { ID: number }[] = await em.query(
    `INSERT INTO core_data ("Shop_ID", "Source_Table", "Current_ID", "Master_ID", "IsCurrent", "Status", "Published", "Staged", "IsExpired",
                            "Title", "Created_By", "Updated_By", "Publish_By", "Publish_Set_Date")
     VALUES ($1, $2, $3, $4, 1, $5, $6, $7, $8, $9, $10, $10, $11, $12) RETURNING "ID"`,
    [
      record.appId,
      record.table,
      record.rowId,
      record.masterId ?? record.rowId,
      status,
      flags.Published,
      flags.Staged,
      flags.IsExpired,
      record.title ?? null,
      record.userId ?? null,
      visibleNow ? (record.userId ?? null) : null,
      visibleNow ? new Date() : null,
    ],
  );
  return rows[0].ID;
}

/** A core_data row, with the spec's column names. */
export interface CoreDataRow {
  ID: number;
  Shop_ID: number;
  Source_Table: string;
  Current_ID: number;
  Master_ID: number;
  IsCurrent: 0 | 1;
  Status: LifecycleStatus;
  Published: 0 | 1;
  Staged: 0 | 1;
  IsExpired: 0 | 1;
  Title: string | null;
  Created: Date;
  Updated: Date;
  Created_By: number | null;
  Updated_By: number | null;
  Publish_By: number | null;
  Publish_Set_Date: Date | null;
  Publish_Expire_Date: Date | null;
  Last_ID: number | null;
  Next_ID: number | null;
  Lock: 0 | 1;
}

export interface RecordKey {
  appId: number;
  table: string;
  masterId: number;
}

/**
 * The current version of a record, locked until the transaction ends. A concurrent writer that locked it
 * first and moved IsCurrent elsewhere makes this return null once it commits (PostgreSQL re-checks the
 * WHERE clause on the updated row), which callers turn into 409.
 */
export async function lockCurrentVersion(em: EntityManager, key: RecordKey): Promise<CoreDataRow | null> {
  const rows: CoreDataRow[] = await em.query(
    `SELECT * FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = $2 AND "Master_ID" = $3 AND "IsCurrent" = 1 FOR UPDATE`,
    [key.appId, key.table, key.masterId],
  );
  return rows[0] ?? null;
}

/** Every version of a record, oldest first (the history is read by Master_ID and Source_Table). */
export async function versionsOf(em: EntityManager, key: RecordKey): Promise<CoreDataRow[]> {
  return em.query(`SELECT * FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = $2 AND "Master_ID" = $3 ORDER BY "ID"`, [key.appId, key.table, key.masterId]);
}

/**
 * Version rules 2 and 3: the old metadata row stops being current and unlocks, the new one (for content
 * row `rowId`) becomes the current Editing version, and the two are linked by Last_ID / Next_ID. The old
 * row's publication flags stay: what is live stays live until the new version is published.
 */
export async function appendVersion(em: EntityManager, current: CoreDataRow, rowId: number, title: string | null, userId: number | null): Promise<CoreDataRow> {
  // The old row stops being current first: the partial unique index allows one current row per record.
  await em.query(`UPDATE core_data SET "IsCurrent" = 0, "Lock" = 0 WHERE "ID" = $1`, [current.ID]);
  const flags = flagsFor('Editing');
  const [created]: CoreDataRow[] = await em.query(
    `INSERT INTO core_data ("Shop_ID", "Source_Table", "Current_ID", "Master_ID", "IsCurrent", "Status", "Published", "Staged", "IsExpired",
                            "Title", "Created", "Updated", "Created_By", "Updated_By", "Last_ID", "Lock")
     VALUES ($1, $2, $3, $4, 1, 'Editing', $5, $6, $7, $8, now(), now(), $9, $9, $10, 1) RETURNING *`,
    [current.Shop_ID, current.Source_Table, rowId, current.Master_ID, flags.Published, flags.Staged, flags.IsExpired, title, userId, current.ID],
  );
  await em.query(`UPDATE core_data SET "Next_ID" = $1 WHERE "ID" = $2`, [created.ID, current.ID]);
  return created;
}

/**
 * The rows an `UPDATE … RETURNING` gave back. TypeORM's PostgreSQL driver answers UPDATE and DELETE with
 * `[rows, rowCount]` and other statements with the rows alone.
 */
export async function updateReturning<T = CoreDataRow>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const result = await em.query(sql, params);
  return Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number' ? result[0] : result;
}
