import { errorTable } from '../common/api-error';

/** The console's own failures (README "Staff console"); the sign-in's credential failures are the auth module's. */
export const consoleError = errorTable({
  /** A POST of the session routes without the token of GET /console/session/csrf, or with another one. */
  CSRF: { status: 403, message: 'Invalid or missing CSRF token' },
  /** A POST of the session routes whose Origin header is another origin than the service's own. */
  CROSS_ORIGIN: { status: 403, message: 'Cross-origin requests are refused' },
  /** No `console_refresh` cookie, or one that names no session (signed out, rotated, forged). */
  NO_SESSION: { status: 401, message: 'Invalid refresh token' },
  /** The session was not refreshed within CONSOLE_IDLE_MINUTES. */
  IDLE: { status: 401, message: 'The session has ended after a time without activity: sign in again' },
  /** console/dist (CONSOLE_DIR) has no index.html. */
  NOT_BUILT: { status: 404, message: 'The console is not built: run npm run build' },
});
