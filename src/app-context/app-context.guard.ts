import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../common/api-error';
import { requestStore } from '../common/logging';
import { appContextError } from './app-context.errors';
import { IdCipherService, MAX_ID } from '../common/id-cipher.service';
import { APP_CONTEXT_POLICY, AppContextPolicy, RequestContext, RequestWithContext, TenantSite } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SitesService } from './sites.service';

const POSITIVE_INT = /^[1-9]\d{0,9}$/;
/** The request names an app that does not exist. */
const UNKNOWN = Symbol('unknown app');

/**
 * Resolves the tenant of every request once, into `request.ctx` (without its secrets: site-secrets.ts):
 * proxy mode: APP_PROXY_APP_ID, then the proxy's `site-id`, then `x-original-host`;
 * otherwise: `site-id` header, then `appKey` header, then x-forwarded-host / host, then (outside production)
 * `appID` in the body. Runs before the rate limiter, which counts per tenant.
 *
 * A request that names no app goes on without one: its credential may name the app (the bearer guards),
 * and a route that needs one answers `Missing app context` from `ctx.app` after validating the body. A
 * request that names an app that does not exist is refused with 404 `App not found` (`ctx.refusal`, thrown by
 * the rate limiter after it counted the request), so guessing app ids costs requests like anything else.
 */
@Injectable()
export class AppContextGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sites: SitesService,
    private readonly cipher: IdCipherService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Per handler: its class and its policy (Reflector reads metadata through several maps on every call). */
  private readonly policies = new WeakMap<object, { classRef: object; policy: AppContextPolicy }>();

  /** A boolean when the tenant came from the site cache (the common case), else a promise. */
  canActivate(execution: ExecutionContext): boolean | Promise<boolean> {
    const request = execution.getArgByIndex<RequestWithContext>(0); // the HTTP request, without switchToHttp's closures
    const policy = this.policyOf(execution);
    request.ctx = new RequestContext(request.id, request.ip, this.config.production, null);
    request.ctx.response = execution.getArgByIndex<FastifyReply>(1).raw;
    const store = requestStore.getStore();
    if (store) store.ctx = request.ctx;
    if (policy.none) return true;
    if (policy.siteIdHeaderOnly) return this.siteIdHeaderOnly(request);
    const cached = this.cachedSite(request);
    if (cached) {
      request.ctx.site = cached;
      return true;
    }
    return this.resolveInto(request);
  }

  private policyOf(execution: ExecutionContext): AppContextPolicy {
    const handler = execution.getHandler();
    const classRef = execution.getClass();
    const known = this.policies.get(handler);
    if (known?.classRef === classRef) return known.policy;
    const policy = this.reflector.getAllAndOverride<AppContextPolicy | undefined>(APP_CONTEXT_POLICY, [handler, classRef]) ?? {};
    this.policies.set(handler, { classRef, policy });
    return policy;
  }

  /**
   * The site a well-formed `site-id` header names, when the site cache holds it: what `resolve` answers then,
   * without a promise. Anything else (proxy mode, another header, a miss) is left to `resolve`.
   */
  private cachedSite(request: RequestWithContext): TenantSite | undefined {
    if (this.config.proxy.enabled) return undefined;
    const siteId = single(request.headers['site-id']);
    if (!siteId || !POSITIVE_INT.test(siteId)) return undefined;
    const id = Number(siteId);
    return id > MAX_ID ? undefined : this.sites.cachedById(request.ctx!, id);
  }

  private async siteIdHeaderOnly(request: RequestWithContext): Promise<boolean> {
    request.ctx!.site = await this.fromSiteIdHeaderOnly(request);
    return true;
  }

  private async resolveInto(request: RequestWithContext): Promise<boolean> {
    const site = await this.resolve(request);
    // Thrown by the rate limiter once it counted the request (RateLimitGuard runs next).
    if (site === UNKNOWN) request.ctx!.refusal = appContextError('APP_NOT_FOUND');
    else request.ctx!.site = site;
    return true;
  }

  private async fromSiteIdHeaderOnly(request: RequestWithContext): Promise<TenantSite> {
    const header = single(request.headers['site-id']);
    const site =
      header && POSITIVE_INT.test(header) && Number(header) <= MAX_ID ? await this.sites.resolveById(request.ctx!, Number(header)) : null;
    if (!site) throw appContextError('SITE_ID_UNAUTHORIZED');
    return site;
  }

  /** The app the request names; null when it names none, UNKNOWN when it names one that does not exist. */
  private async resolve(request: RequestWithContext): Promise<TenantSite | null | typeof UNKNOWN> {
    const headers = request.headers;
    if (this.config.proxy.enabled) {
      if (this.config.proxy.appId !== null) return this.byId(request, this.config.proxy.appId);
      const siteId = single(headers['site-id']);
      if (siteId) return this.byId(request, parseSiteId(siteId));
      const originalHost = hostname(single(headers['x-original-host']));
      if (!originalHost) return null;
      return (await this.sites.resolveByDomain(request.ctx!, originalHost)) ?? UNKNOWN;
    }

    const siteId = single(headers['site-id']);
    if (siteId) return this.byId(request, parseSiteId(siteId));

    const appKey = single(headers['appkey']);
    if (appKey) return this.byId(request, this.cipher.decryptAppKey(appKey));

    // A Host that is no tenant's domain (an IP address, the load balancer's name) names no app.
    const host = hostname(single(headers['x-forwarded-host'])?.split(',')[0] ?? single(headers.host));
    const byDomain = host ? await this.sites.resolveByDomain(request.ctx!, host) : null;
    if (byDomain) return byDomain;

    if (!this.config.production) {
      // Only a well-formed appID is used here; a malformed one is left to the body's validation to name.
      const bodyAppId = (request.body as Record<string, unknown> | undefined)?.appID;
      if (isPositiveInt(bodyAppId)) return this.byId(request, Number(bodyAppId));
    }
    return null;
  }

  private async byId(request: RequestWithContext, id: number | null): Promise<TenantSite | typeof UNKNOWN> {
    if (id === null || id > MAX_ID) return UNKNOWN;
    return (await this.sites.resolveById(request.ctx!, id)) ?? UNKNOWN;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function parseSiteId(value: string): number {
  if (!POSITIVE_INT.test(value)) throw ApiError.field('site-id', 'site-id header must be a positive integer');
  return Number(value);
}

function isPositiveInt(value: unknown): boolean {
  return (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) || (typeof value === 'string' && POSITIVE_INT.test(value));
}

/** The host name without port, lowercased; undefined for anything that is not a plausible host. */
function hostname(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const host = value.trim().toLowerCase().replace(/:\d+$/, '');
  return /^[a-z0-9.-]{1,253}$/.test(host) ? host : undefined;
}
