import { randomInt } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { inTransaction } from '../database/transaction';
import { Site } from '../app-context/entities/site.entity';
import { AbuseLimits } from './abuse-limits.service';
import { Account, rowCount } from './accounts.service';
import { PasswordHasher } from './password-hasher.service';

export const SMS_CODE_TTL_MINUTES = 10;
export const SMS_CODE_MAX_ATTEMPTS = 5;
const INVALID_CODE = 'Invalid or expired SMS code';

/**
 * One-time SMS codes: 6 digits from the CSPRNG, stored only as a bcrypt hash, valid 10 minutes, for one
 * successful check and at most 5 checks in all. A new code voids the earlier ones of the account.
 */
@Injectable()
export class SmsCodesService {
  private readonly logger = new Logger('SmsCodes');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly hasher: PasswordHasher,
    private readonly limits: AbuseLimits,
  ) {}

  /** Stores a new code for the account and returns the text to send; the caller sends it after this returns (after commit). */
  async create(requestId: string, site: Site, account: Account): Promise<{ to: string; body: string }> {
    const mobile = account.mobile?.trim();
    if (!mobile) throw ApiError.badRequest('Mobile number missing');
    await this.limits.smsSend(account.appId, account.table, account.id, mobile);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const codeHash = await this.hasher.hash(code);
    await inTransaction(this.dataSource, async (em) => {
      await em.query('UPDATE core_sms_codes SET used_at = now() WHERE app_id = $1 AND auth_table = $2 AND user_id = $3 AND used_at IS NULL', [
        account.appId,
        account.table,
        account.id,
      ]);
      await em.query(
        `INSERT INTO core_sms_codes (app_id, auth_table, user_id, code_hash, expires) VALUES ($1, $2, $3, $4, now() + make_interval(mins => $5))`,
        [account.appId, account.table, account.id, codeHash, SMS_CODE_TTL_MINUTES],
      );
    });
    this.logger.log({ requestId, appId: account.appId, table: account.table, userId: account.id }, 'SMS code generated');
    return { to: mobile, body: `${site.name}: your code is ${code}. It expires in ${SMS_CODE_TTL_MINUTES} minutes.` };
  }

  /**
   * Checks a code against the account's latest one. The attempt is counted before the hash is compared, in
   * one conditional UPDATE, so concurrent guesses cannot exceed the limit; a match marks the code used.
   */
  async verify(account: Account, code: string): Promise<void> {
    const claimed: { id: number; code_hash: string }[] = await this.dataSource.query(
      `UPDATE core_sms_codes SET attempts = attempts + 1
        WHERE id = (SELECT id FROM core_sms_codes WHERE app_id = $1 AND auth_table = $2 AND user_id = $3 ORDER BY created DESC, id DESC LIMIT 1)
          AND used_at IS NULL AND expires > now() AND attempts < $4
        RETURNING id, code_hash`,
      [account.appId, account.table, account.id, SMS_CODE_MAX_ATTEMPTS],
    ).then((result) => (Array.isArray(result[0]) ? result[0] : result));
    if (claimed.length === 0) {
      const [latest] = await this.dataSource.query(
        `SELECT attempts FROM core_sms_codes WHERE app_id = $1 AND auth_table = $2 AND user_id = $3 AND used_at IS NULL AND expires > now() ORDER BY created DESC, id DESC LIMIT 1`,
        [account.appId, account.table, account.id],
      );
      if (latest && latest.attempts >= SMS_CODE_MAX_ATTEMPTS) throw ApiError.badRequest('Too many attempts: request a new SMS code');
      throw ApiError.badRequest(INVALID_CODE);
    }
    const outcome = await this.hasher.verify(code, claimed[0].code_hash);
    if (outcome !== 'match' && outcome !== 'upgrade') throw ApiError.badRequest(INVALID_CODE);
    const used = await this.dataSource.query('UPDATE core_sms_codes SET used_at = now() WHERE id = $1 AND used_at IS NULL RETURNING id', [claimed[0].id]);
    if (rowCount(used) === 0) throw ApiError.badRequest(INVALID_CODE);
  }
}
