import { Inject, Injectable, Logger } from '@nestjs/common';
import { SitesService } from '../../app-context';
import { ApiError } from '../../common/api-error';
import { authError } from '../auth.errors';
import { IdCipherService } from '../../common/id-cipher.service';
import { RequestContext } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { MailTemplates } from '../../mail';
import { MailOutboxService } from '../../messaging';
import { AbuseLimitsService } from '../password/abuse-limits.service';
import { Account, AccountsService } from '../accounts/accounts.service';
import { AUTH_TABLES, AuthTable, isAuthTable } from '../auth-tables';
import { PasswordHasherService } from '../password/password-hasher.service';
import { assertStrongPassword } from '../password/password-policy';
import { resetMail } from './reset-mail';

const PURPOSE = 'reset-password';

/** What a reset token carries (sealed with ENCRYPTION_KEY, so it can be neither read nor forged). */
interface ResetClaims {
  u: number; // user id
  a: number; // app id
  t: AuthTable;
  pc: string; // the account's password_changed (µs) when the link was made: any password change voids it
  e: number; // expiry, ms since the epoch
}

/**
 * Password reset links (docs/auth.md "Reset links"): a sealed token with the user id and an expiry,
 * valid until the password changes (so it works once), mailed as a link on the app's own domain.
 */
@Injectable()
export class ResetLinksService {
  private readonly logger = new Logger('ResetLinks');

  constructor(
    private readonly accounts: AccountsService,
    private readonly cipher: IdCipherService,
    private readonly hasher: PasswordHasherService,
    private readonly outbox: MailOutboxService,
    private readonly templates: MailTemplates,
    private readonly limits: AbuseLimitsService,
    private readonly sites: SitesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Mails a reset link, through the outbox, when the account exists: the answer waits for the outbox row (one
   * INSERT), never for the mail, which the sender delivers after the commit. `mustExist` (customer routes)
   * answers 404 `No user found` otherwise; without it the answer is the same whether or not the account
   * exists, and a failed write is only logged.
   */
  async request(ctx: RequestContext, table: AuthTable, email: string, url: string | undefined, mustExist: boolean): Promise<void> {
    const base = this.linkBase(ctx, url);
    await this.limits.resetRequest(ctx, table, email);
    const account = await this.accounts.findByEmail(ctx, table, email);
    this.logger.log({ requestId: ctx.requestId, appId: ctx.appId, table, accountFound: account !== null }, 'password reset requested');
    if (!account) {
      if (mustExist) throw authError('NO_USER_FOUND');
      return;
    }
    const ttl = this.config.auth.resetTokenTtlSeconds;
    const claims: ResetClaims = { u: account.id, a: account.appId, t: table, pc: account.passwordChangedUs, e: Date.now() + ttl * 1000 };
    const link = appendToken(base, this.cipher.seal(PURPOSE, JSON.stringify(claims)));
    if (ctx.app.disable_email) {
      this.logger.warn({ requestId: ctx.requestId, appId: ctx.appId }, 'reset mail not sent: email is disabled for this app');
      return;
    }
    const sending = this.queueMail(ctx, account, link, ttl);
    if (mustExist) return sending;
    // Written before the answer, so that nothing of this request happens after it, but a failure answers the same.
    await sending.catch((error: Error) =>
      this.logger.error({ requestId: ctx.requestId, appId: ctx.appId, err: error.message }, 'reset mail failed'),
    );
  }

  /**
   * Sets the new password for a valid token; the token's password_changed must still hold, so a second use
   * fails. `table` (when sent) must be the token's; `allowedTables` are the tables the route may reset.
   */
  async reset(
    ctx: RequestContext,
    table: AuthTable | undefined,
    token: string,
    password: string,
    allowedTables: readonly AuthTable[] = AUTH_TABLES,
  ): Promise<void> {
    assertStrongPassword(password);
    const claims = this.readToken(token);
    if (!claims || claims.e < Date.now() || (table && table !== claims.t) || !allowedTables.includes(claims.t)) {
      throw authError('RESET_TOKEN_INVALID');
    }
    // The token names its app; a request that named another one is refused, never served with that app's account.
    if (ctx.site && ctx.site.id !== claims.a) throw ApiError.unauthorized();
    ctx.site ??= await this.sites.findById(ctx, claims.a);
    if (!ctx.site) throw authError('RESET_TOKEN_INVALID');
    const changed = await this.accounts.resetPassword(ctx, claims.t, claims.u, claims.pc, await this.hasher.hash(password));
    if (!changed) throw authError('RESET_TOKEN_INVALID');
    this.logger.log({ requestId: ctx.requestId, appId: claims.a, table: claims.t, userId: claims.u }, 'password reset');
  }

  /** Renders the mail and writes it to the outbox (the background sender is woken once it is written). */
  private async queueMail(ctx: RequestContext, account: Account, link: string, ttlSeconds: number): Promise<void> {
    await this.outbox.enqueue(ctx, await resetMail(this.templates, ctx.app, account, link, ttlSeconds));
  }

  private readToken(token: string): ResetClaims | null {
    const plain = this.cipher.open(PURPOSE, token);
    if (plain === null) return null;
    try {
      const c = JSON.parse(plain) as ResetClaims;
      return Number.isSafeInteger(c.u) &&
        Number.isSafeInteger(c.a) &&
        isAuthTable(c.t) &&
        typeof c.pc === 'string' &&
        typeof c.e === 'number'
        ? c
        : null;
    } catch {
      return null;
    }
  }

  /**
   * The reset page: `url` when it is an http(s) address on the app's domain (or a subdomain; also a loopback
   * address outside production) without user info, else https://<app domain>/reset-password. Never the
   * request's Host header, and never another site: the link carries a live credential.
   */
  private linkBase(ctx: RequestContext, url: string | undefined): string {
    const domain = ctx.app.domain.toLowerCase();
    if (url === undefined || url.trim() === '') return `https://${domain}/reset-password`;
    let parsed: URL;
    try {
      parsed = new URL(url.trim());
    } catch {
      throw ApiError.field('url', 'url must be an absolute http(s) URL');
    }
    if (!['http:', 'https:'].includes(parsed.protocol)) throw ApiError.field('url', 'url must be an absolute http(s) URL');
    // `https://evil.example%2F@shop.example.test` is on the app's host but reads as evil.example to a person.
    if (parsed.username || parsed.password) throw ApiError.field('url', 'url must not contain user info (user:password@)');
    const host = parsed.hostname.toLowerCase();
    const onAppDomain = host === domain || host.endsWith(`.${domain}`);
    if (!onAppDomain && !(isLoopback(host) && !ctx.production)) throw ApiError.field('url', `url must be on the app's domain (${domain})`);
    return parsed.toString();
  }
}

/** localhost, *.localhost, 127.0.0.0/8 and ::1 (URL hostnames keep IPv6 brackets). */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';
}

/** `…?x=` or `…/` get the token appended as is; any other URL gets a `token` query parameter. */
export function appendToken(base: string, token: string): string {
  if (base.endsWith('=') || (base.endsWith('/') && new URL(base).pathname !== '/')) return base + token;
  const url = new URL(base);
  url.searchParams.set('token', token);
  return url.toString();
}
