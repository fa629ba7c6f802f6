import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, ReferenceObject, ResponseObject, SwaggerModule } from '@nestjs/swagger';
import { Failure, RETRY_AFTER, SECURITY_SCHEMES } from './common/api-responses';
import { MAX_URL_LENGTH } from './common/global-exception.filter';
import { AppConfig } from './config/app-config';

/**
 * The OpenAPI document of the service (served at /docs/openapi.json, and the source of the generated client
 * in client/). Controllers describe their operations with @nestjs/swagger's decorators and the response
 * classes of src/common/api-responses.ts and their module's dto files; this file adds what is the same for
 * every operation: the security schemes, and the answers any operation may give (`GLOBAL_RESPONSES`).
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Responses = Record<string, ResponseObject | ReferenceObject>;

function failure(description: string, headers?: ResponseObject['headers']): ResponseObject {
  return {
    description,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${Failure.name}` } } },
    ...(headers ? { headers } : {}),
  };
}

/**
 * Answers that do not depend on the operation, in the failure envelope. Each operation that does not
 * document a status itself gets these by `$ref` (components.responses), except `AppNotFound` on routes that
 * resolve no app (`x-app-context: none`) and `TooManyRequests` on routes that are not rate limited
 * (`x-rate-limited: false`).
 */
export const GLOBAL_RESPONSES: Record<string, { status: number; response: ResponseObject }> = {
  BadRequest: {
    status: 400,
    response: failure(
      'Malformed request: JSON that does not parse, nests too deep, has too many keys or holds ' +
        'unpaired surrogates; a Content-Length that does not match; a malformed URL or site-id header; ' +
        'Missing app context (no site-id, appKey, tenant host or, outside production, ' +
        'body appID named an app); or Validation error with errors[] naming the field',
    ),
  },
  AppNotFound: { status: 404, response: failure('App not found: the site-id header (or appKey, or the host) names no app') },
  PayloadTooLarge: { status: 413, response: failure('Request body is too large') },
  UriTooLong: { status: 414, response: failure(`URL is too long (over ${MAX_URL_LENGTH} characters)`) },
  UnsupportedMediaType: { status: 415, response: failure('Unsupported Content-Type: send application/json') },
  TooManyRequests: {
    status: 429,
    response: failure(
      'Too many requests, please try again later (the rate limit of RATE_LIMIT_WINDOW_MS / RATE_LIMIT_MAX_REQUESTS)',
      RETRY_AFTER,
    ),
  },
  InternalError: { status: 500, response: failure('An error occurred while processing your request') },
  ServiceUnavailable: {
    status: 503,
    response: failure(
      'Service is shutting down; Database unavailable; a statement over its time limit; ' +
        'too many requests of this app in progress (the last three with Retry-After)',
      { 'retry-after': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } } },
    ),
  },
};

/**
 * Answers to a request that matches no operation: 404 when no route has its path, 405 (with Allow) when
 * routes have it with other methods. Not referenced by any operation; the e2e contract check holds every
 * unmatched request to them.
 */
export const UNMATCHED_RESPONSES: Record<string, { status: number; response: ResponseObject }> = {
  RouteNotFound: { status: 404, response: failure('Route not found: <METHOD> <path>') },
  MethodNotAllowed: {
    status: 405,
    response: failure('Method not allowed: <METHOD> <path>', {
      allow: { description: 'The methods the path has', required: true, schema: { type: 'string' } },
    }),
  },
};

