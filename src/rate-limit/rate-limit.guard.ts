import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { RequestWithContext } from '../common/request-context';
import { MetricsService } from '../metrics';
import { rateLimitError, refusedHit } from './rate-limit.errors';

/**
 * The global request limit (RATE_LIMIT_WINDOW_MS, RATE_LIMIT_MAX_REQUESTS), one count per tenant and client
 * address across all routes, so one tenant's traffic never uses up another's. Runs after AppContextGuard.
 * Requests that reached a route without a tenant (token refresh, reset with only a token) share one count
 * per address; routes that never have one (@NoAppContext, which implies @SkipThrottle) are not counted.
 *
 * A request the tenant resolution refused (`ctx.refusal`: 404 App not found) is counted like any other and
 * then gets that refusal (or the 429 once over the limit), so guessing app ids costs requests; a route that
 * skips throttling is not counted but still gets the refusal.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  @Inject(MetricsService) private readonly metrics!: MetricsService; // a property: ThrottlerGuard's constructor takes its own injections

  override canActivate(execution: ExecutionContext): Promise<boolean> {
    const refusal = execution.getArgByIndex<RequestWithContext>(0).ctx?.refusal; // the HTTP request, without switchToHttp's closures
    return refusal === undefined ? super.canActivate(execution) : this.countAndRefuse(execution, refusal);
  }

  private async countAndRefuse(execution: ExecutionContext, refusal: Error): Promise<never> {
    await super.canActivate(execution);
    throw refusal;
  }

  protected async getTracker(request: RequestWithContext): Promise<string> {
    return `${request.ctx?.site?.id ?? 'none'}:${request.ctx?.ip ?? request.ip}`;
  }

  protected generateKey(_execution: ExecutionContext, tracker: string): string {
    return `req:${tracker}`;
  }

  protected async throwThrottlingException(execution: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    this.metrics.rateLimited('requests', execution.switchToHttp().getRequest<RequestWithContext>().routeOptions.url ?? 'unmatched');
    throw refusedHit(detail, (options) => rateLimitError('TOO_MANY_REQUESTS', options));
  }
}
