import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { AppConfig } from '../config/app-config';

/*
 * What every answer tells the browser (README "Operations"): the security headers (@fastify/helmet) and which
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
 * helmet's headers on every answer, with: a Content-Security-Policy for a JSON API (`DOCS_CSP` on /docs),
 * `X-Frame-Options: DENY`, HSTS in production only (a development server on plain http must not pin
 * localhost to https), and `Cross-Origin-Resource-Policy: cross-origin`, as the API is read from the apps'
 * own domains and the QR images (genCode) are embedded in their pages and mails; CORS decides who reads.
 */
export function helmetOptions(config: AppConfig): FastifyHelmetOptions {
  return {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: config.production ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  };
}

/** The helmet options of a /docs route (route config `helmet`, read by @fastify/helmet). */
export const DOCS_HELMET = { contentSecurityPolicy: { useDefaults: false, directives: DOCS_CSP } };

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
