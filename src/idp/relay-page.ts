import type { TenantSite } from '../common/request-context';

/*
 * The relay pages (GET /auth/oauth/idp/redirect, GET /auth/oauth/idp/logout/redirect): where a
 * browser coming back from the IdP is sent, and the page that sends it there. Every target is the tenant's:
 * a URL its core_sites row configures, or a path on its domain. Nothing from the request picks the host.
 */

/** The columns of the app callback URL, in the order they are tried (the first one set wins). */
export const CALLBACK_COLUMNS = ['idp_app_callback_url', 'oauth_callback_url', 'auth_callback_url'] as const;
/** The columns of the app logout URL, in the order they are tried (the first one set wins). */
export const LOGOUT_COLUMNS = ['idp_app_logout_url', 'oauth_logout_url', 'auth_logout_url'] as const;
export const DEFAULT_CALLBACK_PATH = '/auth/callback';
export const DEFAULT_LOGOUT_PATH = '/index.html';

type UrlColumns = Pick<TenantSite, 'domain' | (typeof CALLBACK_COLUMNS)[number] | (typeof LOGOUT_COLUMNS)[number]>;

/** `https://<domain>` of the tenant, or null when its domain is not a plain host name (with an optional port). */
export function tenantOrigin(site: Pick<TenantSite, 'domain'>): string | null {
  const domain = (site.domain ?? '').trim().toLowerCase();
  if (!/^[a-z0-9.-]{1,253}(:\d{1,5})?$/.test(domain)) return null;
  try {
    const url = new URL(`https://${domain}`);
    return url.host === domain ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * A configured URL as an absolute http(s) URL: an absolute one as configured (no user info), a relative
 * one resolved against the tenant's origin, which it must stay on (`//host`, `/\host` do not). Null when
 * it is neither, or relative without a usable origin.
 */
export function resolveConfigured(value: string, origin: string | null): URL | null {
  const text = value.trim();
  if (text === '' || /[\u0000-\u001f\u007f]/.test(text)) return null;
  try {
    if (/^[a-z][a-z0-9+.-]*:/i.test(text)) {
      const url = new URL(text);
      if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || !url.hostname) return null;
      return url;
    }
    if (origin === null) return null;
    const url = new URL(text, `${origin}/`);
    return url.origin === origin ? url : null;
  } catch {
    return null;
  }
}

/**
 * The first of `columns` the tenant sets (resolved as above), else `fallback` (a path) on its domain. Null
 * when the first set column is unusable or the tenant's domain is not a host name: the caller answers 400
 * rather than silently skipping a broken setting.
 */
export function resolveAppUrl(site: UrlColumns, columns: readonly (keyof UrlColumns)[], fallback: URL | string): URL | null {
  const origin = tenantOrigin(site);
  for (const column of columns) {
    const value = site[column];
    if (typeof value === 'string' && value.trim() !== '') return resolveConfigured(value, origin);
  }
  return fallback instanceof URL ? fallback : resolveConfigured(fallback, origin);
}

/**
 * The origins a client-supplied return URL may point to: the tenant's domain and the origins of the absolute
 * URLs its core_sites row configures for the relays.
 */
export function tenantOrigins(site: UrlColumns): Set<string> {
  const origin = tenantOrigin(site);
  const origins = new Set<string>(origin ? [origin] : []);
  for (const column of [...CALLBACK_COLUMNS, ...LOGOUT_COLUMNS]) {
    const value = site[column];
    const url = typeof value === 'string' ? resolveConfigured(value, origin) : null;
    if (url) origins.add(url.origin);
  }
  return origins;
}

/**
 * A client's return URL (logout `returnTo`) as an absolute URL on one of the tenant's origins: a path is
 * resolved against its domain; an absolute URL must be on `tenantOrigins`. Null otherwise.
 */
export function tenantReturnUrl(site: UrlColumns, value: string): URL | null {
  const url = resolveConfigured(value, tenantOrigin(site));
  return url && tenantOrigins(site).has(url.origin) ? url : null;
}

/** `target` with `params` appended to its own query, in order (repeated names kept). */
export function withParams(target: URL, params: Iterable<[string, string]>): URL {
  const url = new URL(target.href);
  for (const [name, value] of params) url.searchParams.append(name, value);
  return url;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The relay page: a meta refresh and a continue link to `target`, no script at all. Sent with RELAY_HEADERS,
 * whose Content-Security-Policy allows nothing to load or run.
 */
export function relayPage(target: URL): string {
  const href = escapeHtml(target.href);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0;url=${href}">`,
    '<title>Redirecting…</title>',
    '</head>',
    '<body>',
    `<p>Redirecting… If nothing happens, <a href="${href}">continue</a>.</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Headers of a relay page: HTML that is never cached, framed, sniffed or allowed to load or run anything. */
export const RELAY_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};
