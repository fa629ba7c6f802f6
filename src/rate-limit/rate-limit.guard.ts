import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail, ThrottlerOptions } from '@nestjs/throttler';
import {
  THROTTLER_BLOCK_DURATION,
  THROTTLER_KEY_GENERATOR,
  THROTTLER_LIMIT,
  THROTTLER_SKIP,
  THROTTLER_TRACKER,
  THROTTLER_TTL,
} from '@nestjs/throttler/dist/throttler.constants'; // the decorators' metadata keys (not exported by the package's index)
import { RequestWithContext } from '../common/request-context';
import { MetricsService } from '../metrics';
import { rateLimitError, refusedHit } from './rate-limit.errors';
import { RateLimitStorage } from './rate-limit.storage';

/** A throttler's limit on one route, read once from its options and the route's decorators. */
interface RoutePlan {
  throttler: ThrottlerOptions & { name: string };
  skip: boolean;
  limit: number;
  ttl: number;
  blockDuration: number;
}

/**
 * The global request limit (RATE_LIMIT_WINDOW_MS, RATE_LIMIT_MAX_REQUESTS), one count per tenant and client
 * address across all routes, so one tenant's traffic never uses up another's. Runs after AppContextGuard.
 * Requests that reached a route without a tenant (token refresh, reset with only a token) share one count
 * per address; routes that never have one (@NoAppContext, which implies @SkipThrottle) are not counted.
 *
 * A request the tenant resolution refused (`ctx.refusal`: 404 App not found) is counted like any other and
 * then gets that refusal (or the 429 once over the limit), so guessing app ids costs requests; a route that
 * skips throttling is not counted but still gets the refusal.
 *
 * What ThrottlerGuard reads from the route's decorators on every request (skip, limit, ttl, block duration,
 * tracker, key generator: six Reflector look-ups and as many awaits) is read once per route here; with the
 * in-process counters a request is counted synchronously (the guard answers a boolean, not a promise).
 * Anything that depends on the request (a function-valued option, a route's own tracker or key, skipIf,
 * ignoreUserAgents, rate-limit headers) takes ThrottlerGuard's own path.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  @Inject(MetricsService) private readonly metrics!: MetricsService; // a property: ThrottlerGuard's constructor takes its own injections
  /** Per handler: its class and its plans, or null when ThrottlerGuard's own path is to be taken. */
  private readonly plans = new WeakMap<object, { classRef: object; plans: RoutePlan[] | null }>();

  /** Typed as ThrottlerGuard's, but a boolean when the request was counted synchronously: Nest's guards consumer takes either. */
  override canActivate(execution: ExecutionContext): Promise<boolean> {
    const refusal = execution.getArgByIndex<RequestWithContext>(0).ctx?.refusal; // the HTTP request, without switchToHttp's closures
    return (refusal === undefined ? this.count(execution) : this.countAndRefuse(execution, refusal)) as Promise<boolean>;
  }

  private async countAndRefuse(execution: ExecutionContext, refusal: Error): Promise<never> {
    await this.count(execution);
    throw refusal;
  }

  /** Counts the request against each throttler of its route; refuses it (throws) past a limit. */
  private count(execution: ExecutionContext): boolean | Promise<boolean> {
    const plans = this.plansOf(execution);
    if (plans === null) return super.canActivate(execution);
    const storage = this.storageService as RateLimitStorage;
    for (const plan of plans) {
      if (plan.skip) continue;
      const tracker = trackerOf(execution.getArgByIndex<RequestWithContext>(0));
      const key = this.generateKey(execution, tracker);
      const record = storage.incrementNow?.(key, plan.ttl, plan.limit);
      if (record === undefined) return this.countFrom(execution, plans, plans.indexOf(plan));
      if (record.isBlocked)
        return this.throwThrottlingException(execution, { limit: plan.limit, ttl: plan.ttl, key, tracker, ...record }).then(() => false);
    }
    return true;
  }

  /** The counters answer asynchronously (Redis): ThrottlerGuard's handleRequest for the plans from `from` on. */
  private async countFrom(execution: ExecutionContext, plans: RoutePlan[], from: number): Promise<boolean> {
    for (const plan of plans.slice(from)) {
      if (plan.skip) continue;
      await this.handleRequest({
        context: execution,
        limit: plan.limit,
        ttl: plan.ttl,
        blockDuration: plan.blockDuration,
        throttler: plan.throttler,
        getTracker: this.commonOptions.getTracker!,
        generateKey: this.commonOptions.generateKey!,
      });
    }
    return true;
  }

  private plansOf(execution: ExecutionContext): RoutePlan[] | null {
    const handler = execution.getHandler();
    const classRef = execution.getClass();
    const known = this.plans.get(handler);
    if (known?.classRef === classRef) return known.plans;
    const plans = this.readPlans(handler, classRef);
    this.plans.set(handler, { classRef, plans });
    return plans;
  }

  /** What ThrottlerGuard.canActivate reads per request, read once; null when any of it depends on the request. */
  private readPlans(handler: object, classRef: object): RoutePlan[] | null {
    const common = this.commonOptions;
    if (common.skipIf || common.ignoreUserAgents || (common.setHeaders ?? true)) return null;
    const plans: RoutePlan[] = [];
    for (const throttler of this.throttlers as (ThrottlerOptions & { name: string })[]) {
      const read = (key: string): unknown => this.reflector.getAllAndOverride(key + throttler.name, [handler as never, classRef as never]);
      if (throttler.skipIf || throttler.ignoreUserAgents || (throttler.setHeaders ?? false)) return null;
      if (read(THROTTLER_TRACKER) || read(THROTTLER_KEY_GENERATOR)) return null;
      if (throttler.getTracker || throttler.generateKey) return null;
      const limit = read(THROTTLER_LIMIT) ?? throttler.limit;
      const ttl = read(THROTTLER_TTL) ?? throttler.ttl;
      const blockDuration = read(THROTTLER_BLOCK_DURATION) ?? throttler.blockDuration ?? ttl;
      if (typeof limit !== 'number' || typeof ttl !== 'number' || typeof blockDuration !== 'number') return null;
      plans.push({ throttler, skip: Boolean(read(THROTTLER_SKIP)), limit, ttl, blockDuration });
    }
    return plans;
  }

  protected async getTracker(request: RequestWithContext): Promise<string> {
    return trackerOf(request);
  }

  protected generateKey(_execution: ExecutionContext, tracker: string): string {
    return `req:${tracker}`;
  }

  protected async throwThrottlingException(execution: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    this.metrics.rateLimited('requests', execution.switchToHttp().getRequest<RequestWithContext>().routeOptions.url ?? 'unmatched');
    throw refusedHit(detail, (options) => rateLimitError('TOO_MANY_REQUESTS', options));
  }
}

/** The count a request is made in: its tenant and client address. */
function trackerOf(request: RequestWithContext): string {
  return `${request.ctx?.site?.id ?? 'none'}:${request.ctx?.ip ?? request.ip}`;
}
