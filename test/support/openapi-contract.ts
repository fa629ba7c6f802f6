import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../../src/config/app-config';
import { createOpenApiDocument, GLOBAL_RESPONSES, UNMATCHED_RESPONSES } from '../../src/openapi';

/**
 * The OpenAPI document as a contract that every answer of the e2e tests is held to (TestApp.request calls
 * `check` after each request). For the operation the request matches (method and path template; the
 * document of a production-mode app has its paths under /api/v2):
 *
 * - the status must be one the operation documents (its own responses, or the shared ones the document
 *   adds to every operation: components.responses);
 * - the media type must be one documented for that status, and a JSON body must validate (ajv) against
 *   the documented schema. Stricter than the document on one point: an object schema that lists its
 *   properties is closed here (additionalProperties false unless the document says otherwise), so a field
 *   the document does not name fails the test, as a missing required one does;
 * - headers the response documents as required (Retry-After on 429, Allow on 405) must be there;
 * - a 2xx answer must have been earned by one of the operation's security alternatives: when every
 *   alternative needs a bearer token (or the webhook signature), the request must have carried one.
 *
 * A request that matches no operation (tests send garbage to unknown routes on purpose) may only get the
 * document's answers for that: 404 RouteNotFound or 405 MethodNotAllowed (with Allow), or the answers that
 * come before routing (400 malformed URL, 414, 503 while closing), all in the failure envelope (a path whose
 * last parameter is empty, `/ecommerce/genCode/`, may be routed either way: either answer passes). Not API
 * operations, so not checked: /docs (Swagger UI and the document itself) and CORS preflights (OPTIONS).
 */

type Json = Record<string, unknown>;

interface Operation {
  method: string;
  path: string;
  pattern: RegExp;
  /** The same with empty parameters allowed: the router may or may not route `/genCode/` to `/genCode/{id}`. */
  loosePattern: RegExp;
  params: number;
  responses: Record<string, Json>;
  security: Record<string, unknown>[];
}

export interface ContractRequest {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
}

export interface ContractResponse {
  status: number;
  headers: Record<string, unknown>;
  /** The raw body. */
  body: string;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const BEARER_SCHEMES = new Set(['bearer', 'admin-bearer', 'customer-bearer', 'metrics-token']);

export class ApiContract {
  private static readonly cache = new Map<string, ApiContract>();

  private readonly ajv: Ajv;
  private readonly operations: Operation[];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly docsPrefix: string;

  private constructor(
    private readonly document: Json,
    basePath: string,
  ) {
    this.docsPrefix = `${basePath}/docs`;
    this.ajv = new Ajv({ strict: false, allErrors: true, verbose: false });
    addFormats(this.ajv);
    const components = (document.components ?? {}) as { schemas?: Record<string, Json>; responses?: Record<string, Json> };
    const schemas = Object.fromEntries(Object.entries(components.schemas ?? {}).map(([name, schema]) => [name, toJsonSchema(schema)]));
    this.ajv.addSchema({ $id: 'openapi', components: { schemas } });
    this.operations = [];
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        const pattern = (param: string) =>
          new RegExp(
            `^${path
              .split('/')
              .map((segment) => (/^\{[^}]+\}$/.test(segment) ? param : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
              .join('/')}$`,
          );
        this.operations.push({
          method: method.toUpperCase(),
          path,
          pattern: pattern('[^/]+'),
          loosePattern: pattern('[^/]*'),
          params: (path.match(/\{/g) ?? []).length,
          responses: op.responses as Record<string, Json>,
          security: (op.security as Record<string, unknown>[] | undefined) ?? [],
        });
      }
    }
    // A static segment wins over a parameter, as in the router.
    this.operations.sort((a, b) => a.params - b.params);
  }

