import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/api-error';
import { IdCipher, MAX_ID } from '../common/id-cipher.service';
import { APP_CONTEXT_POLICY, AppContextPolicy, RequestContext, RequestWithContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SiteRecord } from './site.record';
import { SitesService } from './sites.service';

const POSITIVE_INT = /^[1-9]\d{0,9}$/;

/**
 * Resolves the tenant of every request once, into `request.ctx` (SPEC "App identification and bootstrap"):
 * proxy mode: APP_PROXY_APP_ID, then the proxy's `site-id`, then `x-original-host`;
 * otherwise: `site-id` header, then `appKey` header, then x-forwarded-host / host, then (outside production)
 * `appID` in the body. Runs before the rate limiter, which counts per tenant.
 */
@Injectable()
export class AppContextGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sites: SitesService,
    private readonly cipher: IdCipher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(execution: ExecutionContext): Promise<boolean> {
    const request = execution.switchToHttp().getRequest<RequestWithContext>();
    const policy = this.reflector.getAllAndOverride<AppContextPolicy | undefined>(APP_CONTEXT_POLICY, [execution.getHandler(), execution.getClass()]) ?? {};
    let site: SiteRecord | null = null;
    if (policy.siteIdHeaderOnly) site = await this.fromSiteIdHeaderOnly(request);
    else if (!policy.none) site = await this.resolve(request, policy.optional === true);
    request.ctx = new RequestContext(request.id, request.ip, this.config.production, site);
    return true;
  }

  private async fromSiteIdHeaderOnly(request: RequestWithContext): Promise<SiteRecord> {
    const header = single(request.headers['site-id']);
    const site = header && POSITIVE_INT.test(header) && Number(header) <= MAX_ID ? await this.sites.findById(Number(header)) : null;
    if (!site) throw new ApiError(401, 'Unauthorized', undefined, {}, 'Error');
    return site;
  }

  private async resolve(request: RequestWithContext, optional: boolean): Promise<SiteRecord | null> {
    const headers = request.headers;
    if (this.config.proxy.enabled) {
      if (this.config.proxy.appId !== null) return this.byId(this.config.proxy.appId, optional);
      const siteId = single(headers['site-id']);
      if (siteId) return this.byId(parseSiteId(siteId), optional);
      const originalHost = hostname(single(headers['x-original-host']));
      const site = originalHost ? await this.sites.findByDomain(originalHost) : null;
      return site ?? this.missing(optional);
    }

    const siteId = single(headers['site-id']);
    if (siteId) return this.byId(parseSiteId(siteId), optional);

    const appKey = single(headers['appkey']);
    if (appKey) {
      const id = this.cipher.decryptAppKey(appKey);
      return id === null ? this.unknown(optional) : this.byId(id, optional);
    }

    const host = hostname(single(headers['x-forwarded-host'])?.split(',')[0] ?? single(headers.host));
    const byDomain = host ? await this.sites.findByDomain(host) : null;
    if (byDomain) return byDomain;

    if (!this.config.production) {
      const bodyAppId = (request.body as Record<string, unknown> | undefined)?.appID;
      if (bodyAppId !== undefined && bodyAppId !== null) {
        if (!isPositiveInt(bodyAppId)) throw ApiError.field('appID', 'appID must be a positive integer');
        return this.byId(Number(bodyAppId), optional);
      }
    }
    return this.missing(optional);
  }

  private async byId(id: number, optional: boolean): Promise<SiteRecord | null> {
    if (id > MAX_ID) return this.unknown(optional);
    return (await this.sites.findById(id)) ?? this.unknown(optional);
  }

  private unknown(optional: boolean): null {
    if (optional) return null;
    throw ApiError.notFound('App not found');
  }

  private missing(optional: boolean): null {
    if (optional) return null;
    throw ApiError.badRequest('Missing app context: send the site-id header (or appID outside production)');
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
