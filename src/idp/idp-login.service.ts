import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SitesService } from '../app-context';
import { AccountsService, AuthTable, isAuthTable, SessionTokensService } from '../auth';
import { ApiError } from '../common/api-error';
import { IdCipherService, MAX_ID } from '../common/id-cipher.service';
import { RequestContext, TenantSite } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { IdentitiesService } from './identities.service';
import { IdpCallbackRequest, IdpLogoutRequest, IdpStartRequest } from './idp.dto';
import { idpError } from './idp.errors';
import { IdpClientService } from './idp-client.service';
import { IdpSealer } from './idp-seal';
import {
  CALLBACK_COLUMNS,
  DEFAULT_CALLBACK_PATH,
  DEFAULT_LOGOUT_PATH,
  LOGOUT_COLUMNS,
  resolveAppUrl,
  tenantReturnUrl,
  withParams,
} from './relay-page';

/** The OAuth state's lifetime: a login must come back from the IdP within it. */
export const STATE_TTL_SECONDS = 600;
/** The logout state's lifetime (the user may stay a while on the IdP's logout confirmation). */
export const LOGOUT_STATE_TTL_SECONDS = 3600;
/** The `idp_app_ctx` cookie: the tenant of the last login in this browser, for a logout relay without state. */
export const APP_CTX_COOKIE = 'idp_app_ctx';
export const APP_CTX_TTL_SECONDS = 30 * 86400;
export const DEFAULT_AUTH_TABLE = 'core_customers';

const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The OAuth state's payload (sealed with IDP_COOKIE_PASSWORD, purpose `idp-state`). */
interface StatePayload {
  app: number;
  tbl: string;
  /** The client's own state. */
  cs: string | null;
  /** The nonce sent to the IdP, checked against the ID token's. */
  n: string;
  /** Whether start got a PKCE challenge (the callback then needs the verifier). */
  pkce: boolean;
}

interface LogoutPayload {
  app: number;
  /** The client's returnTo, checked against the app's origins when logout was called. */
  rt: string | null;
}

export interface RelayAnswer {
  target: URL;
  /** The sealed `idp_app_ctx` cookie value to set, when the relay names the tenant. */
  appCookie: string | null;
}

/**
 * The IdP facade (README "Single sign-on (OpenID Connect)"): start, callback, logout and the two relays. Users are
 * found or created by IdentitiesService through the auth module's AccountsService; tokens are the service's
 * own (SessionTokensService), the IdP's are never returned or stored.
 */
