import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { AuthTable } from '../auth-tables';
import { SmsCode } from '../entities/sms-code.entity';

/** The account a code belongs to, within `ctx.appId`. */
export interface CodeOwner {
  table: AuthTable;
  userId: number;
}

/** Every query on core_sms_codes, within `ctx.appId`. */
@Injectable()
export class SmsCodeRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** Marks the owner's unused codes used (a new code voids the earlier ones). */
  async voidUnused(ctx: RequestContext, owner: CodeOwner): Promise<void> {
    await this.connection.repository(ctx, SmsCode).update({ ...columnsOf(ctx, owner), used_at: IsNull() }, { used_at: () => 'now()' });
  }

  async insert(ctx: RequestContext, owner: CodeOwner, codeHash: string, ttlMinutes: number): Promise<void> {
    await this.connection
      .repository(ctx, SmsCode)
      .insert({ ...columnsOf(ctx, owner), code_hash: codeHash, expires: () => `now() + make_interval(mins => ${ttlMinutes})` });
  }

  /**
   * Counts one attempt on the owner's latest code, in one conditional UPDATE, if it is unused, unexpired and
   * under `maxAttempts`: its id and hash, or none.
   */
  async claimAttempt(ctx: RequestContext, owner: CodeOwner, maxAttempts: number): Promise<{ id: number; code_hash: string }[]> {
    const claim = await this.connection
      .repository(ctx, SmsCode)
      .createQueryBuilder()
      .update()
      .set({ attempts: () => 'attempts + 1' })
      .where(
        'id = (SELECT id FROM core_sms_codes WHERE app_id = :appId AND auth_table = :table AND user_id = :userId ORDER BY created DESC, id DESC LIMIT 1)',
        parametersOf(ctx, owner),
      )
      .andWhere('used_at IS NULL AND expires > now() AND attempts < :max', { max: maxAttempts })
      .returning(['id', 'code_hash'])
      .execute();
    return claim.raw as { id: number; code_hash: string }[];
  }

  /** The attempts of the owner's latest unused, unexpired code; undefined without one. */
  async latestAttempts(ctx: RequestContext, owner: CodeOwner): Promise<number | undefined> {
    const latest = await this.connection
      .repository(ctx, SmsCode)
      .createQueryBuilder('c')
      .select('c.attempts', 'attempts')
      .where('c.app_id = :appId AND c.auth_table = :table AND c.user_id = :userId', parametersOf(ctx, owner))
      .andWhere('c.used_at IS NULL AND c.expires > now()')
      .orderBy('c.created', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .limit(1)
      .getRawOne<{ attempts: number }>();
    return latest?.attempts;
  }

  /** Marks the code used if it still is not; whether it did. */
  async markUsed(ctx: RequestContext, id: number): Promise<boolean> {
    const used = await this.connection
      .repository(ctx, SmsCode)
      .createQueryBuilder()
      .update()
      .set({ used_at: () => 'now()' })
      .where('id = :id AND app_id = :appId AND used_at IS NULL', { id, appId: ctx.appId })
      .execute();
    return Boolean(used.affected);
  }
}

function columnsOf(ctx: RequestContext, owner: CodeOwner) {
  return { app_id: ctx.appId, auth_table: owner.table, user_id: owner.userId };
}

function parametersOf(ctx: RequestContext, owner: CodeOwner) {
  return { appId: ctx.appId, table: owner.table, userId: owner.userId };
}
