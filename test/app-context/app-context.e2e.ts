import { IdCipherService } from '../../src/common/id-cipher.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

describe('app context resolution', () => {
  let t: TestApp;
  let a: { id: number; domain: string };
  let b: { id: number; domain: string };

  const appOf = async (headers: Record<string, string>, body: object = {}) => {
    const res = await t.post('/getApp', body, headers);
    return res.status === 200 ? t.get(IdCipherService).decryptAppKey(res.body._id) : res;
  };

  beforeAll(async () => {
    t = await startTestApp();
    const siteA = siteFixture();
    const siteB = siteFixture();
    a = { id: (await t.seed({ site: siteA })).appID, domain: siteA.domain };
    b = { id: (await t.seed({ site: siteB })).appID, domain: siteB.domain };
  });
  afterAll(() => t.close());

  it('takes the site-id header first', async () => {
    expect(await appOf({ 'site-id': String(a.id), host: b.domain }, { appID: b.id })).toBe(a.id);
  });

  it('then the legacy appKey header, in the legacy and the service format', async () => {
    const cipher = t.get(IdCipherService);
    expect(await appOf({ appkey: cipher.legacyAppKey(a.id), host: b.domain })).toBe(a.id);
    expect(await appOf({ appKey: cipher.encryptAppId(b.id) })).toBe(b.id);
  });

  it('then x-forwarded-host, then host (port ignored, case-insensitive)', async () => {
    expect(await appOf({ 'x-forwarded-host': a.domain, host: b.domain })).toBe(a.id);
    expect(await appOf({ host: `${b.domain.toUpperCase()}:8080` })).toBe(b.id);
  });

  it('then appID in the body, outside production', async () => {
    expect(await appOf({}, { appID: b.id })).toBe(b.id);
  });

  it('answers 404 App not found for an unknown app, however it was named', async () => {
    const cipher = t.get(IdCipherService);
    for (const headers of [
      { 'site-id': '999999' },
      { 'site-id': '9999999999' },
      { appkey: cipher.legacyAppKey(999999) },
      { appkey: 'tampered-value' },
    ] as Record<string, string>[]) {
      const res = await t.post('/getApp', {}, headers);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 'Failed', message: 'App not found' });
    }
    const res = await t.post('/getApp', { appID: 999999 });
    expect(res.status).toBe(404);
  });

  it('answers 400 for a missing app context and names a malformed site-id', async () => {
    const missing = await t.post('/getApp', {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      status: 'Failed',
      message: 'Missing app context: send the site-id header (or appID outside production)',
    });
    const malformed = await t.post('/getApp', {}, { 'site-id': '7; DROP TABLE core_sites' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([{ field: 'site-id', message: 'site-id header must be a positive integer' }]);
  });
});

describe('app context behind a proxy', () => {
  let t: TestApp;
  let proxied: TestApp;
  let a: { id: number; domain: string };
  let b: { id: number; domain: string };

  beforeAll(async () => {
    t = await startTestApp({ APP_PROXY: 'true' });
    const siteA = siteFixture();
    const siteB = siteFixture();
    a = { id: (await t.seed({ site: siteA })).appID, domain: siteA.domain };
    b = { id: (await t.seed({ site: siteB })).appID, domain: siteB.domain };
    proxied = await startTestApp({ APP_PROXY: 'true', APP_PROXY_APP_ID: String(a.id) }, t.database);
  });
  afterAll(async () => {
    await proxied.close();
    await t.close();
  });

  const idOf = (app: TestApp, res: { body: { _id: string } }) => app.get(IdCipherService).decryptAppKey(res.body._id);

  it('uses the application setting before anything the request says', async () => {
    const res = await proxied.post('/getApp', {}, { 'site-id': String(b.id), 'x-original-host': b.domain });
    expect(idOf(proxied, res)).toBe(a.id);
  });

  it('then the proxy site-id, then x-original-host', async () => {
    expect(idOf(t, await t.post('/getApp', {}, { 'site-id': String(b.id), 'x-original-host': a.domain }))).toBe(b.id);
    expect(idOf(t, await t.post('/getApp', {}, { 'x-original-host': a.domain, host: b.domain }))).toBe(a.id);
  });

  it('does not fall back to host or body in proxy mode', async () => {
    const res = await t.post('/getApp', { appID: a.id }, { host: a.domain });
    expect(res.status).toBe(400);
  });
});
