import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SitesService } from '../app-context';
import { PasswordAuthService } from '../auth';
import type { Account, TokenPair } from '../auth';
import { ApiError } from '../common/api-error';
import { effectiveRoles, hasPermission, PERMISSIONS } from '../common/permissions';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { consoleError } from './console.errors';
import { ConsoleSessionData, ConsoleSignInRequest } from './console-session.dto';
import { ConsoleSessionRepository, StoredSession } from './repositories/console-session.repository';

const STAFF_TABLE = 'core_users';
/** The cookie: `<session id>.<secret>.<refresh token>`; the secret is 32 random bytes in base64url. */
const COOKIE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_.-]{1,4096})$/;

/** What a sign-in or refresh answers, and the cookie value to set. */
export interface ConsoleSessionGrant {
  data: ConsoleSessionData;
  cookie: string;
}

/**
 * The staff console's browser sessions (README "Staff console"). A sign-in checks the staff member's password
 * with the auth module's login (its per-account limits included) and gets its token pair; the access token goes
 * to the page, the refresh token into the `console_refresh` cookie, bound to a row of core_console_sessions by
 * a random secret whose digest the row keeps. A refresh needs the cookie's current secret (each refresh replaces
 * it, so a cookie used once no longer works), a session refreshed within CONSOLE_IDLE_MINUTES, and a refresh
 * token the auth module still accepts (signature, expiry, the account and its password unchanged); roles and
 * permissions are read from the account each time. Sign-out deletes the row: the cookie is then worthless.
 */
@Injectable()
export class ConsoleSessionService {
  constructor(
    private readonly auth: PasswordAuthService,
    private readonly sites: SitesService,
    private readonly sessions: ConsoleSessionRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async signIn(ctx: RequestContext, input: ConsoleSignInRequest): Promise<ConsoleSessionGrant> {
    ctx.site = await this.tenantOf(ctx, input);
    const { tokens, account } = await this.auth.login(ctx, STAFF_TABLE, input.email, input.password);
    const data = this.sessionData(ctx, tokens, account); // 403 for an account without a staff role
    await this.sessions.deleteIdle(ctx, this.config.console.idleMinutes);
    const id = randomUUID();
    const secret = newSecret();
    await this.sessions.insert(ctx, { id, userId: account.id, secretHash: digest(secret) });
    return { data, cookie: `${id}.${secret}.${tokens.refresh_token}` };
  }

  /**
   * A new access token and a new cookie for the session the cookie names. 401 for no cookie, a malformed one, a
   * session signed out or of a cookie already used, an idle session (which is then deleted), or a refresh token
   * the auth module refuses; 403 for an account that holds no staff role any more.
   */
  async refresh(ctx: RequestContext, cookie: string | undefined): Promise<ConsoleSessionGrant> {
    const { session, secret, refreshToken } = await this.sessionOf(ctx, cookie);
    if (session.idle) {
      await this.sessions.delete(ctx, session.id);
      throw consoleError('IDLE');
    }
    let grant: { tokens: TokenPair; data: ConsoleSessionData };
    try {
      ctx.site = await this.sites.findById(ctx, session.appId);
      if (!ctx.site) throw consoleError('NO_SESSION');
      const { tokens, account } = await this.auth.refreshAlone(ctx, refreshToken);
      if (account.table !== STAFF_TABLE || account.id !== session.userId) throw consoleError('NO_SESSION');
      grant = { tokens, data: this.sessionData(ctx, tokens, account) };
    } catch (error) {
      // A session whose token or account no longer qualifies (password changed, staff role taken away) ends here.
      if (!(error instanceof ApiError) || ![400, 401, 403].includes(error.httpStatus)) throw error;
      await this.sessions.delete(ctx, session.id);
      throw error.httpStatus === 400 ? consoleError('NO_SESSION') : error; // a token that is no JWT: a bad cookie
    }
    const { tokens, data } = grant;
    const next = newSecret();
    // Only one of two refreshes with the same cookie gets here first: the other's cookie no longer matches.
    if (!(await this.sessions.rotate(ctx, session.id, digest(secret), digest(next)))) throw consoleError('NO_SESSION');
    return { data, cookie: `${session.id}.${next}.${tokens.refresh_token}` };
  }

  /** Ends the session the cookie names, when it names one (a sign-out without a session is no error). */
  async signOut(ctx: RequestContext, cookie: string | undefined): Promise<void> {
    const found = await this.sessionOf(ctx, cookie).catch((error: unknown) => {
      if (error instanceof ApiError && error.httpStatus === 401) return null;
      throw error;
    });
    if (found) await this.sessions.delete(ctx, found.session.id);
  }

  /** The session the cookie names, its secret compared in constant time with the stored digest; else 401. */
  private async sessionOf(
    ctx: RequestContext,
    cookie: string | undefined,
  ): Promise<{ session: StoredSession; secret: string; refreshToken: string }> {
    const parts = cookie === undefined ? null : COOKIE.exec(cookie);
    if (!parts) throw consoleError('NO_SESSION');
    const [, id, secret, refreshToken] = parts;
    const session = await this.sessions.find(ctx, id, this.config.console.idleMinutes);
    if (!session || !timingSafeEqual(session.secretHash, digest(secret))) throw consoleError('NO_SESSION');
    return { session, secret, refreshToken };
  }

  /**
   * The tenant the sign-in names: by `domain`, else by `appID` (both: they must name the same app). 400 naming
   * the field when neither is given or the one given names no app.
   */
  private async tenantOf(ctx: RequestContext, input: ConsoleSignInRequest) {
    const domain = input.domain?.trim().toLowerCase();
    if (!domain && input.appID === undefined) throw ApiError.field('domain', 'domain is required (or appID)');
    if (domain) {
      const site = await this.sites.findByDomain(ctx, domain);
      if (!site) throw ApiError.field('domain', 'No app has this domain');
      if (input.appID !== undefined && input.appID !== site.id) throw ApiError.field('appID', 'appID is not the app of this domain');
      return site;
    }
    const site = await this.sites.findById(ctx, input.appID!);
    if (!site) throw ApiError.field('appID', 'No app has this appID');
    return site;
  }

  /** The answer for a signed-in staff member; 403 `Insufficient permissions` for an account without a staff role. */
  private sessionData(ctx: RequestContext, tokens: TokenPair, account: Account): ConsoleSessionData {
    const roles = effectiveRoles(account.role, account.staffRoles);
    if (roles.length === 0) throw ApiError.forbidden();
    const site = ctx.app;
    return {
      accessToken: tokens.access_token,
      expiresIn: this.config.jwt.accessTtlSeconds,
      idleMinutes: this.config.console.idleMinutes,
      staff: {
        id: account.id,
        email: account.email,
        firstname: account.firstname,
        lastname: account.lastname,
        roles,
        permissions: PERMISSIONS.filter((permission) => hasPermission(roles, permission)),
      },
      app: { appID: site.id, name: site.name, domain: site.domain },
    };
  }
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}
