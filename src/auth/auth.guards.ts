import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { AuthPrincipal, RequestWithContext } from '../common/request-context';
import { BearerAuthenticator } from './bearer-auth.service';

export const CUSTOMER_TABLE = 'core_customers';
export const ADMIN_TABLE = 'core_users';
export const ADMIN_ROLE = 'admin';

/** An admin of the principal's app: a core_users account whose role (read from the account at this request) is admin. */
export function isAppAdmin(principal: AuthPrincipal | null): boolean {
  return principal !== null && principal.authTable === ADMIN_TABLE && principal.role === ADMIN_ROLE;
}

// Decorated so that its constructor's parameter types are emitted: subclasses without their own constructor inherit them.
@Injectable()
abstract class PrincipalGuard implements CanActivate {
  constructor(private readonly bearer: BearerAuthenticator) {}

  async canActivate(execution: ExecutionContext): Promise<boolean> {
    const request = execution.switchToHttp().getRequest<RequestWithContext>();
    const principal = await this.bearer.authenticate(request);
    this.check(principal);
    request.ctx!.principal = principal;
    return true;
  }

  protected abstract check(principal: AuthPrincipal | null): void;
}

/** Any valid access token of the request's app. */
@Injectable()
export class BearerGuard extends PrincipalGuard {
  protected check(principal: AuthPrincipal | null): void {
    if (!principal) throw ApiError.unauthorized();
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
    if (!principal || principal.authTable !== CUSTOMER_TABLE) throw ApiError.unauthorized();
  }
}

/** An access token of a core_users account that is an admin of the request's app now (the role is read from the account, not the token). */
@Injectable()
export class AdminGuard extends PrincipalGuard {
  protected check(principal: AuthPrincipal | null): void {
    if (!principal) throw ApiError.unauthorized();
    if (!isAppAdmin(principal)) throw ApiError.forbidden();
  }
}
