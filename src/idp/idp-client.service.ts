import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import * as oidc from 'openid-client';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { idpError } from './idp.errors';

/** What the service keeps of a login at the IdP: the ID token's claims it uses (never the tokens themselves). */
export interface IdpClaims {
  /** The IdP's subject identifier. */
  sub: string;
  email: string | null;
  /** True only when the IdP asserts `email_verified: true`. */
  emailVerified: boolean;
  givenName: string | null;
  familyName: string | null;
  name: string | null;
  picture: string | null;
  /** The IdP's session id (`sid`), when it gives one. */
  sid: string | null;
}

export interface AuthorizationRequest {
  state: string;
  nonce: string;
  codeChallenge: string | null;
  screenHint: string | null;
}

const SCOPE = 'openid email profile';
/** OAuth error codes that say the IdP itself is failing, not the request. */
const SERVER_SIDE_ERRORS = new Set(['server_error', 'temporarily_unavailable']);
/** openid-client codes of answers that are not OAuth at all (an IdP down, a proxy page, a timeout). */
const UNAVAILABLE_CODES = new Set([
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
  'OAUTH_RESPONSE_IS_NOT_CONFORM',
  'OAUTH_RESPONSE_IS_NOT_JSON',
  'OAUTH_HTTP_REQUEST_FORBIDDEN',
  'OAUTH_REQUEST_PROTOCOL_FORBIDDEN',
]);

/**
 * The OpenID Connect client of the configured IdP, on `openid-client` 6 (a certified relying party library).
 *
 * Discovery (`IDP_ISSUER_URL/.well-known/openid-configuration`) runs once, in the background at start and
 * again on first use if that failed, and its result is kept for the life of the process: the JWKS is then
 * fetched and refreshed by the library as keys rotate. While the IdP cannot be discovered the SSO routes
 * answer 503 and the rest of the service runs; discovery is tried again at most every
 * IDP_DISCOVERY_RETRY_MS, concurrent requests sharing one attempt.
 *
 * TLS: Node's trust store, plus NODE_EXTRA_CA_CERTS for an IdP with a private CA. Plain http is allowed only
 * outside production, for local IdPs (openid-client's `allowInsecureRequests`).
 */
