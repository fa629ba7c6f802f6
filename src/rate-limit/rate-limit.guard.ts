import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { APP_CONTEXT_POLICY, AppContextPolicy, RequestWithContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Limit, RateLimiter } from './rate-limiter.service';

/**
 * The global request limit (RATE_LIMIT_WINDOW_MS, RATE_LIMIT_MAX_REQUESTS), counted per tenant and client
 * address, so one tenant's traffic never uses up another's. Runs after AppContextGuard. Requests that
 * reached a route without a tenant (token refresh, reset with only a token) share one count per address;
 * routes that never have one (health) are not counted.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limit: Limit;

  constructor(private readonly limiter: RateLimiter, private readonly reflector: Reflector, @Inject(APP_CONFIG) config: AppConfig) {
    this.limit = { max: config.rateLimit.maxRequests, windowMs: config.rateLimit.windowMs };
  }

  async canActivate(execution: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AppContextPolicy | undefined>(APP_CONTEXT_POLICY, [execution.getHandler(), execution.getClass()]);
    const request = execution.switchToHttp().getRequest<RequestWithContext>();
    if (policy?.none) return true;
    await this.countRequest(request);
    return true;
  }

  /** Counts the request against its tenant's count for the client address (the address's own count without a tenant); 429 past the limit. */
  countRequest(request: RequestWithContext): Promise<void> {
    const tenant = request.ctx?.site?.id ?? 'none';
    return this.limiter.consume(`req:${tenant}:${request.ctx?.ip ?? request.ip}`, this.limit);
  }
}