export function documentBuilder(config: AppConfig): DocumentBuilder {
  const bearer = (description: string) => ({ type: 'http' as const, scheme: 'bearer', bearerFormat: 'JWT', description });
  return new DocumentBuilder()
    .setTitle('Platform service')
    .setDescription(
      'Multi-tenant auth, messaging, commerce and versioned content. See README.md for conventions. ' +
        `Bodies are JSON of at most 16 KB (64 KB under /message; /content, /getDataRows and /addrelated up to ${config.bodyLimitBytes} bytes), ` +
        `with at most ${config.bodyMaxItems} keys and array elements and no unpaired surrogate in any string: 413 and 400 otherwise. ` +
        'Every answer in the failure envelope is described: each operation lists its own, and the ones any operation may give (components.responses: ' +
        `${Object.keys(GLOBAL_RESPONSES).join(', ')}) are added to every operation that does not list that status itself. ` +
        'A request that matches no operation gets 404 (RouteNotFound) or, when the path has other methods, 405 with Allow (MethodNotAllowed). ' +
        `URLs over ${MAX_URL_LENGTH} characters get 414, ` +
        'request heads over 16 KB 431 and a request sent too slowly 408, all in the failure envelope.' +
        (config.basePath
          ? ` Paths are under ${config.basePath}, except /health, /health/ready, /metrics and the staff console's session (/console/session/…).`
          : ''),
    )
    .setVersion('2')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'site-id',
        description:
          'The app (tenant) of the request: its numeric appID. Equivalents, in this order: the legacy ' +
          '`appKey` header, the request host (or x-forwarded-host) when it is a tenant domain, ' +
          'and, outside production only, `appID` in the JSON body. Messaging reads ' +
          'only the site-id header. A site-id that names no app is 404 App not found.',
      },
      SECURITY_SCHEMES.siteId,
    )
    .addBearerAuth(
      bearer(
        'An access token of the app (POST /auth/login): of any account (core_users, core_customers, core_app_users). It names the app when no site-id does.',
      ),
      SECURITY_SCHEMES.bearer,
    )
    .addBearerAuth(
      bearer(
        'An access token of a core_users account whose role is admin in the app (POST /auth/login); ' +
          'the role is read from the account at each request. It names the app when no site-id does.',
      ),
      SECURITY_SCHEMES.admin,
    )
    .addBearerAuth(
      bearer(
        'An access token of a core_customers account of the app (POST /auth/login with authTable core_customers). It names the app when no site-id does.',
      ),
      SECURITY_SCHEMES.customer,
    )
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'stripe-signature',
        description:
          "The payment provider's signature of the delivery (t=<timestamp>,v1=<HMAC-SHA256 of the raw body>) with the app's payment_webhook_secret",
      },
      SECURITY_SCHEMES.webhook,
    )
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when it is set' }, SECURITY_SCHEMES.metrics);
}

/** The whole document of `app`: the scanned operations, the security schemes and the shared answers. */
export function createOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const document = SwaggerModule.createDocument(app, documentBuilder(config).build());
  document.components ??= {};
  document.components.responses = {
    ...Object.fromEntries(Object.entries(GLOBAL_RESPONSES).map(([name, { response }]) => [name, response])),
    ...Object.fromEntries(Object.entries(UNMATCHED_RESPONSES).map(([name, { response }]) => [name, response])),
  };
  nullInNullableEnums(document);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      // `ApiAccess()` (no credential) is written `[{}]` by the decorators: the document's own form for it is `[]`.
      if (operation.security?.every((requirement) => Object.keys(requirement).length === 0) && operation.security.length <= 1)
        operation.security = [];
      // A handler served on several paths (the legacy webhook path) declares the parameters of all of them: each path keeps its own, required.
      const inPath = new Set([...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]));
      operation.parameters = operation.parameters
        ?.filter((parameter) => !('in' in parameter) || parameter.in !== 'path' || inPath.has(parameter.name))
        .map((parameter) =>
          'in' in parameter && parameter.in === 'path'
            ? { ...parameter, required: true, schema: { type: 'string', ...parameter.schema } }
            : parameter,
        );
      const extensions = operation as unknown as Record<string, unknown>;
      const responses = operation.responses as Responses;
      for (const [name, { status }] of Object.entries(GLOBAL_RESPONSES)) {
        if (responses[status] !== undefined) continue;
        if (name === 'AppNotFound' && extensions['x-app-context'] !== undefined) continue;
        if (name === 'TooManyRequests' && extensions['x-rate-limited'] === false) continue;
        responses[status] = { $ref: `#/components/responses/${name}` };
      }
      operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return document;
}

/**
 * OpenAPI 3.0 (3.0.3's clarification): `nullable: true` does not widen an `enum`, so a nullable enum must list
 * `null` among its values, or a strict validator refuses null. @nestjs/swagger writes `{ enum, nullable: true }`
 * without it; this adds `null` to every such enum of the document (components and operations alike).
 */
export function nullInNullableEnums(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) nullInNullableEnums(item);
    return;
  }
  const schema = node as Record<string, unknown>;
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  for (const value of Object.values(schema)) nullInNullableEnums(value);
}

/**
 * Serves the document at /docs/openapi.json and Swagger UI at /docs, built at the first request for either (start
 * time and memory most instances never need).
 */
export function setupOpenApi(app: INestApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, () => createOpenApiDocument(app, config), {
    jsonDocumentUrl: 'docs/openapi.json',
    useGlobalPrefix: true,
  });
}
