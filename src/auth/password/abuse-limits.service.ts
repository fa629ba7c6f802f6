import { Inject, Injectable } from '@nestjs/common';
import { ApiError, errorTable } from '../../common/api-error';
import { RequestContext } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { RateLimitStorage, refusedHit } from '../../rate-limit';
import { AuthTable } from '../auth-tables';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Per-account limits (docs/auth.md "Abuse limits"), on top of the global per-address request limit. */
export const RESET_REQUESTS_PER_HOUR = 5;
export const SMS_SENDS_PER_HOUR = 5;
export const LOGIN_WINDOW_MS = 15 * MINUTE;

const abuseLimitError = errorTable({
  TOO_MANY_LOGIN_ATTEMPTS: { status: 429, message: 'Too many login attempts, please try again later' },
  TOO_MANY_RESET_REQUESTS: { status: 429, message: 'Too many password reset requests, please try again later' },
  TOO_MANY_SMS_CODES: { status: 429, message: 'Too many SMS codes requested, please try again later' },
});
type AbuseLimit = keyof typeof abuseLimitError.table;

/**
 * Limits that follow the account or the phone: password guessing on one account (per client address, and a
 * higher ceiling across addresses against distributed guessing), mail bombing through reset requests, SMS
 * pumping to one number. Throttler limits counted on the throttler's storage (RateLimitStorage), each with
 * its own keys, limit and window.
 */
@Injectable()
export class AbuseLimitsService {
  constructor(
    private readonly storage: RateLimitStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Runs `verify` (the credential check) unless this client address or all addresses together have failed
   * too often on the account: then 429 before it runs. The attempt is counted before `verify` runs, so
   * parallel guesses cannot overrun a limit; a 401 from `verify` leaves it counted (a failure), a success
   * clears the address's failures and takes the attempt back from the account's, and any other error only
   * takes the attempt back.
   */
  async login<T>(ctx: RequestContext, table: AuthTable, email: string, verify: () => Promise<T>): Promise<T> {
    const account = `${ctx.appId}:${table}:${normalize(email)}`;
    const fromAddress = `auth:login:address:${account}:${ctx.ip}`;
    const fromAll = `auth:login:account:${account}`;
    await this.hit(fromAddress, this.config.auth.loginMaxPerAccount, LOGIN_WINDOW_MS, 'TOO_MANY_LOGIN_ATTEMPTS');
    try {
      await this.hit(fromAll, this.config.auth.loginMaxPerAccountAllAddresses, LOGIN_WINDOW_MS, 'TOO_MANY_LOGIN_ATTEMPTS');
    } catch (error) {
      await this.storage.decrement(fromAddress);
      throw error;
    }
    let result: T;
    try {
      result = await verify();
    } catch (error) {
      if (!(error instanceof ApiError && error.httpStatus === 401))
        await Promise.all([this.storage.decrement(fromAddress), this.storage.decrement(fromAll)]);
      throw error;
    }
    await Promise.all([this.storage.reset(fromAddress), this.storage.decrement(fromAll)]);
    return result;
  }

  resetRequest(ctx: RequestContext, table: AuthTable, email: string): Promise<void> {
    return this.hit(`auth:reset:${ctx.appId}:${table}:${normalize(email)}`, RESET_REQUESTS_PER_HOUR, HOUR, 'TOO_MANY_RESET_REQUESTS');
  }

  async smsSend(ctx: RequestContext, table: AuthTable, userId: number, mobile: string): Promise<void> {
    await this.hit(`auth:sms:user:${ctx.appId}:${table}:${userId}`, SMS_SENDS_PER_HOUR, HOUR, 'TOO_MANY_SMS_CODES');
    // Across apps: one phone number is one phone, whichever tenant sends to it.
    await this.hit(`auth:sms:mobile:${mobile.replace(/[^\d+]/g, '')}`, SMS_SENDS_PER_HOUR, HOUR, 'TOO_MANY_SMS_CODES');
  }

  /** Counts one hit on `key`; 429 with Retry-After once more than `limit` were counted in the window. */
  private async hit(key: string, limit: number, windowMs: number, refused: AbuseLimit): Promise<void> {
    const record = await this.storage.increment(key, windowMs, limit, windowMs, 'auth');
    if (record.isBlocked) throw refusedHit(record, (options) => abuseLimitError(refused, options));
  }
}

function normalize(email: string): string {
  return email.trim().toLowerCase();
}
