import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet, { HelmetOptions } from 'helmet';
import type { AppConfig } from '../config/app-config';

/*
 * What every answer tells the browser (README "Operations"): the security headers (helmet) and which
 * origins may read answers (CORS, registered by app.enableCors in app.factory.ts).
 */

type Directives = Record<string, string[]>;

/** JSON answers load nothing, run nothing and are never framed. The relay pages send the same (RELAY_HEADERS). */
const API_CSP: Directives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/**
 * Swagger UI at /docs: its scripts and styles are files of its own origin (no inline script); it has inline
 * `<style>` blocks and style attributes, data: images, and fetches the document from its origin.
 */
export const DOCS_CSP: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * The staff console at /console (README "Staff console"): a Vite build whose scripts and styles are files of its
 * own origin (no inline script or style), images from itself, data: URLs and https, and the API on the same
 * origin; never framed, no plugins, no <base>.
 */
export const CONSOLE_CSP: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'https:'],
  'connect-src': ["'self'"],
  'font-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * helmet's headers on every answer, with: a Content-Security-Policy for a JSON API (`DOCS_CSP` on /docs),
 * `X-Frame-Options: DENY`, HSTS in production only (a development server on plain http must not pin
 * localhost to https), and `Cross-Origin-Resource-Policy: cross-origin`, as the API is read from the apps'
 * own domains and the QR images (genCode) are embedded in their pages and mails; CORS decides who reads.
 */
export function helmetOptions(config: AppConfig): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: config.production ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  };
}

/** The helmet options of a /docs route (route config `helmet`, read by securityHeaders). */
export const DOCS_HELMET = { contentSecurityPolicy: { useDefaults: false, directives: DOCS_CSP } };

/** The helmet options of the console's pages and files (route config `helmet`, read by securityHeaders). */
export const CONSOLE_HELMET = { contentSecurityPolicy: { useDefaults: false, directives: CONSOLE_CSP } };

/** What helmet's middleware does to a response, in its order: a header set, or one removed (value null). */
type HeaderEdit = readonly [name: string, value: string | null];

/**
 * The edits helmet's middleware makes with `options`, recorded once. Our options hold only constants (no
 * directive is a function of the request), so every answer gets the same headers; @fastify/helmet built
 * helmet's twelve middlewares anew on every request, at a measurable cost to each request's CPU.
 */
function helmetEdits(options: HelmetOptions): HeaderEdit[] {
  const edits: HeaderEdit[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => void edits.push([name, String(value)]),
    removeHeader: (name: string) => void edits.push([name, null]),
  };
  let failure: unknown;
  helmet(options)({} as never, recorder as never, (error?: unknown) => (failure = error));
  if (failure) throw failure;
  return edits;
}

/**
 * Gives an answer helmet's headers (`DOCS_HELMET`'s or `CONSOLE_HELMET`'s CSP on routes whose config names it),
 * on the raw response as helmet's middleware does. app.factory.ts calls it first thing in its onRequest hook, so
 * answers that never reach a route (404, 405, 414, 503) carry them too.
 */
export function securityHeaders(config: AppConfig): (request: FastifyRequest, reply: FastifyReply) => void {
  const api = helmetEdits(helmetOptions(config));
  const docs = helmetEdits({ ...helmetOptions(config), contentSecurityPolicy: DOCS_HELMET.contentSecurityPolicy });
  const consolePages = helmetEdits({ ...helmetOptions(config), contentSecurityPolicy: CONSOLE_HELMET.contentSecurityPolicy });
  return (request, reply) => {
    const res = reply.raw;
    const helmet = (request.routeOptions.config as { helmet?: unknown }).helmet;
    for (const [name, value] of helmet === undefined ? api : helmet === CONSOLE_HELMET ? consolePages : docs)
      if (value === null) res.removeHeader(name);
      else res.setHeader(name, value);
  };
}

/**
 * The `origin` option of @fastify/cors. `true` (reflect any origin) when `cors.anyOrigin`; else a check of
 * the request's Origin: one of CORS_ORIGINS, or with CORS_APP_DOMAINS `https://<domain>` of an app
 * (`isAppOrigin`, which looks the domain up in core_sites through the site cache). An origin that is not
 * allowed gets no CORS header at all, and its preflight is not answered (404).
 */
export function corsOrigin(
  cors: AppConfig['cors'],
  isAppOrigin: (origin: string) => Promise<boolean>,
): true | ((origin: string | undefined) => Promise<boolean>) {
  if (cors.anyOrigin) return true;
  const listed = new Set(cors.origins);
  return async (origin) => {
    if (!origin) return false; // not a browser's cross-origin request
    if (listed.has(origin)) return true;
    if (!cors.appDomains) return false;
    // The database not answering answers the request itself (503); CORS only stays shut meanwhile.
    return isAppOrigin(origin).catch(() => false);
  };
}
