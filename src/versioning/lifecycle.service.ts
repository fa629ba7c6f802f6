import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { EntityManager } from 'typeorm';
import { ContentService, VersionView } from './content.service';
import { CoreDataRow, RecordKey, updateReturning, versionsOf } from './core-data';
import { LifecycleStatus } from './lifecycle';

export interface Schedule {
  publishSetDate?: Date;
  publishExpireDate?: Date;
}

export interface TransitionResult {
  message: string;
  version: VersionView;
}

/** Statuses a version may be staged or published from (SPEC "Lifecycle states", transitions). */
const STAGEABLE: LifecycleStatus[] = ['New', 'Editing', 'Rolled Back', 'Staged'];
const PUBLISHABLE: LifecycleStatus[] = ['New', 'Editing', 'Staged', 'Rolled Back', 'Expired'];

/**
 * The lifecycle transitions of versioned records. Each one is a single transaction that locks the record's
 * current core_data row first, so transitions of one record never interleave, and each one is idempotent:
 * asking again for the state a record is already in changes nothing and answers 200.
 */
@Injectable()
export class LifecycleService {
  constructor(private readonly content: ContentService) {}

  /** Editing → Staged: Staged = 1, Published = 0, IsExpired = 0, Lock = 0, Publish_By and Publish_Set_Date set. */
  async stage(ctx: RequestContext, table: string, masterId: number, schedule: Schedule): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (em, current) => {
      if (current.Status === 'Staged' && !schedule.publishSetDate && !schedule.publishExpireDate) return { message: 'Record already staged', row: current };
      if (!STAGEABLE.includes(current.Status)) throw invalid('stage', current.Status);
      const row = await setState(em, current.ID, 'Staged', { Published: 0, Staged: 1, IsExpired: 0 }, ctx, schedule);
      return { message: 'Record staged', row };
    });
  }

  /**
   * Publish to the live target: Published = 1, Staged = 1, Publish_Set_Date and Publish_Expire_Date set;
   * every other version of the record with Staged or Published set is reset to 0. A Publish_Set_Date in
   * the future schedules the publication: readers see the version from that date.
   */
  async publish(ctx: RequestContext, table: string, masterId: number, schedule: Schedule): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (em, current) => {
      if (current.Status === 'Published' && !schedule.publishSetDate && !schedule.publishExpireDate) return { message: 'Record already published', row: current };
      if (current.Status !== 'Published' && !PUBLISHABLE.includes(current.Status)) throw invalid('publish', current.Status);
      return { message: 'Record published', row: await publishVersion(em, current, ctx, schedule) };
    });
  }

  /** Staged → Published: the staged version (the current one, else the newest staged one) goes live. */
  async promote(ctx: RequestContext, table: string, masterId: number, schedule: Schedule): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (em, current, key) => {
      const versions = await versionsOf(em, key);
      const staged = current.Status === 'Staged' ? current : [...versions].reverse().find((v) => v.Status === 'Staged' && v.Staged === 1);
      if (!staged) {
        const live = versions.find((v) => v.Published === 1 && v.Status === 'Published');
        if (live) return { message: 'Record already published', row: live };
        throw invalid('promote', current.Status);
      }
      return { message: 'Record promoted', row: await publishVersion(em, staged, ctx, schedule) };
    });
  }

  /** Published or Staged → Expired: Published = 0, Staged = 0, IsExpired = 1, Publish_Expire_Date = now. */
  async expire(ctx: RequestContext, table: string, masterId: number): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (em, current, key) => {
      const visible = (await versionsOf(em, key)).filter((v) => v.Published === 1 || v.Staged === 1);
      if (visible.length === 0) {
        if (current.Status === 'Expired') return { message: 'Record already expired', row: current };
        throw invalid('expire', current.Status);
      }
      let last: CoreDataRow = current;
      for (const version of visible) {
        [last] = await updateReturning(
          em,
          `UPDATE core_data SET "Status" = 'Expired', "Published" = 0, "Staged" = 0, "IsExpired" = 1, "Lock" = 0,
                  "Publish_Expire_Date" = now(), "Updated" = now(), "Updated_By" = $2 WHERE "ID" = $1 RETURNING *`,
          [version.ID, ctx.principal?.userId ?? null],
        );
      }
      return { message: 'Record expired', row: visible.some((v) => v.ID === current.ID) ? await reload(em, current.ID) : last };
    });
  }

  /** Any → Deleted (soft delete): the current version is marked Deleted and no version stays visible. */
  async delete(ctx: RequestContext, table: string, masterId: number): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (em, current) => {
      if (current.Status === 'Deleted') return { message: 'Record already deleted', row: current };
      await em.query(`UPDATE core_data SET "Published" = 0, "Staged" = 0, "Lock" = 0 WHERE "Shop_ID" = $1 AND "Source_Table" = $2 AND "Master_ID" = $3`, [
        current.Shop_ID,
        current.Source_Table,
        current.Master_ID,
      ]);
      const row = await setState(em, current.ID, 'Deleted', { Published: 0, Staged: 0, IsExpired: current.IsExpired }, ctx, {});
      return { message: 'Record deleted', row };
    });
  }

  /**
   * Rollback (version rule 5): the current version gets IsCurrent = 0, the chosen one IsCurrent = 1 and
   * Status Rolled Back; its content (Current_ID) is what the record shows from now on. Publication flags
   * are left as they are: publishing the restored version is a separate, explicit step.
   */
  async rollback(ctx: RequestContext, table: string, masterId: number, toCurrentId: number): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (em, current, key) => {
      const target = (await versionsOf(em, key)).find((v) => v.Current_ID === toCurrentId);
      if (!target) throw ApiError.field('toCurrentId', 'toCurrentId is not a version of this record');
      if (target.ID === current.ID) {
        if (current.Status === 'Rolled Back') return { message: 'Record already rolled back to this version', row: current };
        throw ApiError.conflict('This version is already the current one');
      }
      await em.query(`UPDATE core_data SET "IsCurrent" = 0, "Lock" = 0 WHERE "ID" = $1`, [current.ID]);
      const [row] = await updateReturning(
        em,
        `UPDATE core_data SET "IsCurrent" = 1, "Status" = 'Rolled Back', "Lock" = 0, "Updated" = now(), "Updated_By" = $2 WHERE "ID" = $1 RETURNING *`,
        [target.ID, ctx.principal?.userId ?? null],
      );
      return { message: 'Record rolled back', row };
    });
  }

  private async onCurrent(
    ctx: RequestContext,
    tableName: string,
    masterId: number,
    work: (em: EntityManager, current: CoreDataRow, key: RecordKey) => Promise<{ message: string; row: CoreDataRow }>,
  ): Promise<TransitionResult> {
    const table = await this.content.requireVersioned(tableName);
    const key = { appId: ctx.appId, table: table.name, masterId };
    const { message, row } = await this.content.write(async (em) => work(em, await this.content.lockCurrentOr404(em, key), key));
    return { message, version: this.content.view(row) };
  }
}

