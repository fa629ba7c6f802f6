import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { AppModule } from '../../src/app.module';
import { createOpenApiDocument } from '../../src/openapi';
import { ApiContract } from '../support/openapi-contract';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

/*
 * The OpenAPI document describes every answer (README "API description and client"), and the check that
 * holds the e2e tests to it (test/support/openapi-contract.ts, run by TestApp.request) refuses what the
 * description does not allow.
 */

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(doc: Json): { name: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, op: item[m] as Json })),
  );
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  let appId: number;

  beforeAll(async () => {
    t = await startTestApp();
    appId = (await t.seed({ site: siteFixture(), tables: {} })).appID;
    doc = (await t.request('GET', '/docs/openapi.json')).body;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('gives every answer of every operation a schema, by its own description or a shared response', () => {
    const shared = doc.components.responses as Json;
    const missing: string[] = [];
    for (const { name, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const described = response.$ref ? shared[String(response.$ref).replace('#/components/responses/', '')] : response;
        const schemas = Object.values((described?.content ?? {}) as Json).filter((media) => media.schema);
        if (schemas.length === 0) missing.push(`${name} ${status}`);
      }
      if (!Object.keys(op.responses).some((status) => status.startsWith('2'))) missing.push(`${name}: no success answer`);
    }
    expect(missing).toEqual([]);
    expect(operations(doc).length).toBeGreaterThan(60);
  });

  it('declares the security of every operation, with the schemes it defines', () => {
    const schemes = Object.keys(doc.components.securitySchemes);
    expect(schemes).toEqual(
      expect.arrayContaining(['site-id', 'bearer', 'admin-bearer', 'customer-bearer', 'webhook-signature', 'metrics-token']),
    );
    const undeclared = operations(doc)
      .filter(({ op }) => !Array.isArray(op.security))
      .map(({ name }) => name);
    expect(undeclared).toEqual([]);
    const unknown = operations(doc).flatMap(({ name, op }) =>
      (op.security as Json[]).flatMap((alternative) =>
        Object.keys(alternative)
          .filter((s) => !schemes.includes(s))
          .map((s) => `${name}: ${s}`),
      ),
    );
    expect(unknown).toEqual([]);
    const security = (path: string, method = 'post') => doc.paths[path][method].security;
    expect(security('/auth/login')).toEqual([{ 'site-id': [] }]);
    expect(security('/ecommerce/redeemToken')).toEqual([{ 'customer-bearer': [] }]);
    expect(security('/content/publish')).toEqual([{ 'admin-bearer': [] }]);
    expect(security('/ecommerce/payment-webhook')).toEqual([{ 'webhook-signature': [] }]);
    expect(security('/health', 'get')).toEqual([]);
    expect(security('/ecommerce/createOrder')).toEqual([{ 'site-id': [] }, { 'customer-bearer': [] }]);
  });

  it('declares the media type of the answers that are not JSON', () => {
    expect(Object.keys(doc.paths['/ecommerce/genCode/{id}'].get.responses['200'].content)).toEqual(['image/png']);
    expect(Object.keys(doc.paths['/auth/oauth/idp/redirect'].get.responses['200'].content)).toEqual(['text/html']);
    expect(Object.keys(doc.paths['/auth/oauth/idp/redirect'].get.responses['400'].content)).toEqual(['application/json']);
    expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain']);
  });

  it('lists null in every nullable enum (OpenAPI 3.0) and declares no object without properties that is not free-form', () => {
    const problems: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Json;
      if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null))
        problems.push(`${at}: nullable enum without null`);
      // `{ type: object }` alone is `Record<string, never>` in the client: an object must list properties, be free-form or compose others.
      const bare = schema.type === 'object' && !schema.properties && schema.additionalProperties === undefined;
      if (bare && !schema.allOf && !schema.anyOf && !schema.oneOf && !at.includes('/example'))
        problems.push(`${at}: an object without properties`);
      for (const [key, value] of Object.entries(schema)) walk(value, `${at}/${key}`);
    };
    walk(doc, '#');
    expect(problems).toEqual([]);
    expect(doc.components.schemas.OrderViewDto.properties.paymentStatus.enum).toContain(null);
  });

  it('is the same document when built without a server or a database (as `npm run client:generate` builds it)', async () => {
    const preview = await NestFactory.create(AppModule.forRoot(t.config, { url: '', embedded: false }), new FastifyAdapter(), {
      preview: true,
      logger: false,
      abortOnError: false,
    });
    try {
      expect(createOpenApiDocument(preview, t.config)).toEqual(doc);
    } finally {
      await preview.close();
    }
  });

  describe('the contract check of the e2e tests', () => {
    const json = (body: unknown) => ({ 'content-type': 'application/json; charset=utf-8', body: JSON.stringify(body) });
    const answer = (status: number, body: unknown, headers: Record<string, unknown> = {}) => {
      const { body: text, ...contentType } = json(body);
      return { status, headers: { ...contentType, ...headers }, body: text };
    };
    const post = (url: string, headers: Record<string, string> = {}) => ({ method: 'POST', url, headers: { 'site-id': '7', ...headers } });
    let contract: ApiContract;
    let app: Json;

    beforeAll(async () => {
      contract = ApiContract.of(t.app, t.config);
      app = (await t.post('/getApp', {}, { 'site-id': String(appId) })).body;
    });

    it('accepts a documented answer', () => {
      expect(contract.check(post('/getApp'), answer(200, app))).toEqual([]);
      expect(contract.check(post('/getApp'), answer(404, { status: 'Failed', message: 'App not found' }))).toEqual([]);
    });

    it('refuses a status the operation does not document', () => {
      expect(contract.check(post('/getApp'), answer(418, { status: 'Failed', message: 'teapot' }))).toEqual([
        expect.stringMatching(/answered 418, a status its description does not list/),
      ]);
    });

    it('refuses a field the description does not name, a missing or mistyped one, and another media type', () => {
      expect(contract.check(post('/getApp'), answer(200, { ...app, secret: 'x' }))).toEqual([
        expect.stringMatching(/must NOT have additional properties \(secret\)/),
      ]);
      const { _id: _ignored, ...withoutId } = app;
      expect(contract.check(post('/getApp'), answer(200, withoutId))).toEqual([expect.stringMatching(/must have required property '_id'/)]);
      expect(contract.check(post('/getApp'), answer(200, { ...app, logo: 12 }))).toEqual([
        expect.stringMatching(/\/logo must be string,null/),
      ]);
      expect(contract.check(post('/getApp'), { status: 200, headers: { 'content-type': 'text/html' }, body: '<p>' })).toEqual([
        expect.stringMatching(/media type text\/html/),
      ]);
      expect(contract.check(post('/auth/login'), answer(400, { status: 'Error', message: 'Validation error' }))).toEqual([
        expect.stringMatching(/status must be equal to one of the allowed values/),
      ]);
    });

    it('refuses a 429 without Retry-After', () => {
      const limited = answer(429, { status: 'Failed', message: 'Too many requests, please try again later' });
      expect(contract.check(post('/getApp'), limited)).toEqual([expect.stringMatching(/the retry-after header is missing/)]);
      expect(contract.check(post('/getApp'), { ...limited, headers: { ...limited.headers, 'retry-after': '3' } })).toEqual([]);
    });

    it('refuses a success earned without the credential the security requires', () => {
      const expired = answer(200, { status: 'Success', message: 'Token expired', datetime: new Date().toISOString() });
      expect(contract.check(post('/ecommerce/expireToken'), expired)).toEqual([
        expect.stringMatching(/without the credentials its security requires/),
      ]);
      expect(contract.check(post('/ecommerce/expireToken', { authorization: 'Bearer x' }), expired)).toEqual([]);
    });

    it('holds a request that matches no operation to 404 or 405 in the failure envelope', () => {
      expect(contract.check(post('/nowhere'), answer(404, { status: 'Failed', message: 'Route not found: POST /nowhere' }))).toEqual([]);
      expect(
        contract.check(
          { method: 'GET', url: '/getApp', headers: {} },
          answer(405, { status: 'Failed', message: 'Method not allowed: GET /getApp' }, { allow: 'POST' }),
        ),
      ).toEqual([]);
      expect(contract.check(post('/nowhere'), answer(200, { status: 'Success' }))).toEqual([
        expect.stringMatching(/matches no operation answered 200/),
      ]);
      expect(
        contract.check({ method: 'GET', url: '/getApp', headers: {} }, answer(405, { status: 'Failed', message: 'Method not allowed' })),
      ).toEqual([expect.stringMatching(/allow header is missing/)]);
    });

    it('fails the request of a test whose answer the description does not allow', async () => {
      // A real answer, held to a description it does not meet: the getApp answer checked as sign-out's.
      const real = await t.app.inject({
        method: 'POST',
        url: '/getApp',
        headers: { 'site-id': String(appId), 'content-type': 'application/json' },
        payload: '{}',
      });
      const problems = contract.check(post('/auth/sign-out'), { status: real.statusCode, headers: real.headers, body: real.body });
      expect(problems).toEqual([expect.stringMatching(/POST \/auth\/sign-out 200: the body does not match its description/)]);
    });
  });
});

describe('the OpenAPI document of a production-mode app', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ NODE_ENV: 'production' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('has its paths under /api/v2 (except health, metrics and the console session), and the contract check matches them there', async () => {
    const doc = (await t.request('GET', '/api/v2/docs/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v2/getApp', '/api/v2/ecommerce/orderStatus/{id}', '/health', '/metrics']),
    );
    expect(
      Object.keys(doc.paths).filter((path) => !path.startsWith('/api/v2/') && !['/health', '/health/ready', '/metrics'].includes(path)),
    ).toEqual(['/console/session/csrf', '/console/session/sign-in', '/console/session/refresh', '/console/session/sign-out']);
    const contract = ApiContract.of(t.app, t.config);
    const missing = {
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'Failed', message: 'Missing app context: send the site-id header' }),
    };
    expect(contract.check({ method: 'POST', url: '/api/v2/getApp', headers: {} }, missing)).toEqual([]);
    expect((await t.post('/api/v2/getApp', {})).status).toBe(400);
    expect((await t.request('GET', '/health')).status).toBe(200);
  });
});
