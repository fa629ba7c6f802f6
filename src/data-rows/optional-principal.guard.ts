import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { RequestWithContext } from '../common/request-context';
import { TokenService } from '../auth/token.service';

/**
 * Reads the bearer access token when one is sent (an invalid one, or one of another app, is a 401), so
 * that /getDataRows can serve the public without a token and admins with one. Whether the principal may
 * read drafts or raw rows is decided per request by DataRowsService.
 */
@Injectable()
export class OptionalPrincipalGuard implements CanActivate {
  constructor(private readonly tokens: TokenService) {}

  canActivate(execution: ExecutionContext): boolean {
    const request = execution.switchToHttp().getRequest<RequestWithContext>();
    const header = request.headers.authorization;
    if (!header) return true;
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw ApiError.unauthorized();
    let principal;
    try {
      principal = this.tokens.verify(match[1], 'access');
    } catch {
      throw ApiError.unauthorized();
    }
    if (request.ctx?.site && request.ctx.site.id !== principal.appId) throw ApiError.unauthorized();
    if (request.ctx) request.ctx.principal = principal;
    return true;
  }
}
