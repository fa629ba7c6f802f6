import { IdCipher } from '../../src/common/id-cipher.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

describe('POST /getApp', () => {
  let t: TestApp;
  let appId: number;

  beforeAll(async () => {
    t = await startTestApp();
    appId = (await t.seed({ site: siteFixture() })).appID;
  });
  afterAll(() => t.close());

  it('answers branding, encrypted id, app key and the test public key outside production', async () => {
    const res = await t.post('/getApp', {}, { 'site-id': String(appId) });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['_id', '_publicKey', 'background', 'colour1', 'colour2', 'logo', 'payment_test_public_key', 'splash_logo'].sort());
    expect(res.body.payment_test_public_key).toBe(`pk_test_${appId}`);
    expect(t.get(IdCipher).decryptId(res.body._id)).toBe(appId);
  });
});