  /** The contract of `app`'s own document (built as /docs/openapi.json builds it), shared by apps whose documents are equal. */
  static of(app: NestFastifyApplication, config: AppConfig): ApiContract {
    const document = createOpenApiDocument(app, config) as unknown as Json;
    const key = JSON.stringify({ paths: document.paths, components: document.components });
    let contract = ApiContract.cache.get(key);
    if (!contract) ApiContract.cache.set(key, (contract = new ApiContract(document, config.basePath)));
    return contract;
  }

  /**
   * What is wrong with this JSON request body for the operation `method path` (its path template, as the
   * document writes it): the body must validate against the documented request schema (closed objects, as for
   * answers). Empty when nothing is.
   */
  checkRequest(method: string, path: string, body: unknown): string[] {
    const operation = (this.document.paths as Record<string, Record<string, Json>>)[path]?.[method.toLowerCase()];
    if (!operation) return [`${method} ${path} is not an operation of the document`];
    const content = (operation.requestBody as { content?: Record<string, { schema?: Json }> } | undefined)?.content;
    const schema = content?.['application/json']?.schema;
    if (!schema) return body === undefined ? [] : [`${method} ${path} documents no JSON request body`];
    const validate = this.validator(schema);
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 8)
      .map(
        (e) =>
          `${method} ${path} request ${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
      );
  }

  /** What is wrong with this answer to this request (empty when nothing is). */
  check(request: ContractRequest, response: ContractResponse): string[] {
    // The path the server sees: dot segments resolved as the URL parser does (`/a/b/..` is `/a`).
    const raw = request.url.split('?')[0];
    const path = URL.canParse(`http://service${raw}`) ? new URL(`http://service${raw}`).pathname : raw;
    const method = request.method.toUpperCase();
    if (method === 'OPTIONS' || path === this.docsPrefix || path.startsWith(`${this.docsPrefix}/`)) return [];
    const lookup = method === 'HEAD' ? 'GET' : method;
    const operation = this.operations.find((op) => op.method === lookup && op.pattern.test(path));
    if (!operation) {
      // An empty parameter (`/ecommerce/genCode/`): the router answers for the operation or as for no route.
      const loose = this.operations.find((op) => op.method === lookup && op.loosePattern.test(path));
      const unmatched = this.checkUnmatched(response);
      if (!loose || unmatched.length === 0) return unmatched;
      return this.checkOperation(loose, request, response, method);
    }
    return this.checkOperation(operation, request, response, method);
  }

  private checkOperation(operation: Operation, request: ContractRequest, response: ContractResponse, method: string): string[] {
    const name = `${operation.method} ${operation.path}`;
    const documented = operation.responses[String(response.status)];
    if (!documented)
      return [
        `${name} answered ${response.status}, a status its description does not list (${Object.keys(operation.responses).join(', ')})`,
      ];
    const problems = this.checkResponse(name, response.status, this.resolveResponse(documented), response, method === 'HEAD');
    if (response.status >= 200 && response.status < 300 && !this.securityMet(operation.security, request.headers)) {
      problems.push(
        `${name} answered ${response.status} to a request without the credentials its security requires (${JSON.stringify(operation.security)})`,
      );
    }
    return problems;
  }

  private checkUnmatched(response: ContractResponse): string[] {
    const allowed: Record<number, Json> = {};
    for (const { status, response: described } of Object.values(UNMATCHED_RESPONSES)) allowed[status] = described as unknown as Json;
    for (const name of ['BadRequest', 'UriTooLong', 'ServiceUnavailable'] as const)
      allowed[GLOBAL_RESPONSES[name].status] = GLOBAL_RESPONSES[name].response as unknown as Json;
    const described = allowed[response.status];
    if (!described)
      return [
        `a request that matches no operation answered ${response.status} (only ${Object.keys(allowed).join(', ')} are described for those)`,
      ];
    return this.checkResponse('(no operation)', response.status, described, response, false);
  }

