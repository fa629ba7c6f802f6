import { rawRequest } from '../support/raw-http';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

describe('envelopes and errors', () => {
  let t: TestApp;
  let site: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ BODY_LIMIT_BYTES: '2048' });
    site = { 'site-id': String((await t.seed({ site: siteFixture() })).appID) };
  });
  afterAll(() => t.close());

  it('answers unknown routes with 404 in the failure envelope', async () => {
    const res = await t.request('GET', '/no/such/route?x=1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'Failed', message: 'Route not found: GET /no/such/route' });
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.request('POST', '/getApp', '{"appID": 7,', { ...site, 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'Failed', message: 'Malformed JSON in request body' });
  });

  it('refuses prototype pollution in JSON', async () => {
    const res = await t.request('POST', '/getApp', '{"__proto__": {"admin": true}}', { ...site, 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'Failed', message: 'Request body contains a forbidden property (__proto__ or constructor)' });
  });

  it('refuses absurdly nested JSON with 400 instead of overflowing the stack', async () => {
    const deep = '['.repeat(500) + ']'.repeat(500);
    const res = await t.request('POST', '/getApp', `{"a":${deep}}`, { ...site, 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'Failed', message: 'Request body is nested deeper than 32 levels' });
    const strings = await t.request('POST', '/getApp', JSON.stringify({ a: '['.repeat(100) }), {
      ...site,
      'content-type': 'application/json',
    });
    expect(strings.status).toBe(200);
  });

  it('answers an oversized body with 413', async () => {
    const res = await t.post('/getApp', { padding: 'x'.repeat(4096) }, site);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ status: 'Failed', message: 'Request body is too large' });
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await t.request('POST', '/getApp', 'appID=7', { ...site, 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(res.body.status).toBe('Failed');
  });

  it('gives every response a request id, and echoes a sane incoming one', async () => {
    const res = await t.post('/getApp', {}, { ...site, 'x-request-id': 'trace-abc.123' });
    expect(res.headers['x-request-id']).toBe('trace-abc.123');
    const other = await t.post('/getApp', {}, { ...site, 'x-request-id': 'bad id with spaces' });
    expect(other.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('errors Fastify and Node answer before any route runs, on a real socket', () => {
  let t: TestApp;
  let port: number;
  const get = (path: string, method = 'GET', extraHeaders = '', body = '') =>
    rawRequest(port, `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${extraHeaders}Connection: close\r\n\r\n${body}`);

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => t.close());

  it('answers an unknown route 404 and a known path with another method 405 with Allow', async () => {
    const unknown = await get('/no/such/route');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: 'Failed', message: 'Route not found: GET /no/such/route' });
    expect(unknown.headers['x-request-id']).toBeTruthy();

    const wrongMethod = await get('/getApp/shop.example.test');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
    expect(wrongMethod.body).toEqual({ status: 'Failed', message: 'Method not allowed: GET /getApp/shop.example.test' });
    const health = await get('/health', 'DELETE');
    expect(health.status).toBe(405);
    expect(health.headers.allow).toBe('GET, HEAD');
  });

  it('answers a malformed URL 400', async () => {
    const res = await get('/getApp/%zz', 'POST');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'Failed', message: 'Malformed URL' });
  });

  it('routes a long path parameter instead of calling it an unknown route', async () => {
    const res = await get(
      `/getApp/${'a'.repeat(300)}.example.test`,
      'POST',
      'Content-Type: application/json\r\nContent-Length: 2\r\n',
      '{}',
    );
    expect(res.body.message).not.toMatch(/Route not found/);
  });

  it('answers an over-long URL 414, whether Fastify or the HTTP parser meets it', async () => {
    for (const length of [10_000, 20_000, 100_000]) {
      const res = await get(`/health?${'a'.repeat(length)}`);
      expect({ length, status: res.status, body: res.body }).toEqual({
        length,
        status: 414,
        body: { status: 'Failed', message: 'URL is too long' },
      });
    }
  });

  it('answers over-long headers 431 and a malformed request 400', async () => {
    const headers = await get('/health', 'GET', `X-Padding: ${'b'.repeat(20_000)}\r\n`);
    expect(headers.status).toBe(431);
    expect(headers.body).toEqual({ status: 'Failed', message: 'Request headers are too large' });
    const garbage = await rawRequest(port, 'HELLO\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(garbage.body).toEqual({ status: 'Failed', message: 'Malformed HTTP request' });
    const badHeader = await rawRequest(port, 'GET /health HTTP/1.1\r\nBad Header: x\r\n\r\n');
    expect(badHeader.status).toBe(400);
    expect(badHeader.body).toEqual({ status: 'Failed', message: 'Malformed HTTP request' });
  });
});

describe('unexpected errors', () => {
  it('become the generic 500 without detail or stack trace', async () => {
    const t = await startTestApp();
    const appId = (await t.seed({ site: siteFixture() })).appID;
    await t.dataSource.query(`ALTER TABLE core_sites RENAME TO core_sites_gone`);
    try {
      const res = await t.post('/getApp', {}, { 'site-id': String(appId) });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ status: 'Failed', message: 'An error occurred while processing your request' });
      expect(JSON.stringify(res.body)).not.toMatch(/core_sites|stack|at /);
    } finally {
      await t.dataSource.query(`ALTER TABLE core_sites_gone RENAME TO core_sites`);
      await t.close();
    }
  });
});
