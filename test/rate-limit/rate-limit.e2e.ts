import { randomBytes } from 'node:crypto';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

const LIMIT = { RATE_LIMIT_MAX_REQUESTS: '3', RATE_LIMIT_WINDOW_MS: '60000' };

async function hits(t: TestApp, appId: number, n: number, ip = '203.0.113.5'): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/getApp',
      headers: { 'site-id': String(appId), 'content-type': 'application/json' },
      payload: '{}',
      remoteAddress: ip,
    });
    statuses.push(res.statusCode);
  }
  return statuses;
}

describe('rate limits, in process', () => {
  let t: TestApp;
  let a: number;
  let b: number;

  beforeAll(async () => {
    t = await startTestApp(LIMIT);
    a = (await t.seed({ site: siteFixture() })).appID;
    b = (await t.seed({ site: siteFixture() })).appID;
  });
  afterAll(() => t.close());

  it('limits tenant A with 429, Retry-After and the failure envelope, while tenant B is unaffected', async () => {
    expect(await hits(t, a, 4)).toEqual([200, 200, 200, 429]);
    const limited = await t.app.inject({ method: 'POST', url: '/getApp', headers: { 'site-id': String(a) }, remoteAddress: '203.0.113.5' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(JSON.parse(limited.body)).toEqual({ status: 'Failed', message: 'Too many requests, please try again later' });
    expect(await hits(t, b, 3)).toEqual([200, 200, 200]);
  });

  it('counts per client address', async () => {
    expect(await hits(t, a, 2, '198.51.100.9')).toEqual([200, 200]);
  });

  it('counts requests that reach a route without a tenant, per address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/getApp/nowhere.example.test',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
        remoteAddress: '192.0.2.77',
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
  });

  it('does not count health checks', async () => {
    for (let i = 0; i < 5; i++) expect((await t.request('GET', '/health')).status).toBe(200);
  });
});

describe('rate limits shared through Redis', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    const env = {
      ...LIMIT,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
    };
    first = await startTestApp(env);
    second = await startTestApp(env, first.database);
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('two instances on one Redis share the count', async () => {
    const appId = (await first.seed({ site: siteFixture() })).appID;
    expect(await hits(first, appId, 2)).toEqual([200, 200]);
    expect(await hits(second, appId, 2)).toEqual([200, 429]);
    expect(await hits(first, appId, 1)).toEqual([429]);
  });
});
