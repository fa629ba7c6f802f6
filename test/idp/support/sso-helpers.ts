import { createHash, randomBytes } from 'node:crypto';
import { TestApp, TestResponse } from '../../support/test-app';
import { OidcPeer, PeerBrowser, PeerClient } from './oidc-peer';

/** The service's public base URL in these tests, as registered at the peer. */
export const PUBLIC_BASE = 'https://api.sso.test';
export const RELAY_URI = `${PUBLIC_BASE}/auth/oauth/idp/redirect`;
export const LOGOUT_RELAY_URI = `${PUBLIC_BASE}/auth/oauth/idp/logout/redirect`;
export const COOKIE_PASSWORD = 'sso-test-cookie-password-0123456789abcdef';

/** The confidential client (IDP_API_KEY) and a public one (PKCE only) registered at the peer. */
export const CONFIDENTIAL: PeerClient = {
  client_id: 'sso-app',
  client_secret: 'sso-app-secret-0123456789',
  token_endpoint_auth_method: 'client_secret_basic',
  redirect_uris: [RELAY_URI],
  post_logout_redirect_uris: [LOGOUT_RELAY_URI],
};
export const PUBLIC: PeerClient = {
  client_id: 'sso-public',
  token_endpoint_auth_method: 'none',
  redirect_uris: [RELAY_URI],
  post_logout_redirect_uris: [LOGOUT_RELAY_URI],
};

/** The service's IDP_* environment for `peer` (confidential client; IDP_REDIRECT_URI as a base URI, the relay path appended). */
export function ssoEnv(peer: Pick<OidcPeer, 'issuer'>, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    IDP_ISSUER_URL: peer.issuer,
    IDP_CLIENT_ID: CONFIDENTIAL.client_id,
    IDP_API_KEY: CONFIDENTIAL.client_secret!,
    IDP_REDIRECT_URI: PUBLIC_BASE,
    IDP_COOKIE_PASSWORD: COOKIE_PASSWORD,
    IDP_ALLOWED_AUTH_TABLES: 'core_customers,core_app_users',
    IDP_DISCOVERY_RETRY_MS: '0',
    IDP_TIMEOUT_MS: '5000',
    ...overrides,
  };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A GET of the service at the path and query of `url` (an address on the public base, as the IdP sends the browser). */
export function getAt(t: TestApp, url: URL | string, headers: Record<string, string> = {}): Promise<TestResponse> {
  const target = typeof url === 'string' ? new URL(url, PUBLIC_BASE) : url;
  return t.request('GET', `${target.pathname}${target.search}`, undefined, headers);
}

/** The target of a relay page's meta refresh (HTML entities decoded); the continue link must say the same. */
export function refreshTarget(html: string): URL {
  const refresh = /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(html);
  const link = /<a href="([^"]*)">continue<\/a>/.exec(html);
  if (!refresh || !link || refresh[1] !== link[1]) throw new Error(`not a relay page: ${html}`);
  return new URL(refresh[1].replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))));
}

export interface LoginOptions {
  headers: Record<string, string>;
  account: string;
  pkce?: boolean;
  authTable?: string;
  flow?: string;
  state?: string;
  browser?: PeerBrowser;
}

export interface CodeAtApp {
  code: string;
  state: string;
  verifier: string | null;
  /** The relay page's target (the app callback URL with the forwarded parameters). */
  target: URL;
  relay: TestResponse;
  authorizationUrl: URL;
}

/** start → the peer's login pages → the relay page: the code and state as the app's callback page receives them. */
export async function codeForApp(t: TestApp, peer: OidcPeer, options: LoginOptions): Promise<CodeAtApp> {
  const pair = options.pkce === false ? null : pkcePair();
  const body: Record<string, unknown> = {};
  if (pair) body.codeChallenge = pair.challenge;
  if (options.authTable) body.authTable = options.authTable;
  if (options.flow) body.flow = options.flow;
  if (options.state) body.state = options.state;
  const start = await t.post('/auth/oauth/idp/start', body, options.headers);
  if (start.status !== 200) throw new Error(`start answered ${start.status}: ${JSON.stringify(start.body)}`);
  const browser = options.browser ?? new PeerBrowser(peer);
  const back = await browser.login(start.body.authorizationUrl, options.account);
  if (back.origin + back.pathname !== RELAY_URI) throw new Error(`the peer sent the browser to ${back.href}`);
  const relay = await getAt(t, back);
  if (relay.status !== 200) throw new Error(`relay answered ${relay.status}: ${JSON.stringify(relay.body)}`);
  const target = refreshTarget(relay.body);
  return {
    code: target.searchParams.get('code')!,
    state: target.searchParams.get('state')!,
    verifier: pair?.verifier ?? null,
    target,
    relay,
    authorizationUrl: new URL(start.body.authorizationUrl),
  };
}

/** The whole login: codeForApp, then the callback with the verifier. */
export async function ssoLogin(t: TestApp, peer: OidcPeer, options: LoginOptions): Promise<TestResponse> {
  const at = await codeForApp(t, peer, options);
  const body: Record<string, unknown> = { code: at.code, state: at.state };
  if (at.verifier) body.codeVerifier = at.verifier;
  if (options.authTable) body.authTable = options.authTable;
  return t.post('/auth/oauth/idp/callback', body, options.headers);
}
