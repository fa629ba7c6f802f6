import { mayDo } from './access-guards';
import { ApiError } from './api-error';
import { Permission } from './permissions';
import { AuthPrincipal } from './request-context';

/**
 * The caller must be an admin of the request's app: a staff member (core_users) holding `permission`. 401
 * without a principal, 403 naming the permission for anyone else; the principal otherwise.
 */
export function requireAdmin(ctx: { principal: AuthPrincipal | null }, permission: Permission): AuthPrincipal {
  if (!ctx.principal) throw ApiError.unauthorized();
  if (!mayDo(ctx.principal, permission)) throw ApiError.missingPermission(permission);
  return ctx.principal;
}
