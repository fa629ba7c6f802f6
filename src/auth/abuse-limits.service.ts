import { Inject, Injectable } from '@nestjs/common';
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
 * Limits that follow the account or the phone, whatever address the requests come from: password guessing
 * on one account, mail bombing through reset requests, SMS pumping to one number.
 */
@Injectable()
export class AbuseLimits {
  constructor(private readonly limiter: RateLimiter, @Inject(APP_CONFIG) private readonly config: AppConfig) {}

  login(appId: number, table: AuthTable, email: string): Promise<void> {
    return this.limiter.consume(`auth:login:${appId}:${table}:${normalize(email)}`, { max: this.config.auth.loginMaxPerAccount, windowMs: LOGIN_WINDOW_MS }, 'Too many login attempts, please try again later');
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
