import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { ApiError } from '../common/api-error';
import { authError } from './auth.errors';
import { AuthPrincipal, RequestWithContext } from '../common/request-context';
import { ACCESS_TOKEN_STRATEGY, RequestWithAccessTokenCheck } from './access-token.strategy';
import { BearerAuthenticator } from './bearer-auth.service';
import { SessionTokens } from './session-tokens.service';

export const CUSTOMER_TABLE = 'core_customers';
export const ADMIN_TABLE = 'core_users';
export const ADMIN_ROLE = 'admin';

/** An admin of the principal's app: a core_users account whose role (read from the account at this request) is admin. */
export function isAppAdmin(principal: AuthPrincipal | null): boolean {
  return principal !== null && principal.authTable === ADMIN_TABLE && principal.role === ADMIN_ROLE;
}

/**
 * The bearer access token through passport (AccessTokenStrategy): the principal, or null when the request
 * has no Authorization header; any other header that does not hold a valid token is 401. `check` decides
 * what the route needs.
 */
@Injectable()
abstract class PrincipalGuard extends AuthGuard(ACCESS_TOKEN_STRATEGY) {
  constructor(
    private readonly tokens: SessionTokens,
    private readonly bearer: BearerAuthenticator,
  ) {
    super();
  }

  override async canActivate(execution: ExecutionContext): Promise<boolean> {
    const request = execution.switchToHttp().getRequest<RequestWithAccessTokenCheck & { user?: AuthPrincipal | null }>();
    if (request.headers.authorization === undefined) {
      // No credential at all: nothing for passport to read (measured: its strategy run cost ~4% of a hot route's CPU).
      this.check(null);
      request.ctx!.principal = null;
      return true;
    }
    request.accessTokenCheck = { secret: this.tokens.accessSecret, principalOf: (ctx, payload) => this.bearer.principalOf(ctx, payload) };
    await super.canActivate(execution);
    const principal = request.user ?? null;
    this.check(principal);
    request.ctx!.principal = principal;
    return true;
  }

  override handleRequest<T>(error: unknown, user: T | false, _info: unknown, execution: ExecutionContext): T | null {
    if (error) throw error instanceof ApiError ? error : authError('UNAUTHORIZED');
    if (user) return user;
    if (!execution.switchToHttp().getRequest<RequestWithContext>().headers.authorization) return null;
    throw authError('UNAUTHORIZED');
  }

  protected abstract check(principal: AuthPrincipal | null): void;
}

/** Any valid access token of the request's app. */
@Injectable()
export class BearerGuard extends PrincipalGuard {
  protected check(principal: AuthPrincipal | null): void {
    if (!principal) throw authError('UNAUTHORIZED');
  }
}

/** A bearer token when one is sent (checkout, cart): an invalid one is still refused. */
@Injectable()
export class OptionalBearerGuard extends PrincipalGuard {
  protected check(): void {}
}

/** An access token of a customer (core_customers) of the request's app. */
@Injectable()
export class CustomerGuard extends PrincipalGuard {
  protected check(principal: AuthPrincipal | null): void {
    if (!principal || principal.authTable !== CUSTOMER_TABLE) throw authError('UNAUTHORIZED');
  }
}

/** An access token of a core_users account that is an admin of the request's app now (the role is read from the account, not the token). */
@Injectable()
export class AdminGuard extends PrincipalGuard {
  protected check(principal: AuthPrincipal | null): void {
    if (!principal) throw authError('UNAUTHORIZED');
    if (!isAppAdmin(principal)) throw ApiError.forbidden();
  }
}