@Injectable()
export class IdpLoginService {
  private readonly settings: AppConfig['idp'];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly client: IdpClientService,
    private readonly sealer: IdpSealer,
    private readonly identities: IdentitiesService,
    private readonly accounts: AccountsService,
    private readonly sites: SitesService,
    private readonly tokens: SessionTokensService,
    private readonly cipher: IdCipherService,
  ) {
    this.settings = config.idp;
  }

  async start(ctx: RequestContext, body: IdpStartRequest): Promise<{ authorizationUrl: string; state: string }> {
    const site = ctx.site;
    if (!site) throw idpError('START_APP_MISSING');
    if (body.appID !== undefined && body.appID !== site.id) throw ApiError.field('appID', 'appID does not match the app of this request');
    this.client.assertConfigured();
    this.checkRedirectUri(body.redirectUri);
    const table = this.allowedTable(body.authTable);
    const challenge = codeChallengeOf(body, this.client.confidential);
    const nonce = randomBytes(32).toString('base64url');
    const payload: StatePayload = { app: site.id, tbl: table, cs: body.state ?? null, n: nonce, pkce: challenge !== null };
    const state = this.sealer.seal('idp-state', { ...payload }, STATE_TTL_SECONDS);
    const url = await this.client.authorizationUrl({ state, nonce, codeChallenge: challenge, screenHint: body.flow ?? null });
    this.client.debug('start', { app: site.id, table, pkce: challenge !== null, flow: body.flow ?? null });
    return { authorizationUrl: url.href, state };
  }

  async callback(ctx: RequestContext, body: IdpCallbackRequest) {
    if (!body.code) throw idpError('CODE_REQUIRED').withField('code', 'code is required');
    this.client.assertConfigured();
    this.checkRedirectUri(body.redirectUri);
    const payload = this.openState(body.state);
    const site = await this.sites.findById(ctx, payload.app);
    if (!site) throw stateError('state names an app that does not exist');
    if (ctx.site && ctx.site.id !== site.id) throw ApiError.field('state', "state was issued for another app than this request's");
    ctx.site = site;

    const table = this.allowedTable(body.authTable);
    if (table !== payload.tbl) throw ApiError.field('authTable', `authTable must be the one given to start (${payload.tbl})`);
    const verifier = body.codeVerifier ?? null;
    if (payload.pkce && verifier === null)
      throw ApiError.field('codeVerifier', 'codeVerifier is required when codeChallenge was sent to start');
    if (!payload.pkce && verifier !== null) throw ApiError.field('codeVerifier', 'codeVerifier was given but start got no codeChallenge');
    if (verifier !== null && !CODE_VERIFIER.test(verifier))
      throw ApiError.field('codeVerifier', 'codeVerifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~"');

    const claims = await this.client.exchange(body.code, body.state!, verifier, payload.n);
    const { account, outcome } = await this.identities.signIn(ctx, table, claims);
    this.client.debug('callback', { app: site.id, table, outcome, userId: account.id });

    const profile = await this.accounts.profileOf(ctx, table, account.id);
    if (!profile) throw new Error(`account ${table} ${account.id} vanished after the login`);
    const pair = this.tokens.issuePair({ userId: account.id, appId: site.id, authTable: table, role: account.role });
    return {
      token: { ...pair, expires_in: this.config.jwt.accessTtlSeconds },
      user: {
        _id: this.cipher.encryptId(site.id, account.id),
        email: profile.email ?? claims.email,
        firstname: profile.firstname,
        lastname: profile.lastname,
        displayname: profile.displayname,
        photourl: profile.photourl,
        emailverified: profile.emailverified,
        ...(claims.sid !== null ? { sessionid: claims.sid } : {}),
      },
      ...(payload.cs !== null ? { clientState: payload.cs } : {}),
    };
  }

  async logout(ctx: RequestContext, body: IdpLogoutRequest): Promise<{ logoutUrl: string | null }> {
    if (!body.sessionId) throw idpError('SESSION_ID_REQUIRED').withField('sessionId', 'sessionId is required');
    this.client.assertConfigured();
    const site = ctx.site;
    if (site && body.appID !== undefined && body.appID !== site.id)
      throw ApiError.field('appID', 'appID does not match the app of this request');
    let postLogout: string | null = null;
    let state: string | null = null;
    if (site) {
      let returnTo: string | null = null;
      if (body.returnTo) {
        const url = tenantReturnUrl(site, body.returnTo);
        if (!url) throw ApiError.field('returnTo', `returnTo must be a path or a URL on the app's domain (${site.domain})`);
        returnTo = url.href;
      }
      const payload: LogoutPayload = { app: site.id, rt: returnTo };
      state = this.sealer.seal('idp-logout', { ...payload }, LOGOUT_STATE_TTL_SECONDS);
      postLogout = this.logoutRelayUri;
    } else if (body.returnTo) {
      // No app named: the IdP itself checks returnTo against the client's registered post-logout URIs.
      if (!/^https?:\/\//i.test(body.returnTo) || !URL.canParse(body.returnTo))
        throw ApiError.field('returnTo', 'returnTo must be an absolute http(s) URL when no app is named');
      postLogout = body.returnTo;
    }
    const idpUrl = await this.client.endSessionUrl({ sessionId: body.sessionId, postLogoutRedirectUri: postLogout, state });
    this.client.debug('logout', { app: site?.id ?? null, endSession: idpUrl !== null });
    if (idpUrl) return { logoutUrl: idpUrl.href };
    // An IdP without RP-initiated logout: only the relay (or returnTo) is left to visit.
    if (state !== null) return { logoutUrl: withParams(new URL(this.logoutRelayUri), [['state', state]]).href };
    return { logoutUrl: postLogout };
  }

  /**
   * GET /auth/oauth/idp/redirect: the app callback URL of the state's app with every query parameter of the
   * IdP's redirect, and the `idp_app_ctx` cookie. A state past its expiry still names its app here (the
   * callback refuses it), so a slow login lands on the app with an answer rather than on a JSON error.
   */
  async relay(ctx: RequestContext, query: URLSearchParams): Promise<RelayAnswer> {
    const states = query.getAll('state');
    const opened = states.length === 1 ? this.sealer.inspect<StatePayload>('idp-state', states[0]) : null;
    const app = opened && opened.status !== 'invalid' ? opened.payload.app : null;
    const site = isAppId(app) ? await this.sites.findById(ctx, app) : null;
    if (!site) throw idpError('RELAY_STATE_INVALID');
    const target = resolveAppUrl(site, CALLBACK_COLUMNS, DEFAULT_CALLBACK_PATH);
    if (!target) throw idpError('RELAY_URL_UNRESOLVED');
    this.client.debug('relay', { app: site.id, error: query.get('error') });
    return { target: withParams(target, query), appCookie: this.appCookie(site) };
  }

  /**
   * GET /auth/oauth/idp/logout/redirect[/:state]: the app's logout URL (idp_app_logout_url, oauth_logout_url,
   * auth_logout_url), else the returnTo of the state, else https://<domain>/index.html. Without a state the
   * `idp_app_ctx` cookie names the app.
   */
  async logoutRelay(ctx: RequestContext, state: string | null, cookieHeader: string | undefined): Promise<RelayAnswer> {
    let app: unknown;
    let returnTo: string | null = null;
    if (state !== null) {
      const payload = this.sealer.open<LogoutPayload>('idp-logout', state);
      app = payload?.app ?? null;
      returnTo = typeof payload?.rt === 'string' ? payload.rt : null;
    } else {
      app = this.sealer.open<{ app: number }>('idp-app-ctx', readCookie(cookieHeader, APP_CTX_COOKIE))?.app ?? null;
    }
    const site = isAppId(app) ? await this.sites.findById(ctx, app) : null;
    if (!site) throw idpError('LOGOUT_STATE_INVALID');
    // returnTo was checked at logout; checked again against the app's settings as they are now.
    const back = returnTo !== null ? tenantReturnUrl(site, returnTo) : null;
    const target = resolveAppUrl(site, LOGOUT_COLUMNS, back ?? DEFAULT_LOGOUT_PATH);
    if (!target) throw idpError('LOGOUT_URL_UNRESOLVED');
    this.client.debug('logout relay', { app: site.id, from: state !== null ? 'state' : 'cookie' });
    return { target, appCookie: null };
  }

  /** The cookie path: the relays' public path, from the configured redirect URI (`…/auth/oauth/idp`). */
  get cookiePath(): string {
    const uri = this.settings.redirectUri;
    if (!uri) return `${this.config.basePath}/auth/oauth/idp`;
    return new URL(uri).pathname.replace(/\/(redirect|callback)$/, '') || '/';
  }

  /** The post-logout redirect URI to register at the IdP: the logout relay beside the login relay. */
  get logoutRelayUri(): string {
    const url = new URL(this.client.redirectUri);
    url.pathname = `${url.pathname.replace(/\/(redirect|callback)$/, '')}/logout/redirect`;
    return url.href;
  }

  private appCookie(site: TenantSite): string {
    return this.sealer.seal('idp-app-ctx', { app: site.id }, APP_CTX_TTL_SECONDS);
  }

  private openState(state: string | undefined): StatePayload {
    if (!state) throw stateError('state is required');
    const opened = this.sealer.inspect<StatePayload>('idp-state', state);
    if (opened.status === 'invalid') throw stateError('state is not one this service issued, or was altered');
    if (opened.status === 'expired') throw stateError(`state has expired (${STATE_TTL_SECONDS / 60} minutes): start the login again`);
    const payload = opened.payload;
    if (!isAppId(payload.app) || typeof payload.tbl !== 'string' || typeof payload.n !== 'string' || typeof payload.pkce !== 'boolean') {
      throw stateError('state is not one this service issued, or was altered');
    }
    return payload;
  }

  private checkRedirectUri(redirectUri: string | undefined): void {
    if (redirectUri === undefined) return;
    const configured = this.client.redirectUri;
    if (redirectUri !== configured && redirectUri !== this.settings.redirectUriSetting)
      throw idpError('REDIRECT_URI_MISMATCH', { detail: configured });
  }

  private allowedTable(authTable: string | undefined): AuthTable {
    const table = authTable ?? DEFAULT_AUTH_TABLE;
    if (!this.settings.allowedAuthTables.includes(table) || !isAuthTable(table))
      throw idpError('AUTH_TABLE_NOT_ALLOWED', { detail: table });
    return table;
  }
}

