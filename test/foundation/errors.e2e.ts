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
    const strings = await t.request('POST', '/getApp', JSON.stringify({ a: '['.repeat(100) }), { ...site, 'content-type': 'application/json' });
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
