import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { CoreData } from '../entities/core-data.entity';
import { flagsFor, LifecycleStatus } from '../lifecycle';
import { VersionChange } from '../lifecycle-transitions';

/** A core_data row, with its column names as clients see them (case included). */
export type CoreDataRow = Omit<CoreData, 'site' | 'lastVersion' | 'nextVersion'>;

export interface NewVersionRecord {
  appId: number;
  table: string;
  rowId: number;
  masterId?: number;
  status?: LifecycleStatus;
  title?: string | null;
  userId?: number | null;
}

export interface Stamp {
  userId: number | null;
  /** Publish_By, Publish_Set_Date (default now) and Publish_Expire_Date (transitions that schedule). */
  schedule?: { publishSetDate?: Date; publishExpireDate?: Date };
  /** Publish_Expire_Date = now (manual expire). */
  expiresNow?: boolean;
}

/**
 * Writes the core_data metadata row of a new record (the first version: Master_ID = Current_ID unless
 * given). Published and Staged records get their Publish_Set_Date now, so they are visible at once.
 * Exported for the account and seed paths, which write their rows with the manager of their own edge.
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

/** The versions of one record in UPDATEs of core_data (which have no alias). */
const RECORD_WHERE = '"Shop_ID" = :appId AND "Source_Table" = :table AND "Master_ID" = :masterId';

/**
 * The version chains in core_data (docs/content.md "Versions"): every statement names the context's app and runs
 * on the context's transaction when its edge opened one. The rules (which change a transition makes, which
 * version it concerns) are the services'; this class only reads and writes rows.
 */
