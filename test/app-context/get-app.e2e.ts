import { IdCipherService } from '../../src/common/id-cipher.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  JWT_ACCESS_SECRET: 'prod-like-access-3f9a1c7e5b2d8f4a6c0e1b3d5f7a9c2e4',
  JWT_REFRESH_SECRET: 'prod-like-refresh-8b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2',
};

describe('POST /getApp', () => {
  let t: TestApp;
  let appId: number;
  let domain: string;

  beforeAll(async () => {
    t = await startTestApp();
    const site = siteFixture();
    domain = site.domain;
    appId = (await t.seed({ site })).appID;
  });
  afterAll(() => t.close());

  it('answers branding, encrypted id, app key and exactly the test public key outside production', async () => {
    const res = await t.post('/getApp', {}, { 'site-id': String(appId) });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      '_id',
      '_publicKey',
      'background',
      'colour1',
      'colour2',
      'logo',
      'payment_test_public_key',
      'splash_logo',
    ]);
    expect(res.body).toMatchObject({
      logo: '/img/logo.png',
      splash_logo: '/img/splash.png',
      background: '#fff',
      colour1: '#111',
      colour2: '#222',
    });
    expect(res.body.payment_test_public_key).toBe(`pk_test_${appId}`);
    expect(t.get(IdCipherService).decryptAppKey(res.body._id)).toBe(appId);
    expect(t.get(IdCipherService).decryptAppKey(res.body._publicKey)).toBe(appId);
  });

  it('never returns private keys or secrets', async () => {
    const res = await t.post('/getApp', {}, { 'site-id': String(appId) });
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/sk_test_|whsec_|private/);
  });

  it('accepts appID in the body outside production', async () => {
    const res = await t.post('/getApp', { appID: appId });
    expect(res.status).toBe(200);
    expect(res.body.payment_test_public_key).toBe(`pk_test_${appId}`);
  });

  it('accepts an empty body with a JSON content type and no body at all', async () => {
    const empty = await t.request('POST', '/getApp', '', { 'site-id': String(appId) });
    const none = await t.request('POST', '/getApp', undefined, { 'site-id': String(appId) });
    expect([empty.status, none.status]).toEqual([200, 200]);
  });

  it('POST /getApp/:domain resolves the app by the path segment', async () => {
    const res = await t.post(`/getApp/${domain}`, {});
    expect(res.status).toBe(200);
    expect(t.get(IdCipherService).decryptAppKey(res.body._id)).toBe(appId);
    const unknown = await t.post('/getApp/nowhere.example.test', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: 'Failed', message: 'App not found' });
    // A NUL, which PostgreSQL text cannot hold, names no app either (found by test/fuzz, seed -567311620).
    const nul = await t.post('/getApp/%00', {});
    expect(nul.status).toBe(404);
    expect(nul.body).toEqual({ status: 'Failed', message: 'App not found' });
  });

  it('rejects a non-integer appID naming the field', async () => {
    const res = await t.post('/getApp', { appID: 'seven' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 'Failed',
      message: 'Validation error',
      errors: [{ field: 'appID', message: 'appID must be an integer' }],
    });
  });
});

describe('POST /getApp in production mode', () => {
  let t: TestApp;
  let appId: number;

  beforeAll(async () => {
    t = await startTestApp(PRODUCTION_ENV);
    appId = (await t.seed({ site: siteFixture() })).appID;
  });
  afterAll(() => t.close());

  it('lives under /api/v2 and returns exactly the live public key', async () => {
    const res = await t.post('/api/v2/getApp', {}, { 'site-id': String(appId) });
    expect(res.status).toBe(200);
    expect(res.body.payment_live_public_key).toBe(`pk_live_${appId}`);
    expect(res.body).not.toHaveProperty('payment_test_public_key');
  });

  it('has no unversioned route', async () => {
    const res = await t.post('/getApp', {}, { 'site-id': String(appId) });
    expect(res.status).toBe(404);
    expect(res.body.status).toBe('Failed');
  });

  it('ignores appID in the body', async () => {
    const res = await t.post('/api/v2/getApp', { appID: appId });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Missing app context/);
  });

  it('keeps /health outside the prefix', async () => {
    expect((await t.request('GET', '/health')).status).toBe(200);
  });
});
