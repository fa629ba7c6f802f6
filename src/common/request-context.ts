import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { SiteRecord } from '../app-context/site.record';
import { ApiError } from './api-error';

/** The authenticated principal of a request, filled by the auth guards. */
export interface AuthPrincipal {
  userId: number;
  appId: number;
  authTable: string;
  role: string | null;
}

/**
 * Everything a service needs to know about the request it serves, resolved once per request and passed
 * explicitly as the first argument of service methods. Services never read headers or the environment.
 */
export class RequestContext {
  constructor(
    readonly requestId: string,
    readonly ip: string,
    readonly production: boolean,
    readonly site: SiteRecord | null,
    public principal: AuthPrincipal | null = null,
  ) {}

  /** The tenant; throws when the route was reached without one. */
  get app(): SiteRecord {
    if (!this.site) throw new ApiError(400, 'Missing app context: send the site-id header');
    return this.site;
  }

  get appId(): number {
    return this.app.id;
  }
}

export type RequestWithContext = FastifyRequest & { ctx?: RequestContext };

/** Injects the request's RequestContext into a handler parameter. */
export const Ctx = createParamDecorator((_: unknown, execution: ExecutionContext): RequestContext => {
  const request = execution.switchToHttp().getRequest<RequestWithContext>();
  if (!request.ctx) throw new Error('RequestContext was not resolved for this route');
  return request.ctx;
});

/** How a route finds its tenant (SPEC "App identification and bootstrap"). */
export interface AppContextPolicy {
  /** A route that needs no tenant (health, docs). */
  none?: boolean;
  /** Resolve if possible, but let the request through without a tenant. */
  optional?: boolean;
  /** Only the site-id header counts (messaging); a failure is 401 `{ status: Error, message: Unauthorized }`. */
  siteIdHeaderOnly?: boolean;
}

export const APP_CONTEXT_POLICY = 'appContextPolicy';
export const AppContext = (policy: AppContextPolicy) => SetMetadata(APP_CONTEXT_POLICY, policy);
export const NoAppContext = () => AppContext({ none: true });
