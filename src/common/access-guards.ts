import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AuthPrincipal } from './request-context';

export const ADMIN_TABLE = 'core_users';
export const CUSTOMER_TABLE = 'core_customers';
export const ADMIN_ROLE = 'admin';

/** An admin of the principal's app: a core_users account whose role (read from the account at this request) is admin. */
export function isAppAdmin(principal: AuthPrincipal | null): boolean {
  return principal !== null && principal.authTable === ADMIN_TABLE && principal.role === ADMIN_ROLE;
}

/** What a route asks of its caller's credential. */
export type AccessLevel = 'bearer' | 'optional-bearer' | 'customer' | 'admin';

/**
 * The port every module guards its routes through: checks the request's credential for `level`, sets
 * `ctx.principal`, and throws the spec's 401/403 when the credential does not qualify. The auth module
 * implements it (provided globally), so modules below auth guard routes without importing auth.
 */
export abstract class AccessPolicy {
  abstract admit(level: AccessLevel, execution: ExecutionContext): Promise<boolean>;
}

/** Any valid access token of the request's app. */
@Injectable()
export class BearerGuard implements CanActivate {
  constructor(private readonly policy: AccessPolicy) {}
  canActivate(execution: ExecutionContext): Promise<boolean> {
    return this.policy.admit('bearer', execution);
  }
}

/** A bearer token when one is sent (checkout, cart): an invalid one is still refused. */
@Injectable()
export class OptionalBearerGuard implements CanActivate {
  constructor(private readonly policy: AccessPolicy) {}
  canActivate(execution: ExecutionContext): Promise<boolean> {
    return this.policy.admit('optional-bearer', execution);
  }
}

/** An access token of a customer (core_customers) of the request's app. */
@Injectable()
export class CustomerGuard implements CanActivate {
  constructor(private readonly policy: AccessPolicy) {}
  canActivate(execution: ExecutionContext): Promise<boolean> {
    return this.policy.admit('customer', execution);
  }
}

/** An access token of a core_users account that is an admin of the request's app now (the role is read from the account, not the token). */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(private readonly policy: AccessPolicy) {}
  canActivate(execution: ExecutionContext): Promise<boolean> {
    return this.policy.admit('admin', execution);
  }
}
