import { readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_HELMET } from '../common/http-security';
import { routeNotFound, sendError } from '../common/global-exception.filter';
import { projectRoot } from '../common/paths';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { consoleError } from './console.errors';
import { CONSOLE_PATH, CONSOLE_SESSION_PATH } from './console-paths';

/** Vite's content-hashed output: a changed file gets a new name, so browsers may keep these for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html and the unhashed files beside it: revalidated at every load, so a new build is seen at once. */
const REVALIDATE = 'no-cache';
const API_BASE_META = /<meta\s+name=["']platform-api-base["'][^>]*>/i;
const HEAD_OPEN = /<head(\s[^>]*)?>/i;

/**
 * Serves the console's build (console/dist, or CONSOLE_DIR) at /console on the service's own origin, outside the
 * API's base path, whatever DOCS_ENABLED says (README "Staff console"). Plain Fastify routes, not API operations
 * (they are not in the OpenAPI document):
 *
 * - `GET /console` redirects to `/console/`;
 * - `GET /console/<file>` sends the file (@fastify/static's sendFile: ETag, Last-Modified, ranges), with a year's
 *   immutable caching under `assets/` (hashed names) and `no-cache` otherwise; a missing file under `assets/` is
 *   404, never the page in its place;
 * - any other path is the single-page app's route: index.html, read once at start with the API's base path put
 *   in `<meta name="platform-api-base">`, `no-cache`.
 *
 * Every answer gets the console's Content-Security-Policy (scripts, styles and fonts of its own origin only) with
 * the service's other security headers. Without a build (no index.html) the service starts and these routes
 * answer 404 `The console is not built: run npm run build`; a build made later is picked up at the next request.
 */
@Injectable()
export class ConsolePages implements OnModuleInit {
  readonly root: string;
  /** index.html with the meta tag, once read. */
  private page?: Buffer;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.root = resolve(config.console.distDir ?? join(projectRoot(), 'console', 'dist'));
  }

  async onModuleInit(): Promise<void> {
    if (!this.adapterHost.httpAdapter) return; // the command line's application context serves no HTTP
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Only reply.sendFile: which path is a file, the page or a 404 is decided below.
    void fastify.register(fastifyStatic, { root: this.root, serve: false, cacheControl: false, suppressWarning: true });
    const config = { helmet: CONSOLE_HELMET };
    fastify.route({
      method: 'GET',
      url: CONSOLE_PATH,
      config,
      handler: (request, reply) => {
        const query = request.url.indexOf('?');
        return reply.redirect(`${CONSOLE_PATH}/${query === -1 ? '' : request.url.slice(query)}`, 301);
      },
    });
    fastify.route({ method: 'GET', url: `${CONSOLE_PATH}/*`, config, handler: (request, reply) => this.serve(request, reply) });
    await this.loadPage();
  }

  private async serve(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const path = (request.params as { '*': string })['*'];
    // The session routes are API routes: a path of theirs that is no route is no page either.
    if (`${CONSOLE_PATH}/${path}`.startsWith(`${CONSOLE_SESSION_PATH}/`)) return answer(reply, routeNotFound(request, []));
    const page = this.page ?? (await this.loadPage());
    if (!page) return answer(reply, consoleError('NOT_BUILT'));
    const file = await this.fileOf(path);
    if (file !== null) {
      reply.header('cache-control', file.startsWith('assets/') ? IMMUTABLE : REVALIDATE);
      return reply.sendFile(file);
    }
    if (path.startsWith('assets/')) return answer(reply, routeNotFound(request, []));
    return reply.header('cache-control', REVALIDATE).type('text/html; charset=utf-8').send(page);
  }

  /** `path` (relative to the build) when it names a file of the build other than index.html, else null. */
  private async fileOf(path: string): Promise<string | null> {
    if (path === '' || path === 'index.html' || path.includes('\0') || path.split('/').some((segment) => segment.startsWith('.')))
      return null;
    const absolute = resolve(this.root, path);
    if (!absolute.startsWith(this.root + sep)) return null;
    const found = await stat(absolute).catch(() => null);
    return found?.isFile() ? path : null;
  }

  /** Reads index.html and puts the API's base path in it; undefined while there is no build. */
  private async loadPage(): Promise<Buffer | undefined> {
    const html = await readFile(join(this.root, 'index.html'), 'utf8').catch(() => null);
    if (html !== null) this.page = Buffer.from(withApiBase(html, this.config.basePath));
    return this.page;
  }
}

function answer(reply: FastifyReply, error: Parameters<typeof sendError>[1]): FastifyReply {
  sendError(reply, error);
  return reply;
}

/**
 * The page with `<meta name="platform-api-base" content="<base path>">` (`''` without a base path), where the
 * console reads where the API is: in place of one the page already has, else first in `<head>`.
 */
export function withApiBase(html: string, basePath: string): string {
  const tag = `<meta name="platform-api-base" content="${escapeAttribute(basePath)}">`;
  if (API_BASE_META.test(html)) return html.replace(API_BASE_META, () => tag);
  const head = HEAD_OPEN.exec(html);
  if (!head) return tag + html;
  const at = head.index + head[0].length;
  return html.slice(0, at) + tag + html.slice(at);
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