@Injectable()
export class IdpClientService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Idp');
  private readonly settings: AppConfig['idp'];
  private discovered: oidc.Configuration | null = null;
  private pending: Promise<oidc.Configuration> | null = null;
  private retryAt = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.settings = config.idp;
  }

  onApplicationBootstrap(): void {
    // Warm the cache without holding up the start: an IdP that is down only affects the SSO routes.
    if (this.settings.clientId && this.settings.issuerUrl) this.configuration().catch(() => undefined);
  }

  /** 400 `Identity provider clientId (IDP_CLIENT_ID) is not configured` unless SSO is configured. */
  assertConfigured(): void {
    if (!this.settings.clientId || !this.settings.issuerUrl || !this.settings.redirectUri || !this.settings.cookiePassword) {
      throw idpError('CLIENT_ID_NOT_CONFIGURED');
    }
  }

  /** The relay URI registered at the IdP as redirect URI. */
  get redirectUri(): string {
    this.assertConfigured();
    return this.settings.redirectUri!;
  }

  /** True when this service authenticates to the IdP with a client secret (IDP_API_KEY): PKCE is then optional. */
  get confidential(): boolean {
    return this.settings.apiKey !== null;
  }

  /** The discovered configuration; 503 while the IdP cannot be discovered. */
  async configuration(): Promise<oidc.Configuration> {
    this.assertConfigured();
    if (this.discovered) return this.discovered;
    if (!this.pending) {
      if (Date.now() < this.retryAt) throw idpError('IDP_UNAVAILABLE');
      this.pending = this.discover().then(
        (configuration) => {
          this.discovered = configuration;
          this.pending = null;
          this.debug('discovered', { issuer: configuration.serverMetadata().issuer });
          return configuration;
        },
        (error: unknown) => {
          this.pending = null;
          this.retryAt = Date.now() + this.settings.discoveryRetryMs;
          this.logger.warn(
            { err: describe(error), issuer: this.settings.issuerUrl },
            'Identity provider discovery failed; SSO answers 503 until it succeeds',
          );
          throw idpError('IDP_UNAVAILABLE');
        },
      );
    }
    return this.pending;
  }

  async authorizationUrl(request: AuthorizationRequest): Promise<URL> {
    const configuration = await this.configuration();
    const parameters: Record<string, string> = {
      redirect_uri: this.redirectUri,
      response_type: 'code',
      scope: SCOPE,
      state: request.state,
      nonce: request.nonce,
    };
    if (request.codeChallenge !== null) {
      parameters.code_challenge = request.codeChallenge;
      parameters.code_challenge_method = 'S256';
    }
    if (request.screenHint !== null) parameters.screen_hint = request.screenHint;
    // The session id (for logout) is in the ID token only when asked for, where the IdP takes the claims parameter.
    if (configuration.serverMetadata().claims_parameter_supported) parameters.claims = JSON.stringify({ id_token: { sid: null } });
    return oidc.buildAuthorizationUrl(configuration, parameters);
  }

  /**
   * The authorization code grant at the IdP's token endpoint, with the PKCE verifier when there is one, and the
   * ID token checked by the library (signature, issuer, audience, expiry, and `nonce` equal to the state's).
   * The claims come from the ID token, completed from the UserInfo endpoint when it lacks the email; the
   * tokens are dropped here. IdP refusals become 400 with the IdP's own `error: description` text.
   */
  async exchange(code: string, state: string, codeVerifier: string | null, nonce: string): Promise<IdpClaims> {
    const configuration = await this.configuration();
    const metadata = configuration.serverMetadata();
    // The authorization response as the relay received it: the redirect URI with code, state and (RFC 9207) iss.
    const response = new URL(this.redirectUri);
    response.searchParams.set('code', code);
    response.searchParams.set('state', state);
    if (metadata.authorization_response_iss_parameter_supported) response.searchParams.set('iss', metadata.issuer);
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, response, {
        pkceCodeVerifier: codeVerifier ?? undefined,
        expectedNonce: nonce,
        expectedState: state,
        idTokenExpected: true,
      });
      let claims: Record<string, unknown> = { ...tokens.claims() };
      if (typeof claims.email !== 'string' && metadata.userinfo_endpoint) {
        const info = await oidc.fetchUserInfo(configuration, tokens.access_token, String(claims.sub));
        claims = { ...info, ...claims, email: info.email, email_verified: info.email_verified };
      }
      const result = toClaims(claims);
      this.debug('code exchanged', { sub: result.sub, emailVerified: result.emailVerified, sid: result.sid !== null });
      return result;
    } catch (error) {
      throw this.failure(error, 'token');
    }
  }

  /**
   * The IdP's RP-initiated logout URL (end_session_endpoint from discovery) with client_id, the session as
   * `logout_hint`, and the post-logout redirect and its state; null when the IdP has no such endpoint.
   */
  async endSessionUrl(parameters: { sessionId: string; postLogoutRedirectUri: string | null; state: string | null }): Promise<URL | null> {
    const configuration = await this.configuration();
    if (!configuration.serverMetadata().end_session_endpoint) return null;
    const query: Record<string, string> = { logout_hint: parameters.sessionId };
    if (parameters.postLogoutRedirectUri !== null) query.post_logout_redirect_uri = parameters.postLogoutRedirectUri;
    if (parameters.state !== null) query.state = parameters.state;
    return oidc.buildEndSessionUrl(configuration, query);
  }

  /** IDP_DEBUG_AUTH: one log line per step, never a code, token or secret. */
  debug(step: string, detail: Record<string, unknown> = {}): void {
    if (this.settings.debug) this.logger.log({ step, ...detail }, `SSO: ${step}`);
  }

  /** An error of the OpenID Connect client as the answer to give. */
  private failure(error: unknown, during: string): ApiError | unknown {
    if (error instanceof ApiError) return error;
    if (error instanceof UnusableClaims) return idpError('ID_TOKEN_REJECTED', { detail: error.message });
    if (error instanceof oidc.ResponseBodyError || error instanceof oidc.WWWAuthenticateChallengeError) {
      const { code, description } = oauthError(error);
      this.debug('IdP refused', { during, error: code, status: error.status });
      if (SERVER_SIDE_ERRORS.has(code) || error.status >= 500) return this.unavailable(error, during);
      return idpError('GRANT_FAILED', { detail: description ? `${code}: ${description}` : code });
    }
    // A ClientError without a code is the library's "something went wrong" around an error it did not expect.
    if (
      isNetworkError(error) ||
      (error instanceof oidc.ClientError && (!error.code || UNAVAILABLE_CODES.has(error.code) || isNetworkError(error.cause)))
    )
      return this.unavailable(error, during);
    if (error instanceof oidc.ClientError) {
      const cause = error.cause as { message?: unknown } | undefined;
      const reason = typeof cause?.message === 'string' ? cause.message : error.message;
      this.logger.warn({ err: describe(error), during }, 'Identity provider answer rejected');
      return idpError('ID_TOKEN_REJECTED', { detail: reason });
    }
    return error;
  }

  private unavailable(error: unknown, during: string): ApiError {
    this.logger.warn({ err: describe(error), during }, 'Identity provider unavailable');
    return idpError('IDP_UNAVAILABLE');
  }

  private discover(): Promise<oidc.Configuration> {
    const issuer = new URL(this.settings.issuerUrl!);
    const execute = issuer.protocol === 'http:' && !this.config.production ? [oidc.allowInsecureRequests] : [];
    const secret = this.settings.apiKey;
    const clientAuth =
      secret === null
        ? oidc.None()
        : this.settings.tokenAuthMethod === 'client_secret_post'
          ? oidc.ClientSecretPost(secret)
          : oidc.ClientSecretBasic(secret);
    return oidc.discovery(issuer, this.settings.clientId!, secret === null ? undefined : { client_secret: secret }, clientAuth, {
      execute,
      timeout: this.settings.timeoutMs / 1000,
    });
  }
}

