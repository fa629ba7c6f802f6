/*
 * Where the staff console lives (README "Staff console"): its pages at /console, its session routes under
 * /console/session, both outside the API's base path (/api/v2 in production) on the API's own origin.
 */

/** The console's pages and files. */
export const CONSOLE_PATH = '/console';

/** The session routes, and the path of both cookies: they are sent to these routes only. */
export const CONSOLE_SESSION_PATH = '/console/session';

/** The session routes as app.setGlobalPrefix's `exclude` names them (kept outside the base path, like /health). */
export const CONSOLE_SESSION_ROUTES = ['csrf', 'sign-in', 'refresh', 'sign-out'].map((route) => `console/session/${route}`);

/** The refresh token's cookie (HttpOnly, SameSite=Strict, Path=/console/session, Secure in production). */
export const REFRESH_COOKIE = 'console_refresh';

/** The CSRF secret's cookie (@fastify/csrf-protection; same attributes). */
export const CSRF_COOKIE = 'console_csrf';

/** The header that carries the CSRF token on the session routes' POSTs. */
export const CSRF_HEADER = 'x-csrf-token';
