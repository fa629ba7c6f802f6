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