async function publishVersion(em: EntityManager, version: CoreDataRow, ctx: RequestContext, schedule: Schedule): Promise<CoreDataRow> {
  await em.query(
    `UPDATE core_data SET "Published" = 0, "Staged" = 0
      WHERE "Shop_ID" = $1 AND "Source_Table" = $2 AND "Master_ID" = $3 AND "ID" <> $4 AND ("Published" = 1 OR "Staged" = 1)`,
    [version.Shop_ID, version.Source_Table, version.Master_ID, version.ID],
  );
  return setState(em, version.ID, 'Published', { Published: 1, Staged: 1, IsExpired: 0 }, ctx, schedule);
}

async function setState(
  em: EntityManager,
  id: number,
  status: LifecycleStatus,
  flags: { Published: number; Staged: number; IsExpired: number },
  ctx: RequestContext,
  schedule: Schedule,
): Promise<CoreDataRow> {
  const publishing = status === 'Staged' || status === 'Published';
  const [row] = await updateReturning(
    em,
    `UPDATE core_data SET "Status" = $2, "Published" = $3, "Staged" = $4, "IsExpired" = $5, "Lock" = 0, "Updated" = now(), "Updated_By" = $6
            ${publishing ? `, "Publish_By" = $6, "Publish_Set_Date" = COALESCE($7::timestamptz, now()), "Publish_Expire_Date" = $8::timestamptz` : ''}
      WHERE "ID" = $1 RETURNING *`,
    [
      id,
      status,
      flags.Published,
      flags.Staged,
      flags.IsExpired,
      ctx.principal?.userId ?? null,
      ...(publishing ? [schedule.publishSetDate ?? null, schedule.publishExpireDate ?? null] : []),
    ],
  );
  return row;
}

async function reload(em: EntityManager, id: number): Promise<CoreDataRow> {
  const [row]: CoreDataRow[] = await em.query(`SELECT * FROM core_data WHERE "ID" = $1`, [id]);
  return row;
}

function invalid(action: string, status: LifecycleStatus): ApiError {
  return ApiError.conflict(`Cannot ${action} a record whose current version is ${status}`);
}
