import { errorTable } from '../common/api-error';

/**
 * The IdP facade's failures (README "Single sign-on (OpenID Connect)"); validation errors that name a field use
 * ApiError.field. The IdP being unreachable (or answering something that is not OAuth) is 503, never 500.
 */
export const idpError = errorTable({
  START_APP_MISSING: { status: 400, message: 'Missing app context: provide appID/site-id for OAuth start' },
  /** detail: the configured (relay) redirect URI. */
  REDIRECT_URI_MISMATCH: { status: 400, message: (uri) => `redirectUri must match server configuration (${uri})` },
  CLIENT_ID_NOT_CONFIGURED: { status: 400, message: 'Identity provider clientId (IDP_CLIENT_ID) is not configured' },
  CODE_REQUIRED: { status: 400, message: 'code is required' },
  /** The callback's state does not open (tampered, another key, expired) or names no existing app. */
  STATE_APP_MISSING: { status: 400, message: 'Missing app context in OAuth state payload' },
  /** detail: the table asked for. */
  AUTH_TABLE_NOT_ALLOWED: { status: 400, message: (table) => `OAuth login into authTable '${table}' is not allowed by configuration.` },
  /** detail: the IdP's own error text, `<error>: <error_description>` (invalid_grant for a bad, used or expired code). */
  GRANT_FAILED: { status: 400, message: (text) => text },
  /** detail: what the OpenID Connect client library found wrong with the IdP's answer (nonce, issuer, signature…). */
  ID_TOKEN_REJECTED: { status: 400, message: (reason) => `The identity provider's ID token was rejected: ${reason}` },
  /** core_users needs an email; the IdP gave none, or one that another account of the app already has. */
  NO_USABLE_EMAIL: { status: 400, message: 'The identity provider gave no email address that can be used for a new account of this table' },
  SESSION_ID_REQUIRED: { status: 400, message: 'sessionId is required' },
  RELAY_STATE_INVALID: { status: 400, message: 'Invalid or missing OAuth state' },
  RELAY_URL_UNRESOLVED: { status: 400, message: 'Unable to resolve app redirect URL' },
  LOGOUT_STATE_INVALID: { status: 400, message: 'Invalid or missing OAuth logout state' },
  LOGOUT_URL_UNRESOLVED: { status: 400, message: 'Unable to resolve app logout redirect URL' },
  /** Discovery failed (down, TLS, not an OpenID Provider), a call timed out, or the IdP answered without an OAuth error body. */
  IDP_UNAVAILABLE: { status: 503, message: 'Identity provider unavailable: try again later' },
});

export type IdpErrorCode = keyof typeof idpError.table;