/** Valid claims the service cannot use (no usable subject). */
class UnusableClaims extends Error {}

function oauthError(error: oidc.ResponseBodyError | oidc.WWWAuthenticateChallengeError): { code: string; description: string | null } {
  if (error instanceof oidc.ResponseBodyError) return { code: error.error, description: error.error_description ?? null };
  const challenge = error.cause.find((c) => c.parameters.error);
  return { code: challenge?.parameters.error ?? 'invalid_client', description: challenge?.parameters.error_description ?? null };
}

function toClaims(claims: Record<string, unknown>): IdpClaims {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  const sub = text(claims.sub);
  if (sub === null || sub.length > 255) throw new UnusableClaims('the ID token has no subject of at most 255 characters');
  return {
    sub,
    email: text(claims.email),
    emailVerified: claims.email_verified === true || claims.email_verified === 'true', // some IdPs send the string
    givenName: text(claims.given_name),
    familyName: text(claims.family_name),
    name: text(claims.name),
    picture: text(claims.picture),
    sid: text(claims.sid),
  };
}

/**
 * fetch's failure to reach the IdP (refused, reset, DNS, TLS: a TypeError `fetch failed` whose cause is the
 * system or TLS error) or to get its answer in time. Matched by name, not instanceof: the error may come from
 * another realm than the library's.
 */
function isNetworkError(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown; cause?: { code?: unknown } } | null;
  if (typeof e !== 'object' || e === null) return false;
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return true; // IDP_TIMEOUT_MS ran out
  return e.name === 'TypeError' && (e.message === 'fetch failed' || typeof e.cause?.code === 'string');
}

/** An error for the log, with its cause chain (duck-typed: errors of fetch come from another realm under jest). */
function describe(error: unknown, depth = 0): Record<string, unknown> {
  const e = error as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown } | null;
  if (typeof e !== 'object' || e === null) return { value: String(error) };
  return {
    type: e.name,
    message: e.message,
    code: e.code,
    ...(e.cause !== undefined && depth < 3 ? { cause: describe(e.cause, depth + 1) } : {}),
  };
}
