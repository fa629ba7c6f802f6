import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { consoleError } from './console.errors';
import { ConsoleCookies } from './console-cookies.service';

/**
 * The session routes' POSTs are the only requests of the service a browser authenticates with a cookie, so
 * they alone need a defence against cross-site requests (README "Staff console"): a request whose Origin header
 * names another origin than the service's own is refused (403 `Cross-origin requests are refused`), and every
 * request must carry the CSRF token of GET /console/session/csrf in `x-csrf-token`, made for the secret in this
 * browser's cookie (403 `Invalid or missing CSRF token`). SameSite=Strict cookies already keep other sites'
 * requests from carrying them; these checks hold where that is not enough (a sibling subdomain, an old browser).
 */
@Injectable()
export class ConsoleCsrfGuard implements CanActivate {
  constructor(private readonly cookies: ConsoleCookies) {}

  async canActivate(execution: ExecutionContext): Promise<boolean> {
    const request = execution.switchToHttp().getRequest<FastifyRequest>();
    if (!sameOrigin(request)) throw consoleError('CROSS_ORIGIN');
    await this.cookies.verifyCsrf(request);
    return true;
  }
}

/**
 * True when the request has no Origin header (not a browser's cross-origin request: browsers send Origin on
 * every POST) or names the service's own: the host (and port) the request was sent to (`Host`, or
 * `X-Forwarded-Host` with TRUST_PROXY). The scheme is compared when the service knows it is reached over https
 * (TLS here, or `X-Forwarded-Proto` with TRUST_PROXY); behind a proxy that ends TLS without TRUST_PROXY the
 * request looks like http while the page's origin is https, and the host alone decides. `Origin: null` (a
 * sandboxed frame, a data: URL) is another origin.
 */
export function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin !== origin || (url.protocol !== 'https:' && url.protocol !== 'http:')) return false; // as browsers write it
  if (request.protocol === 'https' && url.protocol !== 'https:') return false;
  return url.host === hostOf(request, url.protocol);
}

/** The request's host as an origin writes it: lower case, without the scheme's default port. */
function hostOf(request: FastifyRequest, scheme: string): string | null {
  try {
    return new URL(`${scheme}//${request.host}`).host;
  } catch {
    return null;
  }
}
