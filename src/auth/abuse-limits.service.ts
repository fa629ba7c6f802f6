import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { RateLimiter } from '../rate-limit/rate-limiter.service';
import { AuthTable } from './auth-tables';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Per-account limits (docs/auth.md "Abuse limits"), on top of the global per-address request limit. */
export const RESET_REQUESTS_PER_HOUR = 5;
export const SMS_SENDS_PER_HOUR = 5;
export const LOGIN_WINDOW_MS = 15 * MINUTE;

/**
 * Limits that follow the account or the phone: password guessing on one account (per client address, and a
 * higher ceiling across addresses against distributed guessing), mail bombing through reset requests, SMS
 * pumping to one number.
 */
@Injectable()
export class AbuseLimits {
  constructor(private readonly limiter: RateLimiter, @Inject(APP_CONFIG) private readonly config: AppConfig) {}

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
    const message = 'Too many login attempts, please try again later';
    await this.limiter.consume(fromAddress, { max: this.config.auth.loginMaxPerAccount, windowMs: LOGIN_WINDOW_MS }, message);
    try {
      await this.limiter.consume(fromAll, { max: this.config.auth.loginMaxPerAccountAllAddresses, windowMs: LOGIN_WINDOW_MS }, message);
    } catch (error) {
      await this.limiter.release(fromAddress);
      throw error;
    }
    let result: T;
    try {
      result = await verify();
    } catch (error) {
      if (!(error instanceof ApiError && error.httpStatus === 401)) await Promise.all([this.limiter.release(fromAddress), this.limiter.release(fromAll)]);
      throw error;
    }
    await Promise.all([this.limiter.reset(fromAddress), this.limiter.release(fromAll)]);
    return result;
  }

  resetRequest(appId: number, table: AuthTable, email: string): Promise<void> {
    return this.limiter.consume(`auth:reset:${appId}:${table}:${normalize(email)}`, { max: RESET_REQUESTS_PER_HOUR, windowMs: HOUR }, 'Too many password reset requests, please try again later');
  }

  async smsSend(appId: number, table: AuthTable, userId: number, mobile: string): Promise<void> {
    const message = 'Too many SMS codes requested, please try again later';
    await this.limiter.consume(`auth:sms:user:${appId}:${table}:${userId}`, { max: SMS_SENDS_PER_HOUR, windowMs: HOUR }, message);
    // Across apps: one phone number is one phone, whichever tenant sends to it.
    await this.limiter.consume(`auth:sms:mobile:${mobile.replace(/[^\d+]/g, '')}`, { max: SMS_SENDS_PER_HOUR, windowMs: HOUR }, message);
  }
}

function normalize(email: string): string {
  return email.trim().toLowerCase();
}
