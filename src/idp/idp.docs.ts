/* OpenAPI descriptions of idp.controller.ts, too long to stand in its decorators. */

export const UNAVAILABLE =
  'Identity provider unavailable: try again later (discovery or a call to the IdP failed; the rest of the service is unaffected)';
export const NOT_CONFIGURED = 'Identity provider clientId (IDP_CLIENT_ID) is not configured';

export const START_REFUSED =
  'Missing app context: provide appID/site-id for OAuth start / redirectUri must match server configuration (<configured URI>) / ' +
  `${NOT_CONFIGURED} / OAuth login into authTable '<table>' is not allowed by configuration. / ` +
  'Validation error (codeChallenge, codeChallengeMethod: only S256, flow)';

export const CALLBACK_REFUSED =
  'code is required / Missing app context in OAuth state payload (errors[]: state missing, altered or expired) / ' +
  "the IdP's error text, e.g. invalid_grant: … (bad, used or expired code, wrong PKCE verifier) / " +
  `OAuth login into authTable '<table>' is not allowed by configuration. / ${NOT_CONFIGURED} / ` +
  'redirectUri must match server configuration (<configured URI>) / Validation error (codeVerifier, authTable not the one of start)';

export const LOGOUT_RELAY_DESCRIPTION =
  'Registered at the IdP as post-logout redirect URI. The app comes from the sealed ' +
  "state (query), else from the idp_app_ctx cookie. The target is the app's " +
  "idp_app_logout_url, oauth_logout_url, auth_logout_url, else the logout's returnTo, else https://<domain>/index.html.";

export const CALLBACK_ANSWER =
  '{ status: Success, token: { access_token, refresh_token, expires_in: 3600 }, user: { _id (encrypted), ' +
  'email, firstname, lastname, displayname, photourl, emailverified, sessionid? }, clientState? }';
