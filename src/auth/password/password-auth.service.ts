import { Injectable } from '@nestjs/common';
import { SitesService } from '../../app-context';
import { authError } from '../auth.errors';
import { AuthPrincipal, RequestContext } from '../../common/request-context';
import { isUniqueViolation } from '../../database/transaction';
import { TransactionalConnection } from '../../database/transactional-connection';
import { AbuseLimitsService } from './abuse-limits.service';
import { Account, AccountsService, NewAccount } from '../accounts/accounts.service';
import { AuthTable, isAuthTable } from '../auth-tables';
import { PasswordHasherService } from './password-hasher.service';
import { assertStrongPassword } from './password-policy';
import { issuedBeforePasswordChange, passwordVersion } from '../session/password-version';
import {
  InvalidTokenError,
  MalformedTokenError,
  TokenExpiredError,
  TokenPair,
  SessionTokensService,
  VerifiedToken,
} from '../session/session-tokens.service';

export function principalOf(account: Account): AuthPrincipal {
  return { userId: account.id, appId: account.appId, authTable: account.table, role: account.role };
}

/** Email-and-password login, sign-up and token refresh over the three user tables of one app. */
@Injectable()
export class PasswordAuthService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly accounts: AccountsService,
    private readonly hasher: PasswordHasherService,
    private readonly tokens: SessionTokensService,
    private readonly limits: AbuseLimitsService,
    private readonly sites: SitesService,
  ) {}

  /**
   * The account whose password this is, or 401 `Invalid credentials` (unknown email and wrong password
   * alike, in the same time) / 401 `Authentication failed` (an account without a usable password hash).
   * A legacy or weaker hash is replaced by bcrypt at the configured cost.
   */
  async verifyCredentials(
    ctx: RequestContext,
    table: AuthTable,
    email: string,
    password: string,
    failureBody?: Record<string, unknown>,
  ): Promise<Account> {
    // Only failures count against the account's login limits (429 before bcrypt runs); a success clears this address's.
    return this.limits.login(ctx, table, email, async () => {
      const account = await this.accounts.findByEmail(ctx, table, email);
      if (!account) {
        await this.hasher.spendVerifyTime(password, ctx.clientGone);
        throw authError('INVALID_CREDENTIALS', { body: failureBody });
      }
      const outcome = await this.hasher.verify(password, account.passwordHash, ctx.clientGone);
      if (outcome === 'mismatch') throw authError('INVALID_CREDENTIALS', { body: failureBody });
      if (outcome === 'unusable') throw authError('AUTHENTICATION_FAILED', { body: failureBody });
      if (outcome === 'upgrade') await this.accounts.upgradeHash(ctx, account, await this.hasher.hash(password));
      return account;
    });
  }

  async login(ctx: RequestContext, table: AuthTable, email: string, password: string): Promise<{ tokens: TokenPair; account: Account }> {
    const account = await this.verifyCredentials(ctx, table, email, password);
    return { tokens: this.issueTokens(account), account };
  }

  /** Creates the account and its version-tracking record in the route's transaction; 409 when the email is taken in this app and table. */
  async signUp(ctx: RequestContext, table: AuthTable, input: Omit<NewAccount, 'passwordHash'> & { password: string }): Promise<Account> {
    this.connection.transactionManager(ctx); // the account and its core_data row belong together
    assertStrongPassword(input.password);
    const passwordHash = await this.hasher.hash(input.password);
    try {
      return await this.accounts.create(ctx, table, { ...input, passwordHash });
    } catch (error) {
      if (isUniqueViolation(error)) throw authError('EMAIL_TAKEN');
      throw error;
    }
  }

  issueTokens(account: Account): TokenPair {
    return this.tokens.issuePair(principalOf(account), passwordVersion(account));
  }

  /**
   * A new pair for a valid refresh token. The (possibly expired) access token must be ours and name the
   * same account; the account must still exist, and a refresh token issued before its last password change
   * is refused. A request that named no app gets the token's app as its tenant.
   */
  async refresh(ctx: RequestContext, payload: unknown): Promise<TokenPair> {
    const body = payload as { access_token?: unknown; refresh_token?: unknown } | null;
    if (
      !body ||
      typeof body !== 'object' ||
      typeof body.access_token !== 'string' ||
      typeof body.refresh_token !== 'string' ||
      !body.access_token ||
      !body.refresh_token
    ) {
      throw authError('INVALID_TOKEN_FORMAT');
    }
    const refresh = this.verifyRefreshToken(body.refresh_token);
    let access: AuthPrincipal;
    try {
      access = this.tokens.verify(body.access_token, 'access', { ignoreExpiration: true });
    } catch (error) {
      if (error instanceof InvalidTokenError) throw authError('INVALID_TOKEN_FORMAT');
      throw error;
    }
    const claimed = refresh.principal;
    if (access.userId !== claimed.userId || access.appId !== claimed.appId || access.authTable !== claimed.authTable) {
      throw authError('INVALID_REFRESH_TOKEN');
    }
    return (await this.renew(ctx, refresh)).tokens;
  }

  /**
   * A new pair, and the account, for a refresh token alone: the staff console's cookie session (src/console),
   * which keeps no access token across page loads and binds the refresh token to a server-side session of its
   * own. The same checks as `refresh` otherwise: the token's signature, type and expiry, its app (the context's
   * when it names one), the account still there and no password change since the token was issued.
   */
  async refreshAlone(ctx: RequestContext, refreshToken: string): Promise<{ tokens: TokenPair; account: Account }> {
    return this.renew(ctx, this.verifyRefreshToken(refreshToken));
  }

  private verifyRefreshToken(token: string): VerifiedToken {
    try {
      return this.tokens.verifyWithIssuedAt(token, 'refresh');
    } catch (error) {
      if (error instanceof TokenExpiredError) throw authError('REFRESH_TOKEN_EXPIRED');
      if (error instanceof MalformedTokenError) throw authError('INVALID_TOKEN_FORMAT');
      throw authError('INVALID_REFRESH_TOKEN');
    }
  }

  private async renew(ctx: RequestContext, refresh: VerifiedToken): Promise<{ tokens: TokenPair; account: Account }> {
    const claimed = refresh.principal;
    if (!isAuthTable(claimed.authTable) || (ctx.site && ctx.site.id !== claimed.appId)) throw authError('INVALID_REFRESH_TOKEN');
    ctx.site ??= await this.sites.findById(ctx, claimed.appId);
    if (!ctx.site) throw authError('INVALID_REFRESH_TOKEN');

    const account = await this.accounts.findById(ctx, claimed.authTable, claimed.userId);
    if (!account) throw authError('INVALID_REFRESH_TOKEN');
    if (issuedBeforePasswordChange(refresh, account)) throw authError('REFRESH_TOKEN_EXPIRED');
    return { tokens: this.issueTokens(account), account };
  }
}
