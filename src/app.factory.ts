import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { Logger } from 'pino';
import secureJson from 'secure-json-parse';
import { ApiError } from './common/api-error';
import { AppModule } from './app.module';
import { createRootLogger, JsonLogger, requestStore } from './common/logging';
import { AppConfig } from './config/app-config';
import { DatabaseHandle } from './database/embedded-database';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Deeper JSON than any API body needs; validation and id decryption walk bodies recursively. */
const MAX_JSON_DEPTH = 32;

export interface CreatedApp {
  app: NestFastifyApplication;
  logger: Logger;
}

/** Builds the whole HTTP application (used by main, the tests and the benchmark). */
export async function createApp(config: AppConfig, database: Pick<DatabaseHandle, 'url' | 'embedded'>): Promise<CreatedApp> {
  const logger = createRootLogger(config.logLevel);
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    logger: false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, database), adapter, {
    logger: new JsonLogger(logger),
    bodyParser: false, // our own JSON parser below
    abortOnError: false,
  });

  const fastify = app.getHttpAdapter().getInstance();
  // JSON only. Bodies keep their raw bytes (webhook signatures); an empty body with a JSON content type is `{}`.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    (request as unknown as { rawBody: Buffer }).rawBody = body;
    if (body.length === 0) return done(null, {});
    if (nestingDepth(body) > MAX_JSON_DEPTH) return done(new ApiError(400, `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    try {
      done(null, secureJson.parse(body, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      const forbidden = /forbidden (prototype|constructor) property/.test((error as Error).message);
      done(new ApiError(400, forbidden ? 'Request body contains a forbidden property (__proto__ or constructor)' : 'Malformed JSON in request body'), undefined);
    }
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    requestStore.run({ requestId: request.id }, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    logger.info({ requestId: request.id, method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
  if (config.basePath) app.setGlobalPrefix(config.basePath, { exclude: ['health', 'health/ready'] });
  // Tenant front ends live on many domains and authenticate with bearer tokens, not cookies.
  app.enableCors({ origin: true, credentials: false, exposedHeaders: ['x-request-id', 'retry-after'] });

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Platform service')
      .setDescription('Multi-tenant auth, messaging, commerce and versioned content. See README.md for conventions.')
      .setVersion('2')
      .addBearerAuth()
      .addApiKey({ type: 'apiKey', in: 'header', name: 'site-id' }, 'site-id')
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json', useGlobalPrefix: true });

  await app.init();
  return { app, logger };
}

/**
 * Graceful stop: first the HTTP server stops accepting and waits for requests in flight, then Nest's
 * shutdown hooks close the database pool and background workers. (Nest's own close() would close the pool
 * before the server.)
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

/** How deeply the JSON text nests objects and arrays (brackets inside strings do not count). */
function nestingDepth(body: Buffer): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}
