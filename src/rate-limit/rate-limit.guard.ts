import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { RequestWithContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Limit, RateLimiter } from './rate-limiter.service';

/**
 * The global request limit (RATE_LIMIT_WINDOW_MS, RATE_LIMIT_MAX_REQUESTS), counted per tenant and client
 * address, so one tenant's traffic never uses up another's. Runs after AppContextGuard; routes without a
 * tenant (health, docs) are not counted.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limit: Limit;

  constructor(private readonly limiter: RateLimiter, @Inject(APP_CONFIG) config: AppConfig) {
    this.limit = { max: config.rateLimit.maxRequests, windowMs: config.rateLimit.windowMs };
  }

  async canActivate(execution: ExecutionContext): Promise<boolean> {
    const ctx = execution.switchToHttp().getRequest<RequestWithContext>().ctx;
    if (!ctx?.site) return true;
    await this.limiter.consume(`req:${ctx.site.id}:${ctx.ip}`, this.limit);
    return true;
  }
}
