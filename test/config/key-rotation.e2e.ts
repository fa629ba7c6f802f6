import * as jwt from 'jsonwebtoken';
import { IdCipherService } from '../../src/common/id-cipher.service';
import { loadConfig } from '../../src/config/app-config';
import { startTestApp, siteFixture, TestApp, TEST_ENV } from '../support/test-app';

// Rotating ENCRYPTION_KEY, ENCRYPTION_IV and the JWT secrets (docs/operations.md "Rotating keys"): ids, app keys
// and sessions issued under the old values keep working on an instance that has the new ones and the old ones as
// <NAME>_PREVIOUS until <NAME>_PREVIOUS_UNTIL; what it issues uses the new values; after the date (read at each
// use, no restart) and on an instance without the previous values, the old ones are refused.

const NEW = {
  JWT_ACCESS_SECRET: 'rotated-access-secret-fedcba9876543210fedcba98',
  JWT_REFRESH_SECRET: 'rotated-refresh-secret-fedcba9876543210fedcba9',
  ENCRYPTION_KEY: 'ff'.repeat(32),
  ENCRYPTION_IV: 'ee'.repeat(16),
};
const NAMES = Object.keys(NEW) as (keyof typeof NEW)[];

/** The new values, with the test's own (TEST_ENV, the "old" ones) as previous until `until`. */
function rotated(until: string | null): Record<string, string> {
  const env: Record<string, string> = { ...NEW };
  if (until !== null)
    for (const name of NAMES) {
      env[`${name}_PREVIOUS`] = TEST_ENV[name];
      env[`${name}_PREVIOUS_UNTIL`] = until;
    }
  return env;
}

interface Issued {
  appKey: string; // _id of /getApp
  publicKey: string; // _publicKey of /getApp, the legacy app key
  productId: string; // _id of a /getDataRows row
  tokens: { access_token: string; refresh_token: string };
}

