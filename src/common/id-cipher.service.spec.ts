import { createCipheriv } from 'node:crypto';
import { ExecutionContext } from '@nestjs/common';
import { lastValueFrom, of } from 'rxjs';
import { DecryptIdsInterceptor, UNKNOWN_ID } from './decrypt-ids.interceptor';
import { IdCipherService } from './id-cipher.service';
import { loadConfig } from '../config/app-config';
import { TEST_ENV } from '../../test/support/test-env';

/** Test vectors for README "Encrypted identifiers", made with the test key and iv of test/support/test-env.ts. */
const KEY = Buffer.from(TEST_ENV.ENCRYPTION_KEY, 'hex');
const VECTORS = {
  serviceFormatOf42InApp7: 'cQRMjiBC2RqJB7_hu5yeaOx9IG1qbVnMFBZFSsbd',
  appIdOf7: '8XU0aJyjfqM_7om1vmp4zSbW9JXNHHsC8H85l1A',
  legacyBracketOf42: '[000102030405060708090a0b0c0d0e0f:03953909b7035a6690f7efaef432982c]',
  legacyAppKeyOf7: '0e542aeac1ddd96b8dd429d4cf68be5d',
};

describe('IdCipherService', () => {
  const cipher = new IdCipherService(loadConfig(TEST_ENV));

  it('produces the pinned service-format vector, deterministically', () => {
    expect(cipher.encryptId(7, 42)).toBe(VECTORS.serviceFormatOf42InApp7);
    expect(cipher.encryptId(7, 42)).toBe(cipher.encryptId(7, 42));
    expect(cipher.decryptId(7, VECTORS.serviceFormatOf42InApp7)).toBe(42);
  });

  it('binds an id to its app: it does not decrypt in another app', () => {
    expect(cipher.encryptId(8, 42)).not.toBe(cipher.encryptId(7, 42));
    expect(cipher.decryptId(8, VECTORS.serviceFormatOf42InApp7)).toBeNull();
    expect(cipher.decryptId(8, cipher.encryptId(8, 42))).toBe(42);
  });

  it('reads the legacy [iv:ciphertext] form, with or without the leading underscore', () => {
    const iv = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
    const c = createCipheriv('aes-256-cbc', KEY, iv);
    const made = `[${iv.toString('hex')}:${Buffer.concat([c.update('42'), c.final()]).toString('hex')}]`;
    expect(made).toBe(VECTORS.legacyBracketOf42);
    // the legacy form is not bound to an app (old links stay readable)
    expect(cipher.decryptId(7, VECTORS.legacyBracketOf42)).toBe(42);
    expect(cipher.decryptId(8, `_${VECTORS.legacyBracketOf42}`)).toBe(42);
  });

  it('makes and reads the legacy app key (ENCRYPTION_IV)', () => {
    expect(cipher.legacyAppKey(7)).toBe(VECTORS.legacyAppKeyOf7);
    expect(cipher.decryptAppKey(VECTORS.legacyAppKeyOf7)).toBe(7);
    expect(cipher.encryptAppId(7)).toBe(VECTORS.appIdOf7);
    expect(cipher.decryptAppKey(VECTORS.appIdOf7)).toBe(7);
    // an id of a record is not an app key
    expect(cipher.decryptAppKey(cipher.encryptId(7, 7))).toBeNull();
  });

  it('refuses tampered, truncated, foreign and non-string values alike', () => {
    const good = cipher.encryptId(7, 42);
    const flipped = good.slice(0, 10) + (good[10] === 'A' ? 'B' : 'A') + good.slice(11);
    const foreign = new IdCipherService(loadConfig({ ...TEST_ENV, ENCRYPTION_KEY: 'ff'.repeat(32) })).encryptId(7, 42);
    for (const bad of [flipped, good.slice(0, -2), good.slice(0, 20), foreign, '42', 42, null, {}, '', '[00:zz]', 'x'.repeat(600)]) {
      expect(cipher.decryptId(7, bad)).toBeNull();
    }
  });

  it('binds a sealed value to its purpose', () => {
    const token = cipher.seal('reset', 'user:5');
    expect(cipher.open('reset', token)).toBe('user:5');
    expect(cipher.open('id', token)).toBeNull();
    expect(cipher.decryptId(7, token)).toBeNull();
  });

  describe('DecryptIdsInterceptor', () => {
    const interceptor = new DecryptIdsInterceptor(cipher);
    const run = async (body: unknown, appId: number | null) => {
      const request = { body, ctx: { site: appId === null ? null : { id: appId } } };
      const execution = { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
      await lastValueFrom(interceptor.intercept(execution, { handle: () => of(null) }));
      return request.body;
    };

    it("decrypts every _-prefixed body property of the request's app, nested too, and turns bad ones into the unknown id", async () => {
      const body = {
        _orderID: cipher.encryptId(7, 9),
        name: 'x',
        items: [{ _id: cipher.encryptId(7, 3), qty: 1 }],
        _bad: 'tampered',
        _num: 5,
      };
      expect(await run(body, 7)).toEqual({ _orderID: 9, name: 'x', items: [{ _id: 3, qty: 1 }], _bad: UNKNOWN_ID, _num: UNKNOWN_ID });
    });

    it("turns another app's ids, and every id of a request without an app, into the unknown id", async () => {
      expect(await run({ _id: cipher.encryptId(8, 3) }, 7)).toEqual({ _id: UNKNOWN_ID });
      expect(await run({ _id: cipher.encryptId(7, 3) }, null)).toEqual({ _id: UNKNOWN_ID });
    });
  });
});
