/* OpenAPI descriptions of console-session.controller.ts, too long to stand in its decorators. */

export const CSRF_REFUSED =
  '`Invalid or missing CSRF token` (no x-csrf-token, or one not made for this browser’s ' +
  'console_csrf cookie); `Cross-origin requests are refused` (an Origin header of another origin)';

export const COOKIE =
  'The refresh token is set in the `console_refresh` cookie (HttpOnly, SameSite=Strict, ' +
  'Path=/console/session, Secure in production, Max-Age CONSOLE_IDLE_MINUTES), never in the body.';

export const REFRESH_REFUSED =
  'Invalid refresh token (no cookie, signed out, a cookie already used) / The session ' +
  'has ended after a time without activity: sign in again / Refresh token has expired';
