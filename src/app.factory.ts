import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, onResponseHookHandler, onSendHookHandler } from 'fastify';
import type { Logger } from 'pino';
import secureJson from 'secure-json-parse';
import { ApiError } from './common/api-error';
import { answerClientError, MAX_URL_LENGTH, routeNotFound, sendError, toApiError } from './common/global-exception.filter';
import { AppModule } from './app.module';
import { SitesService } from './app-context';
import { CONSOLE_SESSION_ROUTES } from './console';
import { corsOrigin, DOCS_HELMET, securityHeaders } from './common/http-security';
import { createRootLogger, JsonLogger, requestStore } from './common/logging';
import { AppConfig } from './config/app-config';
import { DatabaseHandle } from './database/embedded-database';
import { MetricsService } from './metrics';
import { setupOpenApi } from './openapi';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Deeper JSON than any API body needs; validation and id decryption walk bodies recursively. */
const MAX_JSON_DEPTH = 32;

/**
 * The largest body each route takes, by the first segment of its path (after the base path). A body is
 * read and parsed whole before validation, so a route accepts only what it needs; BODY_LIMIT_BYTES caps all.
 */
const ROUTE_BODY_LIMITS = new Map<string, number>([
  ['content', Infinity],
  ['getDataRows', Infinity],
  ['addrelated', Infinity],
  ['message', 64 * 1024],
]);
/** Auth, customer accounts, /getApp and any other route: a few small fields. */
const DEFAULT_ROUTE_BODY_LIMIT = 16 * 1024;

export interface CreatedApp {
  app: NestFastifyApplication;
  logger: Logger;
}

