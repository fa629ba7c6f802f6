import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { AuthPrincipal, RequestWithContext } from '../common/request-context';
import { TokenService } from './token.service';

export const CUSTOMER_TABLE = 'core_customers';
export const ADMIN_TABLE = 'core_users';
export const ADMIN_ROLE = 'admin';

/** The principal of the request's bearer access token, or null without one; throws 401 for a bad one. */
function principalOf(request: RequestWithContext, tokens: TokenService): AuthPrincipal | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw ApiError.unauthorized();
  let principal: AuthPrincipal;
  try {
    principal = tokens.verify(match[1], 'access');
  } catch {
    throw ApiError.unauthorized();
  }
  // A token is only good in the app that issued it.
  if (request.ctx?.site && request.ctx.site.id !== principal.appId) throw ApiError.unauthorized();
  return principal;
}

// Decorated so that its constructor's parameter types are emitted: subclasses without their own constructor inherit them.
@Injectable()
abstract class PrincipalGuard implements CanActivate {
  constructor(protected readonly tokens: TokenService) {}

  async canActivate(execution: ExecutionContext): Promise<boolean> {
    const request = execution.switchToHttp().getRequest<RequestWithContext>();
    const principal = principalOf(request, this.tokens);
    await this.check(principal);
    if (request.ctx) request.ctx.principal = principal;
    return true;
  }

  protected abstract check(principal: AuthPrincipal | null): void | Promise<void>;
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

/**
 * An access token of a core_users admin of the request's app. The role claim is only a hint: the account
 * must still exist and still be admin of that app now (a demoted or deleted admin's token stops working).
 */
@Injectable()
export class AdminGuard extends PrincipalGuard {
  constructor(tokens: TokenService, @InjectDataSource() private readonly dataSource: DataSource) {
    super(tokens);
  }

  protected async check(principal: AuthPrincipal | null): Promise<void> {
    if (!principal) throw ApiError.unauthorized();
    if (principal.authTable !== ADMIN_TABLE || principal.role !== ADMIN_ROLE) throw new ApiError(403, 'Insufficient permissions');
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM core_users WHERE id = $1 AND app_id = $2 AND primary_role = $3', [
      principal.userId,
      principal.appId,
      ADMIN_ROLE,
    ]);
    if (rows.length === 0) throw new ApiError(403, 'Insufficient permissions');
  }
}