@Injectable()
export class VersionRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** The first version of a new record of the context's app. */
  insertFirst(ctx: RequestContext, record: Omit<NewVersionRecord, 'appId'>): Promise<number> {
    return insertFirstVersion(this.connection.manager(ctx), { ...record, appId: ctx.appId });
  }

  /** Every version of a record, oldest first (the history is read by Master_ID and Source_Table). */
  history(ctx: RequestContext, table: string, masterId: number): Promise<CoreDataRow[]> {
    return this.record(ctx, table, masterId).orderBy('d.ID', 'ASC').getMany();
  }

  exists(ctx: RequestContext, table: string, masterId: number): Promise<boolean> {
    return this.record(ctx, table, masterId).getExists();
  }

  /**
   * The current version of a record, locked until the transaction ends. A concurrent writer that locked it
   * first and moved IsCurrent elsewhere makes this return null once it commits (PostgreSQL re-checks the
   * WHERE clause on the updated row), which callers turn into 409.
   */
  lockCurrent(ctx: RequestContext, table: string, masterId: number): Promise<CoreDataRow | null> {
    return this.record(ctx, table, masterId).andWhere('d.IsCurrent = 1').setLock('pessimistic_write').getOne();
  }

  /** The version `id` of the context's app as it is now. */
  reload(ctx: RequestContext, id: number): Promise<CoreDataRow> {
    return this.connection.manager(ctx).findOneByOrFail(CoreData, { ID: id, Shop_ID: ctx.appId });
  }

  /**
   * The master id of the record of `table` that `id` names: its master id or the id of any of its
   * versions' content rows (master ids first); null when the app has no such record.
   */
  async masterIdOf(ctx: RequestContext, table: string, id: number): Promise<number | null> {
    const row = await this.connection
      .repository(ctx, CoreData)
      .createQueryBuilder('d')
      .select('d.Master_ID', 'masterId')
      .where('d.Shop_ID = :appId AND d.Source_Table = :table AND (d.Master_ID = :id OR d.Current_ID = :id)', {
        appId: ctx.appId,
        table,
        id,
      })
      .orderBy('(d.Master_ID = :id)', 'DESC')
      .limit(1)
      .getRawOne<{ masterId: number }>();
    return row?.masterId ?? null;
  }

  /** Inserts the version after `previous` (same record, Last_ID linking back); the new row. */
  async insertNext(ctx: RequestContext, previous: CoreDataRow, version: Partial<CoreDataRow>): Promise<CoreDataRow> {
    const result = await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .insert()
      .into(CoreData)
      .values({
        Shop_ID: ctx.appId,
        Source_Table: previous.Source_Table,
        Master_ID: previous.Master_ID,
        ...version,
        Created: () => 'now()',
        Updated: () => 'now()',
        Last_ID: previous.ID,
      })
      .returning('*')
      .execute();
    return (result.raw as CoreDataRow[])[0];
  }

  /** Applies `change` to the version `id` (Updated and Updated_By stamped); the row as it is now. */
  async change(ctx: RequestContext, id: number, change: VersionChange, stamp: Stamp): Promise<CoreDataRow> {
    const set: Record<string, unknown> = { ...change, Updated: () => 'now()', Updated_By: stamp.userId };
    if (stamp.schedule) {
      set.Publish_By = stamp.userId;
      set.Publish_Set_Date = stamp.schedule.publishSetDate ?? (() => 'now()');
      set.Publish_Expire_Date = stamp.schedule.publishExpireDate ?? null;
    }
    if (stamp.expiresNow) set.Publish_Expire_Date = () => 'now()';
    const result = await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .update(CoreData)
      .set(set)
      .where('"ID" = :id AND "Shop_ID" = :appId', { id, appId: ctx.appId })
      .returning('*')
      .execute();
    return (result.raw as CoreDataRow[])[0];
  }

  /** Applies `change` to the version `id` without stamping it (the version that stops being current, the chain links). */
  async setColumns(ctx: RequestContext, id: number, change: Partial<CoreDataRow>): Promise<void> {
    await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .update(CoreData)
      .set(change)
      .where('"ID" = :id AND "Shop_ID" = :appId', { id, appId: ctx.appId })
      .execute();
  }

  /** Applies `change` to the record's other versions that have Published or Staged set (or to all its versions, with `all`). */
  async changeOthers(ctx: RequestContext, version: CoreDataRow, change: VersionChange, options: { all?: boolean } = {}): Promise<void> {
    const query = this.connection
      .manager(ctx)
      .createQueryBuilder()
      .update(CoreData)
      .set(change)
      .where(RECORD_WHERE, { appId: ctx.appId, table: version.Source_Table, masterId: version.Master_ID });
    if (!options.all) query.andWhere('"ID" <> :id AND ("Published" = 1 OR "Staged" = 1)', { id: version.ID });
    await query.execute();
  }

  /** Stamps every version of a live record after an edit in place: Updated, Updated_By, and the title when there is one. */
  async touch(ctx: RequestContext, table: string, masterId: number, title: string | null, userId: number | null): Promise<void> {
    await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .update(CoreData)
      .set({ Updated: () => 'now()', Updated_By: userId, Title: () => 'COALESCE(:title, "Title")' })
      .where(RECORD_WHERE, { appId: ctx.appId, table, masterId })
      .setParameter('title', title)
      .execute();
  }

  /**
   * The expiry job's statement, over every app (the job is one tick for all tenants): applies `change` to
   * the versions with Published set whose Publish_Expire_Date has passed, claimed FOR UPDATE SKIP LOCKED (a
   * version an admin is changing right now waits for the next tick); the ids it changed.
   */
  async expireDue(ctx: RequestContext, change: VersionChange): Promise<number[]> {
    const versions = this.connection.repository(ctx, CoreData);
    const due = versions
      .createQueryBuilder('due')
      .select('due.ID')
      .where('due.Published = 1 AND due.Publish_Expire_Date <= now()')
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked');
    const result = await versions
      .createQueryBuilder()
      .update()
      .set({ ...change, Updated: () => 'now()' })
      .where(`"ID" IN (${due.getQuery()})`)
      .setParameters(due.getParameters())
      .returning(['ID'])
      .execute();
    return (result.raw as { ID: number }[]).map((r) => r.ID);
  }

  /** The versions of one record of the context's app, as a query builder (alias `d`). */
  private record(ctx: RequestContext, table: string, masterId: number) {
    return this.connection
      .repository(ctx, CoreData)
      .createQueryBuilder('d')
      .where('d.Shop_ID = :appId AND d.Source_Table = :table AND d.Master_ID = :masterId', { appId: ctx.appId, table, masterId });
  }
}
