import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { ContentService, VersionView } from './content.service';
import { changeOtherVersions, changeVersion, CoreDataRow, RecordKey, setVersionColumns, versionsOf } from './core-data';
import { decide, LifecycleAction, refusalDetail, Transition, TRANSITIONS } from './lifecycle-transitions';
import { versioningError } from './versioning.errors';

export interface Schedule {
  publishSetDate?: Date;
  publishExpireDate?: Date;
}

export interface TransitionResult {
  message: string;
  version: VersionView;
}

type Outcome = { message: string; row: CoreDataRow };

/**
 * The lifecycle actions of versioned records, by the rules of lifecycle-transitions.ts. Each runs in the
 * use case's transaction and locks the record's current core_data row first, so transitions of one record
 * never interleave, and each is idempotent: asking again for the state a record is already in changes
 * nothing and answers 200.
 */
@Injectable()
export class LifecycleService {
  constructor(private readonly content: ContentService) {}

  /** Editing → Staged (preview). */
  async stage(ctx: RequestContext, table: string, masterId: number, schedule: Schedule): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, (em, current) => this.apply(em, ctx, 'stage', current, current, schedule));
  }

  /** → Published (live); every other version of the record loses Staged and Published. A future Publish_Set_Date schedules it. */
  async publish(ctx: RequestContext, table: string, masterId: number, schedule: Schedule): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, (em, current) => this.apply(em, ctx, 'publish', current, current, schedule));
  }

  /** Staged → Published: the staged version (the current one, else the newest staged one) goes live. */
  async promote(ctx: RequestContext, table: string, masterId: number, schedule: Schedule): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (em, current, key) => {
      const versions = await versionsOf(em, key);
      const staged = current.Status === 'Staged' ? current : [...versions].reverse().find((v) => v.Status === 'Staged' && v.Staged === 1);
      const live = versions.find((v) => v.Published === 1 && v.Status === 'Published');
      return this.apply(em, ctx, 'promote', staged ?? live ?? current, current, schedule);
    });
  }

  /** Published or Staged → Expired, now: every visible version of the record. */
  async expire(ctx: RequestContext, table: string, masterId: number): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (em, current, key) => {
      const visible = (await versionsOf(em, key)).filter((v) => decide('expire', v).kind === 'apply');
      if (visible.length === 0) return this.apply(em, ctx, 'expire', current, current, {});
      let last: CoreDataRow = current;
      for (const version of visible) last = (await this.apply(em, ctx, 'expire', version, current, {})).row;
      const row = visible.some((v) => v.ID === current.ID) ? await this.content.reload(em, current.ID) : last;
      return { message: TRANSITIONS.expire.message, row };
    });
  }

  /** Any → Deleted (soft delete): the current version is marked Deleted and no version stays visible. */
  async delete(ctx: RequestContext, table: string, masterId: number): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, (em, current) => this.apply(em, ctx, 'delete', current, current, {}));
  }

  /**
   * Rollback (version rule 5): the current version gets IsCurrent = 0, the chosen one IsCurrent = 1 and
   * Status Rolled Back; its content (Current_ID) is what the record shows from now on. Publishing the
   * restored version is a separate, explicit step.
   */
  async rollback(ctx: RequestContext, table: string, masterId: number, toCurrentId: number): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (em, current, key) => {
      const target = (await versionsOf(em, key)).find((v) => v.Current_ID === toCurrentId);
      if (!target) throw ApiError.field('toCurrentId', 'toCurrentId is not a version of this record');
      return this.apply(em, ctx, 'rollback', target, current, {});
    });
  }

  /** `action` on `version` (of the record whose current version is `current`), as the transition table decides. */
  private async apply(
    em: EntityManager,
    ctx: RequestContext,
    action: LifecycleAction,
    version: CoreDataRow,
    current: CoreDataRow,
    schedule: Schedule,
  ): Promise<Outcome> {
    const rescheduled = schedule.publishSetDate !== undefined || schedule.publishExpireDate !== undefined;
    const decision = decide(action, version, { rescheduled });
    if (decision.kind === 'already') return { message: decision.message, row: version };
    if (decision.kind === 'refused') {
      throw decision.code === 'CANNOT_TRANSITION'
        ? versioningError(decision.code, { detail: refusalDetail(action, current.Status) })
        : versioningError(decision.code);
    }
    const transition: Transition = decision.transition;
    if (transition.others) await changeOtherVersions(em, version, transition.others, { all: transition.othersAll === true });
    if (transition.previous && current.ID !== version.ID) await setVersionColumns(em, current.ID, transition.previous);
    const row = await changeVersion(em, version.ID, transition.set, {
      userId: ctx.principal?.userId ?? null,
      ...(transition.schedules ? { schedule } : {}),
      ...(transition.expiresNow ? { expiresNow: true } : {}),
    });
    return { message: transition.message, row };
  }

  private async onCurrent(
    ctx: RequestContext,
    tableName: string,
    masterId: number,
    work: (em: EntityManager, current: CoreDataRow, key: RecordKey) => Promise<Outcome>,
  ): Promise<TransitionResult> {
    const table = await this.content.requireVersioned(ctx, tableName);
    const key = { appId: ctx.appId, table: table.name, masterId };
    const { message, row } = await this.content.write(ctx, async (em) => work(em, await this.content.lockCurrentOr404(em, key), key));
    return { message, version: this.content.view(row) };
  }
}