describe('key rotation', () => {
  let before: TestApp;
  let appId: number;
  let old: Issued;

  async function issue(t: TestApp): Promise<Issued> {
    const site = { 'site-id': String(appId) };
    const app = await t.post('/getApp', {}, site);
    expect(app.status).toBe(200);
    const rows = await t.post('/getDataRows', { table: 'core_products', fields: 'title' }, site);
    expect(rows.status).toBe(200);
    const login = await t.post('/auth/login', { email: 'rotation-admin@example.test', password: 'Admin@1234' }, site);
    expect(login.status).toBe(200);
    return { appKey: app.body._id, publicKey: app.body._publicKey, productId: rows.body.data[0]._id, tokens: login.body.token };
  }

  /** What an instance answers to each thing issued: the app keys as `appKey`, the product's `_id` with the bearer, the refresh. */
  async function answers(t: TestApp, issued: Issued) {
    const byKey = async (key: string) => {
      const res = await t.post('/getApp', {}, { appkey: key });
      // /getApp answers the app's own fields: its test public key (pk_test_<id>, siteFixture) names it.
      return res.status === 200 ? Number(String(res.body.payment_test_public_key).replace('pk_test_', '')) : res.status;
    };
    const history = await t.post(
      '/content/history',
      { table: 'core_products', _id: issued.productId },
      { 'site-id': String(appId), authorization: `Bearer ${issued.tokens.access_token}` },
    );
    const refresh = await t.post('/auth/refresh-token', { payload: issued.tokens }, { 'site-id': String(appId) });
    return {
      appKey: await byKey(issued.appKey),
      publicKey: await byKey(issued.publicKey),
      history: history.status === 200 ? history.body.data[0].Title : history.status,
      refresh: refresh.status,
    };
  }

  /** The product's `_id` with a fresh bearer of this instance: whether the id alone still names the record. */
  async function idAlone(t: TestApp, productId: string) {
    const login = await t.post(
      '/auth/login',
      { email: 'rotation-admin@example.test', password: 'Admin@1234' },
      { 'site-id': String(appId) },
    );
    const res = await t.post(
      '/content/history',
      { table: 'core_products', _id: productId },
      { 'site-id': String(appId), authorization: `Bearer ${login.body.token.access_token}` },
    );
    return res.status === 200 ? res.body.data[0].Title : res.status;
  }

  const ACCEPTED = { appKey: 0, publicKey: 0, history: 'Rotated E-book', refresh: 200 };

  beforeAll(async () => {
    before = await startTestApp();
    const seeded = await before.seed({
      site: siteFixture(),
      tables: {
        core_users: [{ user_email: 'rotation-admin@example.test', password: 'Admin@1234', primary_role: 'admin', firstname: 'Ada' }],
        core_products: [{ title: 'Rotated E-book', price: 1000, tax: 100, bond: 0, IsDigital: 0, IsEvent: 0, meta_status: 'Published' }],
      },
    });
    appId = seeded.appID;
    ACCEPTED.appKey = ACCEPTED.publicKey = appId;
    old = await issue(before);
    expect(await answers(before, old)).toEqual(ACCEPTED);
  });
  afterAll(() => before.close());

  it('until the date the old ids, app keys and tokens work; what is new uses the new keys; after it (no restart) the old are refused', async () => {
    const until = new Date(Date.now() + 12_000);
    const during = await startTestApp(rotated(until.toISOString()), before.database);
    try {
      expect(during.config.warnings).toContain(
        `Key rotation: ENCRYPTION_KEY_PREVIOUS is accepted for reading until ${until.toISOString()}; everything new is made with ENCRYPTION_KEY`,
      );
      expect(await answers(during, old)).toEqual(ACCEPTED);

      // New values are made with the new keys only.
      const fresh = await issue(during);
      const cipher = new IdCipherService(loadConfig({ ...TEST_ENV, ...NEW }));
      expect(fresh.appKey).toBe(cipher.encryptAppId(appId));
      expect(fresh.publicKey).toBe(cipher.legacyAppKey(appId));
      expect(fresh.productId).not.toBe(old.productId);
      expect(cipher.decryptId(appId, fresh.productId)).not.toBeNull();
      expect(() => jwt.verify(fresh.tokens.access_token, NEW.JWT_ACCESS_SECRET, { algorithms: ['HS256'] })).not.toThrow();
      expect(() => jwt.verify(fresh.tokens.access_token, TEST_ENV.JWT_ACCESS_SECRET, { algorithms: ['HS256'] })).toThrow();
      expect(() => jwt.verify(fresh.tokens.refresh_token, NEW.JWT_REFRESH_SECRET, { algorithms: ['HS256'] })).not.toThrow();
      // A session refreshed during the rotation continues on the new secret.
      const renewed = await during.post('/auth/refresh-token', { payload: old.tokens }, { 'site-id': String(appId) });
      expect(() => jwt.verify(renewed.body.token.access_token, NEW.JWT_ACCESS_SECRET, { algorithms: ['HS256'] })).not.toThrow();
      // The instance that still has the old keys only (not yet restarted) does not read the new values.
      expect(await answers(before, fresh)).toMatchObject({ appKey: 404, refresh: 401 });

      await new Promise((resolve) => setTimeout(resolve, Math.max(0, until.getTime() - Date.now() + 100)));
      expect(await answers(during, old)).toEqual({ appKey: 404, publicKey: 404, history: 401, refresh: 401 });
      expect(await idAlone(during, old.productId)).toBe(404);
      expect(await answers(during, fresh)).toEqual(ACCEPTED);
    } finally {
      await during.close();
    }
  });

  it('an instance started after the date, or without the previous values, refuses the old ones and says so at start', async () => {
    for (const env of [rotated('2020-01-01'), rotated(null)]) {
      const after = await startTestApp(env, before.database);
      try {
        if (env.ENCRYPTION_KEY_PREVIOUS)
          expect(after.config.warnings).toContain(
            'ENCRYPTION_KEY_PREVIOUS_UNTIL (2020-01-01T00:00:00.000Z) has passed: what ENCRYPTION_KEY_PREVIOUS made is refused; remove ENCRYPTION_KEY_PREVIOUS and ENCRYPTION_KEY_PREVIOUS_UNTIL',
          );
        expect(await answers(after, old)).toEqual({ appKey: 404, publicKey: 404, history: 401, refresh: 401 });
        expect(await idAlone(after, old.productId)).toBe(404);
        expect(await answers(after, await issue(after))).toEqual(ACCEPTED);
      } finally {
        await after.close();
      }
    }
  });
});
