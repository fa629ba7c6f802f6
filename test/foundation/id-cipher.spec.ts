import { createCipheriv } from 'node:crypto';
import { UNKNOWN_ID, DecryptIdsPipe } from '../../src/common/decrypt-ids.pipe';
import { IdCipher } from '../../src/common/id-cipher.service';
import { loadConfig } from '../../src/config/app-config';
import { TEST_ENV } from '../support/test-app';

/** Test vectors for README "Encrypted identifiers", made with the test key and iv of test/support/test-app.ts. */
const KEY = Buffer.from(TEST_ENV.ENCRYPTION_KEY, 'hex');
const VECTORS = {
  serviceFormatOf42: 'grghmSSx1peIyfPlijznw-5GpO1U7zpVqr-RCPGF',
  legacyBracketOf42: '[000102030405060708090a0b0c0d0e0f:03953909b7035a6690f7efaef432982c]',
  legacyAppKeyOf7: '0e542aeac1ddd96b8dd429d4cf68be5d',
};

describe('IdCipher', () => {
  const cipher = new IdCipher(loadConfig(TEST_ENV));

  it('produces the pinned service-format vector, deterministically', () => {
    expect(cipher.encryptId(42)).toBe(VECTORS.serviceFormatOf42);
    expect(cipher.encryptId(42)).toBe(cipher.encryptId(42));
    expect(cipher.decryptId(VECTORS.serviceFormatOf42)).toBe(42);
  });

  it('reads the legacy [iv:ciphertext] form, with or without the leading underscore', () => {
    const iv = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
    const c = createCipheriv('aes-256-cbc', KEY, iv);
    const made = `[${iv.toString('hex')}:${Buffer.concat([c.update('42'), c.final()]).toString('hex')}]`;
    expect(made).toBe(VECTORS.legacyBracketOf42);
    expect(cipher.decryptId(VECTORS.legacyBracketOf42)).toBe(42);
    expect(cipher.decryptId(`_${VECTORS.legacyBracketOf42}`)).toBe(42);
  });

  it('makes and reads the legacy app key (ENCRYPTION_IV)', () => {
    expect(cipher.legacyAppKey(7)).toBe(VECTORS.legacyAppKeyOf7);
    expect(cipher.decryptAppKey(VECTORS.legacyAppKeyOf7)).toBe(7);
    expect(cipher.decryptAppKey(cipher.encryptId(7))).toBe(7);
  });

  it('refuses tampered, truncated, foreign and non-string values alike', () => {
    const good = cipher.encryptId(42);
    const flipped = good.slice(0, 10) + (good[10] === 'A' ? 'B' : 'A') + good.slice(11);
    const foreign = new IdCipher(loadConfig({ ...TEST_ENV, ENCRYPTION_KEY: 'ff'.repeat(32) })).encryptId(42);
    for (const bad of [flipped, good.slice(0, -2), good.slice(0, 20), foreign, '42', 42, null, {}, '', '[00:zz]', 'x'.repeat(600)]) {
      expect(cipher.decryptId(bad)).toBeNull();
    }
  });

  it('binds a sealed value to its purpose', () => {
    const token = cipher.seal('reset', 'user:5');
    expect(cipher.open('reset', token)).toBe('user:5');
    expect(cipher.open('id', token)).toBeNull();
    expect(cipher.decryptId(token)).toBeNull();
  });

  it('decrypts every _-prefixed body property, nested too, and turns bad ones into the unknown id', () => {
    const pipe = new DecryptIdsPipe(cipher);
    const body = { _orderID: cipher.encryptId(9), name: 'x', items: [{ _id: cipher.encryptId(3), qty: 1 }], _bad: 'tampered', _num: 5 };
    pipe.transform(body, { type: 'body' });
    expect(body).toEqual({ _orderID: 9, name: 'x', items: [{ _id: 3, qty: 1 }], _bad: UNKNOWN_ID, _num: UNKNOWN_ID });
    const query = { _id: 'abc' };
    expect(pipe.transform(query, { type: 'query' })).toEqual({ _id: 'abc' });
  });
});
