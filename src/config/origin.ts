/**
 * `entry` as the origin a browser sends in its Origin header (`https://shop.example.com`, scheme, host and port
 * only: lower case, no default port), or null when it is not one (a path, a query, credentials, another scheme).
 * Shared by CORS_ORIGINS and the tenant setting `cors_origins`.
 */
export function browserOrigin(entry: string): string | null {
  try {
    const url = new URL(entry);
    const bare =
      url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password && !entry.includes('?') && !entry.includes('#');
    return (url.protocol === 'https:' || url.protocol === 'http:') && bare ? url.origin : null;
  } catch {
    return null;
  }
}
