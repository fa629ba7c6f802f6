import { randomInt } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { authError } from './auth.errors';
import { RequestContext } from '../common/request-context';
import { TransactionalConnection } from '../database/transactional-connection';
import { Site } from '../app-context';
import { AbuseLimits } from './abuse-limits.service';
import { Account } from './accounts.service';
import { SmsCode } from './entities/sms-code.entity';
import { PasswordHasher } from './password-hasher.service';

export const SMS_CODE_TTL_MINUTES = 10;
export const SMS_CODE_MAX_ATTEMPTS = 5;

/**
 * One-time SMS codes: 6 digits from the CSPRNG, stored only as a bcrypt hash, valid 10 minutes, for one
 * successful check and at most 5 checks in all. A new code voids the earlier ones of the account.
 */
@Injectable()
export class SmsCodesService {
  private readonly logger = new Logger('SmsCodes');

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly hasher: PasswordHasher,
    private readonly limits: AbuseLimits,
  ) {}

  /** Stores a new code for the account and returns the text to send; the caller sends it after this returns (after commit). */
  async create(ctx: RequestContext, site: Site, account: Account): Promise<{ to: string; body: string }> {
    const mobile = account.mobile?.trim();
    if (!mobile) throw authError('MOBILE_MISSING');
    await this.limits.smsSend(account.appId, account.table, account.id, mobile);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const codeHash = await this.hasher.hash(code); // before the transaction: bcrypt holds no connection
    await this.connection.inTransaction(ctx, async (em) => {
      const codes = em.getRepository(SmsCode);
      const owner = { app_id: account.appId, auth_table: account.table, user_id: account.id };
      await codes.update({ ...owner, used_at: IsNull() }, { used_at: () => 'now()' });
      await codes.insert({ ...owner, code_hash: codeHash, expires: () => `now() + make_interval(mins => ${SMS_CODE_TTL_MINUTES})` });
    });
    this.logger.log({ requestId: ctx.requestId, appId: account.appId, table: account.table, userId: account.id }, 'SMS code generated');
    return { to: mobile, body: `${site.name}: your code is ${code}. It expires in ${SMS_CODE_TTL_MINUTES} minutes.` };
  }

  /**
   * Checks a code against the account's latest one. The attempt is counted before the hash is compared, in
   * one conditional UPDATE, so concurrent guesses cannot exceed the limit; a match marks the code used.
   */
  async verify(ctx: RequestContext, account: Account, code: string): Promise<void> {
    const owner = { appId: account.appId, table: account.table, userId: account.id };
    const codes = this.connection.repository(ctx, SmsCode);
    const claim = await codes
      .createQueryBuilder()
      .update()
      .set({ attempts: () => 'attempts + 1' })
      .where(
        'id = (SELECT id FROM core_sms_codes WHERE app_id = :appId AND auth_table = :table AND user_id = :userId ORDER BY created DESC, id DESC LIMIT 1)',
        owner,
      )
      .andWhere('used_at IS NULL AND expires > now() AND attempts < :max', { max: SMS_CODE_MAX_ATTEMPTS })
      .returning(['id', 'code_hash'])
      .execute();
    const claimed = claim.raw as { id: number; code_hash: string }[];
    if (claimed.length === 0) {
      const latest = await codes
        .createQueryBuilder('c')
        .select('c.attempts', 'attempts')
        .where('c.app_id = :appId AND c.auth_table = :table AND c.user_id = :userId', owner)
        .andWhere('c.used_at IS NULL AND c.expires > now()')
        .orderBy('c.created', 'DESC')
        .addOrderBy('c.id', 'DESC')
        .limit(1)
        .getRawOne<{ attempts: number }>();
      if (latest && latest.attempts >= SMS_CODE_MAX_ATTEMPTS) throw authError('SMS_TOO_MANY_ATTEMPTS');
      throw authError('SMS_CODE_INVALID');
    }
    const outcome = await this.hasher.verify(code, claimed[0].code_hash);
    if (outcome !== 'match' && outcome !== 'upgrade') throw authError('SMS_CODE_INVALID');
    const used = await codes
      .createQueryBuilder()
      .update()
      .set({ used_at: () => 'now()' })
      .where('id = :id AND used_at IS NULL', { id: claimed[0].id })
      .execute();
    if (!used.affected) throw authError('SMS_CODE_INVALID');
  }
}
