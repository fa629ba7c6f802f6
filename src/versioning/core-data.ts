import { EntityManager } from 'typeorm';
import { CoreData } from './entities/core-data.entity';
import { flagsFor, LifecycleStatus } from './lifecycle';
import { TRANSITIONS, VersionChange } from './lifecycle-transitions';

export interface NewVersionRecord {
  appId: number;
  table: string;
  rowId: number;
  masterId?: number;
  status?: LifecycleStatus;
  title?: string | null;
  userId?: number | null;
}

/** A core_data row, with the spec's column names. */
export type CoreDataRow = Omit<CoreData, 'site' | 'lastVersion' | 'nextVersion'>;

export interface RecordKey {
  appId: number;
  table: string;
  masterId: number;
}

/**
 * Writes the core_data metadata row of a new record (the first version: Master_ID = Current_ID unless
 * given). Published and Staged records get their Publish_Set_Date now, so they are visible at once.
 */
export async function insertFirstVersion(em: EntityManager, record: NewVersionRecord): Promise<number> {
  const status = record.status ?? 'New';
  const flags = flagsFor(status);
  const visibleNow = flags.Published === 1 || flags.Staged === 1;
  const result = await em.insert(CoreData, {
    Shop_ID: record.appId,
    Source_Table: record.table,
    Current_ID: record.rowId,
    Master_ID: record.masterId ?? record.rowId,
    IsCurrent: 1,
    Status: status,
    ...flags,
    Title: record.title ?? null,
    Created_By: record.userId ?? null,
    Updated_By: record.userId ?? null,
    Publish_By: visibleNow ? (record.userId ?? null) : null,
    Publish_Set_Date: visibleNow ? new Date() : null,
  });
  return (result.identifiers[0] as { ID: number }).ID;
}

/** The rows of one record in UPDATEs of core_data (which have no alias); parameters from `recordParameters`. */
export const RECORD_WHERE = '"Shop_ID" = :appId AND "Source_Table" = :table AND "Master_ID" = :masterId';

export function recordParameters(key: RecordKey): { appId: number; table: string; masterId: number } {
  return { appId: key.appId, table: key.table, masterId: key.masterId };
}

/** The core_data rows of one record, as a query builder (alias `d`). */
export function versionQuery(em: EntityManager, key: RecordKey) {
  return em.createQueryBuilder(CoreData, 'd').where('d.Shop_ID = :appId AND d.Source_Table = :table AND d.Master_ID = :masterId', {
    appId: key.appId,
    table: key.table,
    masterId: key.masterId,
  });
}

/**
 * The current version of a record, locked until the transaction ends. A concurrent writer that locked it
 * first and moved IsCurrent elsewhere makes this return null once it commits (PostgreSQL re-checks the
 * WHERE clause on the updated row), which callers turn into 409.
 */
export async function lockCurrentVersion(em: EntityManager, key: RecordKey): Promise<CoreDataRow | null> {
  return versionQuery(em, key).andWhere('d.IsCurrent = 1').setLock('pessimistic_write').getOne();
}

/** Every version of a record, oldest first (the history is read by Master_ID and Source_Table). */
export async function versionsOf(em: EntityManager, key: RecordKey): Promise<CoreDataRow[]> {
  return versionQuery(em, key).orderBy('d.ID', 'ASC').getMany();
}

export async function recordExists(em: EntityManager, key: RecordKey): Promise<boolean> {
  return versionQuery(em, key).getExists();
}

export interface Stamp {
  userId: number | null;
  /** Publish_By, Publish_Set_Date (default now) and Publish_Expire_Date (transitions that schedule). */
  schedule?: { publishSetDate?: Date; publishExpireDate?: Date };
  /** Publish_Expire_Date = now (manual expire). */
  expiresNow?: boolean;
}

/** Applies `change` to the core_data row `id` (Updated and Updated_By stamped); the row as it is now. */
export async function changeVersion(em: EntityManager, id: number, change: VersionChange, stamp: Stamp): Promise<CoreDataRow> {
  const set: Record<string, unknown> = { ...change, Updated: () => 'now()', Updated_By: stamp.userId };
  if (stamp.schedule) {
    set.Publish_By = stamp.userId;
    set.Publish_Set_Date = stamp.schedule.publishSetDate ?? (() => 'now()');
    set.Publish_Expire_Date = stamp.schedule.publishExpireDate ?? null;
  }
  if (stamp.expiresNow) set.Publish_Expire_Date = () => 'now()';
  const result = await em.createQueryBuilder().update(CoreData).set(set).where('"ID" = :id', { id }).returning('*').execute();
  return (result.raw as CoreDataRow[])[0];
}

/** Applies `change` to the record's other versions that have Published or Staged set (or to all its versions, with `all`). */
export async function changeOtherVersions(
  em: EntityManager,
  version: CoreDataRow,
  change: VersionChange,
  options: { all?: boolean } = {},
): Promise<void> {
  const query = em
    .createQueryBuilder()
    .update(CoreData)
    .set(change)
    .where(RECORD_WHERE, recordParameters({ appId: version.Shop_ID, table: version.Source_Table, masterId: version.Master_ID }));
  if (!options.all) query.andWhere('"ID" <> :id AND ("Published" = 1 OR "Staged" = 1)', { id: version.ID });
  await query.execute();
}

/** Applies `change` to the row `id` without stamping it (the version that stops being current). */
export async function setVersionColumns(em: EntityManager, id: number, change: Partial<CoreDataRow>): Promise<void> {
  await em.createQueryBuilder().update(CoreData).set(change).where('"ID" = :id', { id }).execute();
}

/**
 * Version rules 2 and 3: the old metadata row stops being current and unlocks, the new one (for content
 * row `rowId`) becomes the current Editing version, and the two are linked by Last_ID / Next_ID. The old
 * row's publication flags stay: what is live stays live until the new version is published.
 */
export async function appendVersion(
  em: EntityManager,
  current: CoreDataRow,
  rowId: number,
  title: string | null,
  userId: number | null,
): Promise<CoreDataRow> {
  const { set, previous } = TRANSITIONS.edit;
  // The old row stops being current first: the partial unique index allows one current row per record.
  await setVersionColumns(em, current.ID, previous);
  const result = await em
    .createQueryBuilder()
    .insert()
    .into(CoreData)
    .values({
      Shop_ID: current.Shop_ID,
      Source_Table: current.Source_Table,
      Current_ID: rowId,
      Master_ID: current.Master_ID,
      ...set,
      Title: title,
      Created: () => 'now()',
      Updated: () => 'now()',
      Created_By: userId,
      Updated_By: userId,
      Last_ID: current.ID,
    })
    .returning('*')
    .execute();
  const created = (result.raw as CoreDataRow[])[0];
  await setVersionColumns(em, current.ID, { Next_ID: created.ID });
  return created;
}