  private checkResponse(name: string, status: number, documented: Json, response: ContractResponse, head: boolean): string[] {
    const problems: string[] = [];
    for (const [header, spec] of Object.entries((documented.headers ?? {}) as Record<string, { required?: boolean }>)) {
      if (spec.required && response.headers[header.toLowerCase()] === undefined)
        problems.push(`${name} ${status}: the ${header} header is missing`);
    }
    if (head) return problems;
    const content = documented.content as Record<string, { schema?: Json }> | undefined;
    const mediaType = String(response.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (!content) {
      if (response.body.length > 0)
        problems.push(`${name} ${status}: a body of ${mediaType || 'no media type'}, but the description documents no content`);
      return problems;
    }
    const media = content[mediaType];
    if (!media)
      return [
        ...problems,
        `${name} ${status}: media type ${mediaType || '(none)'}, but the description documents ${Object.keys(content).join(', ')}`,
      ];
    if (mediaType !== 'application/json' || !media.schema) return problems;
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return [...problems, `${name} ${status}: the body is not JSON`];
    }
    const validate = this.validator(media.schema);
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, 8)
        .map(
          (e) =>
            `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
        );
      problems.push(`${name} ${status}: the body does not match its description: ${errors.join('; ')}`);
    }
    return problems;
  }

  private validator(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) this.validators.set(key, (validate = this.ajv.compile(toJsonSchema(schema, 'openapi'))));
    return validate;
  }

  private resolveResponse(response: Json): Json {
    const ref = response.$ref as string | undefined;
    if (!ref) return response;
    const name = ref.replace('#/components/responses/', '');
    const target = (this.document.components as { responses?: Record<string, Json> } | undefined)?.responses?.[name];
    if (!target) throw new Error(`OpenAPI document: ${ref} is not defined`);
    return target;
  }

  private securityMet(security: Record<string, unknown>[], headers: Record<string, string | undefined>): boolean {
    if (security.length === 0) return true;
    const has = (name: string) => headers[name] !== undefined && headers[name] !== '';
    const present = (scheme: string) =>
      BEARER_SCHEMES.has(scheme)
        ? /^bearer /i.test(headers.authorization ?? '')
        : scheme === 'webhook-signature'
          ? has('stripe-signature')
          : true; // site-id has equivalents (appKey, host, body appID)
    return security.some((alternative) => Object.keys(alternative).every(present));
  }
}

/**
 * An OpenAPI 3.0 schema as JSON Schema for ajv: `nullable` becomes a null alternative, `$ref`s point into the
 * document registered as `base`, and objects that list their properties are closed unless they say otherwise.
 */
function toJsonSchema(schema: unknown, base = ''): Json {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema as Json;
  const s = { ...(schema as Json) };
  if (typeof s.$ref === 'string')
    return s.nullable === true ? { anyOf: [{ $ref: `${base}${s.$ref}` }, { type: 'null' }] } : { $ref: `${base}${s.$ref}` };
  for (const key of ['example', 'examples', 'xml', 'externalDocs', 'deprecated', 'readOnly', 'writeOnly', 'discriminator']) delete s[key];
  for (const key of ['allOf', 'anyOf', 'oneOf'])
    if (Array.isArray(s[key])) s[key] = (s[key] as unknown[]).map((item) => toJsonSchema(item, base));
  if (s.not) s.not = toJsonSchema(s.not, base);
  if (s.items) s.items = toJsonSchema(s.items, base);
  if (s.properties) s.properties = Object.fromEntries(Object.entries(s.properties as Json).map(([k, v]) => [k, toJsonSchema(v, base)]));
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    s.additionalProperties = toJsonSchema(s.additionalProperties, base);
  if (s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
  if (s.nullable === true) {
    delete s.nullable;
    if (s.allOf || s.anyOf || s.oneOf || typeof s.type !== 'string') {
      // `{ nullable, allOf: [{ $ref }] }`: null, or what the composition says.
      const { description, ...rest } = s;
      return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] };
    }
    if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
    s.type = [s.type, 'null'];
  } else {
    delete s.nullable;
  }
  return s;
}
