import { randomInt } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { authError } from '../auth.errors';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { AbuseLimitsService } from '../password/abuse-limits.service';
import { Account } from '../accounts/accounts.service';
import { PasswordHasherService } from '../password/password-hasher.service';
import { SmsCodeRepository } from '../repositories/sms-code.repository';

export const SMS_CODE_TTL_MINUTES = 10;
export const SMS_CODE_MAX_ATTEMPTS = 5;

/**
 * One-time SMS codes: 6 digits from the CSPRNG, stored only as a bcrypt hash, valid 10 minutes, for one
 * successful check and at most 5 checks in all. A new code voids the earlier ones of the account. The
 * account is one of the context's app.
 */
@Injectable()
export class SmsCodesService {
  private readonly logger = new Logger('SmsCodes');

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly codes: SmsCodeRepository,
    private readonly hasher: PasswordHasherService,
    private readonly limits: AbuseLimitsService,
  ) {}

  /**
   * Stores a new code for the account in the route's transaction and returns the text to send; the caller
   * sends it once that transaction committed.
   */
  async create(ctx: RequestContext, account: Account): Promise<{ to: string; body: string }> {
    this.connection.transactionManager(ctx); // voiding the earlier codes and storing the new one belong together
    const mobile = account.mobile?.trim();
    if (!mobile) throw authError('MOBILE_MISSING');
    await this.limits.smsSend(ctx, account.table, account.id, mobile);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const codeHash = await this.hasher.hash(code);
    const owner = { table: account.table, userId: account.id };
    await this.codes.voidUnused(ctx, owner);
    await this.codes.insert(ctx, owner, codeHash, SMS_CODE_TTL_MINUTES);
    this.logger.log({ requestId: ctx.requestId, appId: ctx.appId, table: account.table, userId: account.id }, 'SMS code generated');
    return { to: mobile, body: `${ctx.app.name}: your code is ${code}. It expires in ${SMS_CODE_TTL_MINUTES} minutes.` };
  }

  /**
   * Checks a code against the account's latest one. The attempt is counted before the hash is compared, in
   * one conditional UPDATE, so concurrent guesses cannot exceed the limit; a match marks the code used. No
   * transaction: a failed check must leave its attempt counted.
   */
  async verify(ctx: RequestContext, account: Account, code: string): Promise<void> {
    const owner = { table: account.table, userId: account.id };
    const claimed = await this.codes.claimAttempt(ctx, owner, SMS_CODE_MAX_ATTEMPTS);
    if (claimed.length === 0) {
      const attempts = await this.codes.latestAttempts(ctx, owner);
      if (attempts !== undefined && attempts >= SMS_CODE_MAX_ATTEMPTS) throw authError('SMS_TOO_MANY_ATTEMPTS');
      throw authError('SMS_CODE_INVALID');
    }
    const outcome = await this.hasher.verify(code, claimed[0].code_hash);
    if (outcome !== 'match' && outcome !== 'upgrade') throw authError('SMS_CODE_INVALID');
    if (!(await this.codes.markUsed(ctx, claimed[0].id))) throw authError('SMS_CODE_INVALID');
  }
}