/** Builds the whole HTTP application (used by main, the tests and the benchmark). */
export async function createApp(config: AppConfig, database: Pick<DatabaseHandle, 'url' | 'directUrl' | 'embedded'>): Promise<CreatedApp> {
  const logger = createRootLogger(config.logLevel);
  // Every answer Fastify or Node would otherwise write themselves goes through the failure envelope.
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    // A client that sends its request too slowly (or stops halfway) gets 408 and loses the connection
    // (answerClientError) instead of holding the socket: Fastify's defaults turn Node's request timeout off.
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: {
      requestTimeout: config.http.requestTimeoutMs, // here too: Node checks headersTimeout against it when it creates the server
      headersTimeout: config.http.headersTimeoutMs,
      connectionsCheckingInterval: timeoutCheckInterval(config.http.headersTimeoutMs),
    },
    trustProxy: config.trustProxy,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    logger: false,
    return503OnClosing: false, // the onRequest hook below answers 503 while closing
    routerOptions: { maxParamLength: MAX_URL_LENGTH }, // else a long path parameter is a 404
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      reply.header('x-request-id', request.id);
      sendError(reply, toApiError(error, request));
    },
    clientErrorHandler: answerClientError,
  });
  const fastify = adapter.getInstance();
  let metrics: MetricsService | undefined; // Nest's, once created; routes are added later, at app.init()
  // Before Nest adds its routes: each gets its body limit, is remembered for 405 answers, and gets its metrics recorder.
  const routes: { method: string; path: RegExp }[] = [];
  fastify.addHook('onRoute', (route) => {
    const path = config.basePath && route.url.startsWith(`${config.basePath}/`) ? route.url.slice(config.basePath.length) : route.url;
    const segment = path.split('/')[1] ?? '';
    route.bodyLimit ??= Math.min(ROUTE_BODY_LIMITS.get(segment) ?? DEFAULT_ROUTE_BODY_LIMIT, config.bodyLimitBytes);
    if (/^\/docs([/-]|$)/.test(path)) route.config = { ...route.config, helmet: DOCS_HELMET }; // Swagger UI's own Content-Security-Policy
    if (route.url !== '*' && route.url !== '/*')
      for (const method of [route.method].flat()) routes.push({ method, path: routePattern(route.url) });
    if (route.url === '*' && [route.method].flat().includes('OPTIONS')) {
      // CORS preflights are answered by Nest's CORS hook, which runs before ours: their request id is set on the way out.
      const requestId: onSendHookHandler = (request, reply, payload, done) => {
        reply.header('x-request-id', request.id);
        done(null, payload);
      };
      route.onSend = route.onSend ? [route.onSend, requestId].flat() : requestId;
    }
    if (metrics) {
      // The route template is known here, once: each answer only looks up its method and status.
      const record = metrics.routeRecorder(route.url);
      const observe: onResponseHookHandler = (request, reply, done) => {
        record(request.method, reply.statusCode, reply.elapsedTime);
        done();
      };
      route.onResponse = route.onResponse ? [route.onResponse, observe].flat() : observe;
    }
  });
  const allowedMethods = (request: FastifyRequest) => {
    const path = request.url.split('?')[0];
    return [...new Set(routes.filter((route) => route.path.test(path)).map((route) => route.method))].sort();
  };

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, database), adapter, {
    logger: new JsonLogger(logger),
    bodyParser: false, // our own JSON parser below
    abortOnError: false,
  });
  const appMetrics = app.get(MetricsService);
  metrics = appMetrics;

  // JSON only. Bodies keep their raw bytes (webhook signatures); an empty body with a JSON content type is `{}`.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    (request as unknown as { rawBody: Buffer }).rawBody = body;
    if (body.length === 0) return done(null, {});
    const shapeError = jsonShapeError(body, config.bodyMaxItems);
    if (shapeError) return done(new ApiError(400, shapeError), undefined);
    try {
      done(null, secureJson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      const forbidden = /forbidden (prototype|constructor) property/.test((error as Error).message);
      done(
        new ApiError(
          400,
          forbidden ? 'Request body contains a forbidden property (__proto__ or constructor)' : 'Malformed JSON in request body',
        ),
        undefined,
      );
    }
  });
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Before anything else runs: a server shutting down, an over-long URL, no route for this method and path.
  const admit = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (closing) return sendError(reply, new ApiError(503, 'Service is shutting down'));
    if (request.url.length > MAX_URL_LENGTH) return sendError(reply, new ApiError(414, 'URL is too long'));
    if (request.is404) return sendError(reply, routeNotFound(request, allowedMethods(request)));
    done();
  };
  // One hook, the first: the security headers (src/common/http-security.ts) and the request id on every answer,
  // those that `admit` gives (404, 405, 414, 503) included; the rest of the request runs in its requestStore.
  const applySecurityHeaders = securityHeaders(config);
  fastify.addHook('onRequest', (request, reply, done) => {
    applySecurityHeaders(request, reply);
    reply.header('x-request-id', request.id);
    requestStore.run({ requestId: request.id }, admit, request, reply, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    if (request.is404) appMetrics.recordUnmatched(request.method, reply.statusCode, reply.elapsedTime); // a route's own hook records the rest
    logger.info(
      { requestId: request.id, method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
    done();
  });
  // The console's session routes too: its cookies are scoped to /console/session on the console's origin (src/console).
  if (config.basePath) app.setGlobalPrefix(config.basePath, { exclude: ['health', 'health/ready', 'metrics', ...CONSOLE_SESSION_ROUTES] });
  // Tenant front ends live on many domains and authenticate with bearer tokens, not cookies. Which origins
  // may read answers: CORS_ORIGINS and the apps' own domains (README "Operations").
  const sites = app.get(SitesService);
  app.enableCors({
    origin: corsOrigin(config.cors, (origin) => sites.isAppOrigin(origin)),
    credentials: false,
    exposedHeaders: ['x-request-id', 'retry-after'],
  });

  if (config.docsEnabled) setupOpenApi(app, config); // /docs and /docs/openapi.json (src/openapi.ts); DOCS_ENABLED

  await app.init();
  return { app, logger };
}

/**
 * Graceful stop: first the HTTP server stops accepting and waits for requests in flight (a request that still
 * arrives on an open connection gets 503 in the envelope), then Nest's shutdown hooks close the database pool
 * and background workers. (Nest's own close() would close the pool before the server.)
 */
export async function closeApp(app: NestFastifyApplication): Promise<void> {
  // Keep-alive connections become idle only after their last response: close them as they do.
  const server = app.getHttpServer();
  const sweeper = setInterval(() => server.closeIdleConnections?.(), 50);
  try {
    await app.getHttpAdapter().getInstance().close();
  } finally {
    clearInterval(sweeper);
  }
  await app.close();
}

/**
 * One pass over the raw JSON text before it is parsed: the reason to refuse it, or null. Refuses nesting
 * deeper than MAX_JSON_DEPTH and more than `maxItems` keys and array elements (all levels together); what
 * runs after parsing is not linear in them (class-transformer's plainToInstance is O(k²) in an object's
 * keys). Brackets, commas and quotes inside strings do not count.
 */
function jsonShapeError(body: Buffer, maxItems: number): string | null {
  let depth = 0;
  let items = 0;
  let opened = false; // just after { or [: the next token, unless it closes, is the first item
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (opened && c !== 0x7d && c !== 0x5d) items++;
    opened = false;
    if (c === 0x22) inString = true;
    else if (c === 0x2c) items++;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`;
      opened = true;
    } else if (c === 0x7d || c === 0x5d) depth--;
    if (items > maxItems) return `Request body has more than ${maxItems} keys and array elements`;
  }
  return null;
}

/**
 * How often Node looks for requests past their headers or request timeout (its default, 30 s, would let a
 * stalled request live up to that much longer than its timeout).
 */
function timeoutCheckInterval(shortestTimeoutMs: number): number {
  return Math.min(1000, Math.max(100, Math.floor(shortestTimeoutMs / 4)));
}

/** A route's URL as a pattern for concrete paths (`:param` is one segment, `*` the rest). */
function routePattern(url: string): RegExp {
  const segments = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}$`);
}
