import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AccessLevel, AccessPolicy, CUSTOMER_TABLE } from '../../common/access-guards';
import { ApiError } from '../../common/api-error';
import { AuthPrincipal, RequestWithContext } from '../../common/request-context';
import { requireAdmin } from '../../common/require-admin';
import { ACCESS_TOKEN_STRATEGY, AccessTokenCheck, RequestWithAccessTokenCheck } from './access-token.strategy';
import { BearerAuthService } from './bearer-auth.service';
import { SessionTokensService } from './session-tokens.service';

/** Passport's run of AccessTokenStrategy: the principal, null without an Authorization header, else 401. */
class PassportBearer extends AuthGuard(ACCESS_TOKEN_STRATEGY) {
  override handleRequest<T>(error: unknown, user: T | false, _info: unknown, execution: ExecutionContext): T | null {
    if (error) throw error instanceof ApiError ? error : ApiError.unauthorized();
    if (user) return user;
    if (!execution.switchToHttp().getRequest<RequestWithContext>().headers.authorization) return null;
    throw ApiError.unauthorized();
  }
}

/**
 * The auth module's implementation of the AccessPolicy port behind the guards of src/common/access-guards.ts:
 * the bearer access token through passport (AccessTokenStrategy), then what the route's level needs of the
 * principal. Sets `ctx.principal` (null when the request has no Authorization header).
 */
@Injectable()
export class PassportAccessPolicy extends AccessPolicy {
  private readonly passport = new PassportBearer();
  private readonly check: AccessTokenCheck;

  constructor(tokens: SessionTokensService, bearer: BearerAuthService) {
    super();
    this.check = { keyFor: (token) => tokens.keyFor('access', token), principalOf: (ctx, payload) => bearer.principalOf(ctx, payload) };
  }

  async admit(level: AccessLevel, execution: ExecutionContext): Promise<boolean> {
    const request = execution.switchToHttp().getRequest<RequestWithAccessTokenCheck & { user?: AuthPrincipal | null }>();
    if (request.headers.authorization === undefined) {
      // No credential at all: nothing for passport to read (its strategy run is a measurable share of a hot route's CPU).
      requireLevel(level, null);
      request.ctx!.principal = null;
      return true;
    }
    request.accessTokenCheck = this.check;
    await this.passport.canActivate(execution);
    const principal = request.user ?? null;
    requireLevel(level, principal);
    request.ctx!.principal = principal;
    return true;
  }
}

/** Throws 401, or 403 naming the missing permission, when `principal` does not meet `level`. */
function requireLevel(level: AccessLevel, principal: AuthPrincipal | null): void {
  if (typeof level === 'object') {
    requireAdmin({ principal }, level.permission);
    return;
  }
  switch (level) {
    case 'bearer':
      if (!principal) throw ApiError.unauthorized();
      return;
    case 'optional-bearer':
      return;
    case 'customer':
      if (!principal || principal.authTable !== CUSTOMER_TABLE) throw ApiError.unauthorized();
      return;
  }
}