/** The PKCE challenge to send (S256 only), or null without PKCE; a public client (no IDP_API_KEY) must use PKCE. */
export function codeChallengeOf(
  body: Pick<IdpStartRequest, 'codeChallenge' | 'codeChallengeMethod'>,
  confidential: boolean,
): string | null {
  if (body.codeChallengeMethod !== undefined && body.codeChallengeMethod !== 'S256')
    throw ApiError.field('codeChallengeMethod', 'codeChallengeMethod must be S256');
  if (body.codeChallenge === undefined) {
    if (body.codeChallengeMethod !== undefined)
      throw ApiError.field('codeChallenge', 'codeChallenge is required when codeChallengeMethod is given');
    if (!confidential)
      throw ApiError.field('codeChallenge', 'codeChallenge is required: this service is a public client of the identity provider (PKCE)');
    return null;
  }
  if (!CODE_CHALLENGE.test(body.codeChallenge))
    throw ApiError.field('codeChallenge', 'codeChallenge must be the base64url SHA-256 of the verifier (43 characters, no padding)');
  return body.codeChallenge;
}

function stateError(detail: string): ApiError {
  return idpError('STATE_APP_MISSING').withField('state', detail);
}

function isAppId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= MAX_ID;
}

/** One cookie's value from a Cookie header (the first of that name). */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return null;
}
