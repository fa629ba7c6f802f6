import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import fastifyCookie, { CookieSerializeOptions } from '@fastify/cookie';
import fastifyCsrfProtection from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { consoleError } from './console.errors';
import { CONSOLE_SESSION_PATH, CSRF_COOKIE, CSRF_HEADER, REFRESH_COOKIE } from './console-paths';

/**
 * The console's two cookies and its CSRF check (README "Staff console"), on @fastify/cookie and
 * @fastify/csrf-protection registered on the service's Fastify instance at start. Both cookies are HttpOnly,
 * SameSite=Strict, scoped to /console/session (the browser sends them to the session routes only, never to the
 * API, which takes bearer tokens) and Secure in production. Cookies are parsed only on the session routes: the
 * plugin's parsing hook is off, so no API request pays for it.
 */
@Injectable()
export class ConsoleCookies implements OnModuleInit {
  private fastify?: FastifyInstance;
  private readonly attributes: CookieSerializeOptions;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.attributes = { path: CONSOLE_SESSION_PATH, httpOnly: true, sameSite: 'strict', secure: config.production };
  }

  /** Registers the plugins before the server is ready (Nest's routes exist by now; hooks apply to all at ready). */
  onModuleInit(): void {
    if (!this.adapterHost.httpAdapter) return; // the command line's application context serves no HTTP
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    this.fastify = fastify;
    void fastify.register(fastifyCookie, { hook: false });
    void fastify.register(fastifyCsrfProtection, {
      sessionPlugin: '@fastify/cookie',
      cookieKey: CSRF_COOKIE,
      cookieOpts: this.attributes,
      // The header only: not a body field or the other header names the plugin also reads by default.
      getToken: (request: FastifyRequest) => single(request.headers[CSRF_HEADER]),
    });
  }

  /** The request's cookies, parsed on first use. */
  cookies(request: FastifyRequest): Record<string, string | undefined> {
    request.cookies ??= this.instance.parseCookie(request.headers.cookie ?? '');
    return request.cookies;
  }

  /** A CSRF token for this browser; the secret's cookie is set when the browser has none yet. */
  csrfToken(request: FastifyRequest, reply: FastifyReply): string {
    this.cookies(request);
    return reply.generateCsrf();
  }

  /**
   * Throws 403 `Invalid or missing CSRF token` unless the `x-csrf-token` header holds a token made for the
   * secret in this browser's cookie (the plugin's check: an HMAC compared in constant time).
   */
  async verifyCsrf(request: FastifyRequest): Promise<void> {
    this.cookies(request);
    const valid = await new Promise<boolean>((resolve) => {
      // The plugin answers a failure with reply.send(error); this request's failure is the global filter's to write.
      const answer = { send: () => resolve(false) } as unknown as FastifyReply;
      this.instance.csrfProtection(request, answer, () => resolve(true));
    });
    if (!valid) throw consoleError('CSRF');
  }

  refreshCookie(request: FastifyRequest): string | undefined {
    return this.cookies(request)[REFRESH_COOKIE];
  }

  /** The refresh cookie, for as long as the session may stay idle (each refresh extends it). */
  setRefreshCookie(reply: FastifyReply, value: string): void {
    reply.setCookie(REFRESH_COOKIE, value, { ...this.attributes, maxAge: this.config.console.idleMinutes * 60 });
  }

  clearRefreshCookie(reply: FastifyReply): void {
    reply.clearCookie(REFRESH_COOKIE, this.attributes);
  }

  private get instance(): FastifyInstance {
    if (!this.fastify) throw new Error('ConsoleCookies used before the module was initialised');
    return this.fastify;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
