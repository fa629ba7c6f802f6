import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { TransactionalConnection } from '../database/transactional-connection';
import { ContentService, VersionView } from './content.service';
import {
  decide,
  lifecycleMachine,
  LifecycleAction,
  LifecycleTransition,
  LIVE_VERSION,
  matches,
  refusalDetail,
  LIFECYCLE_TRANSITIONS,
} from './lifecycle-transitions';
import { CoreDataRow, VersionRepository } from './repositories/version.repository';
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

/** The fields of a version a lifecycle action changes, as its audit row shows them. */
function auditedFields(row: CoreDataRow): Record<string, unknown> {
  const { Current_ID, Status, IsCurrent, Published, Staged, IsExpired, Publish_Set_Date, Publish_Expire_Date } = row;
  return { Current_ID, Status, IsCurrent, Published, Staged, IsExpired, Publish_Set_Date, Publish_Expire_Date };
}

/**
 * The lifecycle actions of versioned records, by the rules of lifecycle-transitions.ts. Each runs in the
 * use case's transaction and locks the record's current core_data row first, so transitions of one record
 * never interleave, and each is idempotent: asking again for the state a record is already in changes
 * nothing and answers 200.
 */
@Injectable()
export class LifecycleService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly content: ContentService,
    private readonly versions: VersionRepository,
    private readonly audit: AuditService,
  ) {}

  /** Editing → Staged (preview). */
  async stage(ctx: RequestContext, table: string, masterId: number, schedule: Schedule): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, (current) => this.apply(ctx, 'stage', current, current, schedule));
  }

  /** → Published (live); every other version of the record loses Staged and Published. A future Publish_Set_Date schedules it. */
  async publish(ctx: RequestContext, table: string, masterId: number, schedule: Schedule): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, (current) => this.apply(ctx, 'publish', current, current, schedule));
  }

  /** Staged → Published: the staged version (the current one, else the newest staged one) goes live. */
  async promote(ctx: RequestContext, table: string, masterId: number, schedule: Schedule): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (current, tableName) => {
      const versions = await this.versions.history(ctx, tableName, masterId);
      const staged = lifecycleMachine.allows('promote', current.Status)
        ? current
        : [...versions].reverse().find((v) => lifecycleMachine.allows('promote', v.Status) && v.Staged === 1);
      const live = versions.find((v) => matches(LIVE_VERSION, v));
      return this.apply(ctx, 'promote', staged ?? live ?? current, current, schedule);
    });
  }

  /** Published or Staged → Expired, now: every visible version of the record. */
  async expire(ctx: RequestContext, table: string, masterId: number): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (current, tableName) => {
      const visible = (await this.versions.history(ctx, tableName, masterId)).filter((v) => decide('expire', v).kind === 'apply');
      if (visible.length === 0) return this.apply(ctx, 'expire', current, current, {});
      let last: CoreDataRow = current;
      for (const version of visible) last = (await this.apply(ctx, 'expire', version, current, {})).row;
      const row = visible.some((v) => v.ID === current.ID) ? await this.versions.reload(ctx, current.ID) : last;
      return { message: LIFECYCLE_TRANSITIONS.expire.message, row };
    });
  }

  /** Any → Deleted (soft delete): the current version is marked Deleted and no version stays visible. */
  async delete(ctx: RequestContext, table: string, masterId: number): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, (current) => this.apply(ctx, 'delete', current, current, {}));
  }

  /**
   * Rollback (version rule 5): the current version gets IsCurrent = 0, the chosen one IsCurrent = 1 and
   * Status Rolled Back; its content (Current_ID) is what the record shows from now on. Publishing the
   * restored version is a separate, explicit step.
   */
  async rollback(ctx: RequestContext, table: string, masterId: number, toCurrentId: number): Promise<TransitionResult> {
    return this.onCurrent(ctx, table, masterId, async (current, tableName) => {
      const target = (await this.versions.history(ctx, tableName, masterId)).find((v) => v.Current_ID === toCurrentId);
      if (!target) throw ApiError.field('toCurrentId', 'toCurrentId is not a version of this record');
      return this.apply(ctx, 'rollback', target, current, {});
    });
  }

  /**
   * Published → Expired when Publish_Expire_Date has passed, over every app (the expiry job's tick, which
   * opened the transaction): the ids of the core_data rows it expired. A version already expired no longer
   * has Published set, so running it twice changes nothing.
   */
  async expireDue(ctx: RequestContext): Promise<number[]> {
    this.connection.transactionManager(ctx); // asserts that the job opened the transaction
    return this.versions.expireDue(ctx, LIFECYCLE_TRANSITIONS.reachExpiry.set);
  }

  /** `action` on `version` (of the record whose current version is `current`), as the transition table decides. */
  private async apply(
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
    const transition: LifecycleTransition = decision.transition;
    if (transition.others) await this.versions.changeOthers(ctx, version, transition.others, { all: transition.othersAll === true });
    if (transition.previous && current.ID !== version.ID) await this.versions.setColumns(ctx, current.ID, transition.previous);
    const row = await this.versions.change(ctx, version.ID, transition.set, {
      userId: ctx.principal?.userId ?? null,
      ...(transition.schedules ? { schedule } : {}),
      ...(transition.expiresNow ? { expiresNow: true } : {}),
    });
    // In the same transaction as the change (README "Audit log"): content.publish, content.rollback, content.expire…
    await this.audit.record(ctx, {
      action: `content.${action}`,
      table: version.Source_Table,
      recordId: version.Master_ID,
      before: { ...auditedFields(version), Current_ID: current.Current_ID },
      after: auditedFields(row),
    });
    return { message: transition.message, row };
  }

  private async onCurrent(
    ctx: RequestContext,
    tableName: string,
    masterId: number,
    work: (current: CoreDataRow, table: string) => Promise<Outcome>,
  ): Promise<TransitionResult> {
    const table = await this.content.requireVersioned(ctx, tableName);
    const { message, row } = await this.content.write(ctx, async () =>
      work(await this.content.lockCurrentOr404(ctx, table.name, masterId), table.name),
    );
    return { message, version: this.content.view(ctx, row) };
  }
}
