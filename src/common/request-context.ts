import type { ServerResponse } from 'node:http';
import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { TransactionScope } from '../database/transaction-scope';
import { ApiError } from './api-error';
import type { StaffRole } from './permissions';

/**
 * The tenant as requests see it: its core_sites row without its secrets (payment private keys, webhook secret,
 * VAPID private key), which only the payment gateway, the webhook's verification, web push and the owner's
 * settings (masked) read, by site id.
 * Its columns are declared by the module that owns the table (app-context/entities/site.entity.ts augments this
 * interface), so common/ depends on no domain module.
 */
export interface TenantSite {
  id: number;
}

/** The authenticated principal of a request, filled by the auth guards. */
export interface AuthPrincipal {
  userId: number;
  appId: number;
  authTable: string;
  role: string | null;
  /** A core_users account's staff roles as they are at this request (none for customers and app users). */
  staffRoles?: readonly StaffRole[];
}

/**
 * Everything a service needs to know about the request it serves, resolved once per request and passed
 * explicitly as the first argument of service methods. Services never read headers or the environment.
 *
 * The tenant comes from the request (AppContextGuard) or, when the request names none, from its credential
 * (the bearer guards set `site` from the token's app). A route that needs a tenant reads `app`, which
 * answers 400 `Missing app context` only then: after the body was validated, so an invalid body always
 * gets its `Validation error` first.
 *
 * It is also the use case's TransactionScope: a route marked @Transactional() runs in one transaction
 * whose manager every service reaches through TransactionalConnection.
 */
export class RequestContext extends TransactionScope {
  constructor(
    readonly requestId: string,
    readonly ip: string,
    readonly production: boolean,
    public site: TenantSite | null,
    public principal: AuthPrincipal | null = null,
  ) {
    super();
  }

  /**
   * The context of work no request started (a scheduled job, a CLI command, the payment webhook before it
   * knows its tenant): `origin` names it in logs in place of a request id.
   */
  static background(origin: string, production: boolean, site: TenantSite | null = null): RequestContext {
    return new RequestContext(origin, '127.0.0.1', production, site);
  }

  /**
   * Set once a bearer token's signature and claims were verified, before its account is read: the request
   * pool serves such a request as an authenticated one (README "Fair shares and timeouts"). Declared only.
   */
  declare credentialVerified?: boolean;

  /** The answer to the request this context serves, set by AppContextGuard (unset outside a request): see `clientGone`. */
  response?: ServerResponse;
  /** Declared only, as `refusal` below: made by the few requests that ask for `clientGone`. */
  declare private clientGoneSignal?: AbortSignal;

  /**
   * Aborted once the client's connection closed before its answer was sent (the reason: 499 `Client closed
   * request`), so work only the answer needed can be skipped, such as a login's bcrypt still waiting for a
   * worker thread. Made on first use (a close listener per request that asks); undefined outside a request.
   */
  get clientGone(): AbortSignal | undefined {
    const response = this.response;
    if (!response) return undefined;
    if (!this.clientGoneSignal) {
      const controller = new AbortController();
      const abortIfUnwanted = () => {
        const unwanted = this.unwanted;
        if (unwanted) controller.abort(unwanted);
      };
      if (response.destroyed) abortIfUnwanted();
      else response.once('close', abortIfUnwanted);
      this.clientGoneSignal = controller.signal;
    }
    return this.clientGoneSignal;
  }

  /** 499 `Client closed request` once the client closed its connection before its answer was written. */
  override get unwanted(): ApiError | undefined {
    const response = this.response;
    return response?.destroyed && !response.writableFinished ? new ApiError(499, CLIENT_CLOSED_REQUEST) : undefined;
  }

  /**
   * Body fields whose id came in the legacy bracket form (DecryptIdsInterceptor). That form is AES-CBC
   * with the IV in the value: whoever knows one value's plaintext can turn it into any other id, so such
   * an id names a row but is no capability (docs/security.md).
   */
  legacyIdFields?: Set<string>;

  /**
   * A refusal of the tenant resolution (404 `App not found`) that the rate limiter throws once it has
   * counted the request, so guessing app ids costs requests like anything else. Declared only: the contexts
   * that never get one carry no such field.
   */
  declare refusal?: ApiError;

  /** The tenant; throws 400 `Missing app context` when neither the request nor its credential named one. */
  get app(): TenantSite {
    if (!this.site)
      throw ApiError.badRequest(this.production ? MISSING_APP_CONTEXT : `${MISSING_APP_CONTEXT} (or appID outside production)`);
    return this.site;
  }

  get appId(): number {
    return this.app.id;
  }
}

/** The status nginx logs for a request whose client left before the answer (no answer reaches anyone). */
export const CLIENT_CLOSED_REQUEST = 'Client closed request';

export const MISSING_APP_CONTEXT = 'Missing app context: send the site-id header';

export type RequestWithContext = FastifyRequest & { ctx?: RequestContext };

/** Injects the request's RequestContext into a handler parameter. */
export const Ctx = createParamDecorator((_: unknown, execution: ExecutionContext): RequestContext => {
  const request = execution.switchToHttp().getRequest<RequestWithContext>();
  if (!request.ctx) throw new Error('RequestContext was not resolved for this route');
  return request.ctx;
});

/**
 * How a route finds its tenant. By default the request's headers
 * (or body appID outside production) name it when they can; whether the route needs one is up to the
 * handler (`ctx.app` versus `ctx.site`).
 */
export interface AppContextPolicy {
  /** A route that needs no tenant (health, docs, sign-out): nothing is resolved, nothing refused. */
  none?: boolean;
  /** Only the site-id header counts (messaging); a failure is 401 `{ status: Error, message: Unauthorized }`. */
  siteIdHeaderOnly?: boolean;
}

export const APP_CONTEXT_POLICY = 'appContextPolicy';
/** Also marks the operation in the OpenAPI document (`x-app-context`): such a route never answers 404 App not found. */
export const AppContext = (policy: AppContextPolicy) => {
  const mark = policy.none ? 'none' : policy.siteIdHeaderOnly ? 'site-id-header' : null;
  return mark === null
    ? SetMetadata(APP_CONTEXT_POLICY, policy)
    : applyDecorators(SetMetadata(APP_CONTEXT_POLICY, policy), ApiExtension('x-app-context', mark));
};
/** A route without a tenant (health, docs, sign-out): nothing resolved, and not rate limited (`x-rate-limited: false` in the OpenAPI document). */
export const NoAppContext = () => applyDecorators(AppContext({ none: true }), SkipThrottle(), ApiExtension('x-rate-limited', false));
