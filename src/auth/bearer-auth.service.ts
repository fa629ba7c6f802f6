import { Injectable } from '@nestjs/common';
import { SitesService } from '../app-context/sites.service';
import { ApiError } from '../common/api-error';
import { AuthPrincipal, RequestWithContext } from '../common/request-context';
import { AccountsService } from './accounts.service';
import { isAuthTable } from './auth-tables';
import { issuedBeforePasswordChange } from './password-version';
import { TokenService } from './token.service';

/**
 * Authenticates the bearer access token of a request. A token is good only while its account exists and
 * its password is the one the token was issued for, so the account is read on every request, and the
 * principal carries the account's role as it is now (a demoted admin's token stops being an admin's).
 *
 * The token names its app. A request that named no app gets the token's app as its tenant; a request that
 * named another app gets 401, never that app's data.
 */
@Injectable()
export class BearerAuthenticator {
  constructor(
    private readonly tokens: TokenService,
    private readonly accounts: AccountsService,
    private readonly sites: SitesService,
  ) {}

  /** The principal of the request's bearer token, or null without an Authorization header; 401 for any other header. */
  async authenticate(request: RequestWithContext): Promise<AuthPrincipal | null> {
    const header = request.headers.authorization;
    if (header === undefined) return null;
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw ApiError.unauthorized();
    let token: ReturnType<TokenService['verifyWithIssuedAt']>;
    try {
      token = this.tokens.verifyWithIssuedAt(match[1], 'access');
    } catch {
      throw ApiError.unauthorized();
    }
    const { principal } = token;
    const ctx = request.ctx!;
    if (ctx.site && ctx.site.id !== principal.appId) throw ApiError.unauthorized();
    if (!isAuthTable(principal.authTable)) throw ApiError.unauthorized();
    const account = await this.accounts.findById(principal.appId, principal.authTable, principal.userId);
    if (!account || issuedBeforePasswordChange(token, account)) throw ApiError.unauthorized();
    if (!ctx.site) {
      ctx.site = await this.sites.findById(principal.appId);
      if (!ctx.site) throw ApiError.unauthorized();
    }
    return { ...principal, role: account.role };
  }
}
