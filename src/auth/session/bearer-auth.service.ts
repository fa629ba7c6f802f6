import { Injectable } from '@nestjs/common';
import { SitesService } from '../../app-context';
import { ApiError } from '../../common/api-error';
import { ADMIN_TABLE } from '../../common/access-guards';
import { effectiveRoles } from '../../common/permissions';
import { AuthPrincipal, RequestContext } from '../../common/request-context';
import { AccountsService } from '../accounts/accounts.service';
import { isAuthTable } from '../auth-tables';
import { issuedBeforePasswordChange } from './password-version';
import { readClaims, VerifiedToken } from './session-tokens.service';

/**
 * Who a bearer access token speaks for, once AccessTokenStrategy checked its signature and expiry: its claims
 * must have the right shape, and the token is good only while its account exists and its password is the
 * one the token was issued for, so the account is read on every request; the principal carries the
 * account's role as it is now (a demoted admin's token stops being an admin's).
 *
 * The token names its app. A request that named no app gets the token's app as its tenant; a request that
 * named another app gets 401, never that app's data.
 */
@Injectable()
export class BearerAuthService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sites: SitesService,
  ) {}

  async principalOf(ctx: RequestContext, payload: unknown): Promise<AuthPrincipal> {
    let token: VerifiedToken;
    try {
      token = readClaims(payload, 'access');
    } catch {
      throw ApiError.unauthorized();
    }
    const { principal } = token;
    if (ctx.site && ctx.site.id !== principal.appId) throw ApiError.unauthorized();
    if (!isAuthTable(principal.authTable)) throw ApiError.unauthorized();
    ctx.credentialVerified = true; // its account lookup is served as an authenticated request's (tenant-pool.ts)
    const named = ctx.site;
    if (!named) {
      // The account is read within the tenant, so the token's app becomes the request's first; undone on refusal.
      ctx.site = await this.sites.findById(ctx, principal.appId);
      if (!ctx.site) throw ApiError.unauthorized();
    }
    const account = await this.accounts.findById(ctx, principal.authTable, principal.userId);
    if (!account || issuedBeforePasswordChange(token, account)) {
      ctx.site = named;
      throw ApiError.unauthorized();
    }
    return {
      ...principal,
      role: account.role,
      staffRoles: principal.authTable === ADMIN_TABLE ? effectiveRoles(account.role, account.staffRoles) : [],
    };
  }
}
