import { applyDecorators, CanActivate, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiExtension } from '@nestjs/swagger';
import { hasPermission, Permission } from './permissions';
import { AuthPrincipal } from './request-context';

export const ADMIN_TABLE = 'core_users';
export const CUSTOMER_TABLE = 'core_customers';

/** What a route asks of its caller's credential: a kind of bearer, or a staff member holding a permission. */
export type AccessLevel = 'bearer' | 'optional-bearer' | 'customer' | { permission: Permission };

/** Whether `principal` is a staff member of the request's app with `permission` (README "Staff roles and permissions"). */
export function mayDo(principal: AuthPrincipal | null, permission: Permission): boolean {
  return principal !== null && principal.authTable === ADMIN_TABLE && hasPermission(principal.staffRoles, permission);
}

/**
 * The port every module guards its routes through: checks the request's credential for `level`, sets
 * `ctx.principal`, and throws the contract's 401/403 when the credential does not qualify. The auth module
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

const PERMISSION_KEY = 'platform:permission';

/** A staff member of the request's app holding the route's permission (@RequirePermission): 401 without a bearer, 403 naming it otherwise. */
@Injectable()
export class PermissionGuard implements CanActivate {
  constructor(
    private readonly policy: AccessPolicy,
    private readonly reflector: Reflector,
  ) {}
  canActivate(execution: ExecutionContext): Promise<boolean> {
    const permission = this.reflector.getAllAndOverride<Permission>(PERMISSION_KEY, [execution.getHandler(), execution.getClass()]);
    return this.policy.admit({ permission }, execution);
  }
}

/**
 * A route open to others, where the staff permission `permission` widens what the caller may do (the service
 * checks it: an owner's SQL merge, any order of the app, REDO): the operation's `x-permission-widens`.
 */
export function PermissionWidens(permission: Permission): MethodDecorator {
  return ApiExtension('x-permission-widens', permission);
}

/**
 * The staff permission a route needs, checked on the server for every request (PermissionGuard) and written
 * into the OpenAPI document as the operation's `x-permission`.
 */
export function RequirePermission(permission: Permission): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(PERMISSION_KEY, permission), UseGuards(PermissionGuard), ApiExtension('x-permission', permission));
}
