import { createCipheriv } from 'node:crypto';
import { IdCipherService } from '../../src/common/id-cipher.service';
import { loadConfig, parseUntil } from '../../src/config/app-config';
import { IdpSealer } from '../../src/idp/idp-seal';
import { TEST_ENV } from '../support/test-app';

// The configuration of key rotation and what each secret's users read while rotating (docs/operations.md
// "Rotating keys"); test/config/key-rotation.e2e.ts runs a rotation through HTTP.

const FUTURE = new Date(Date.now() + 86_400_000).toISOString();
const errorOf = (env: Record<string, string>) => {
  try {
    loadConfig({ ...TEST_ENV, ...env });
  } catch (error) {
    return (error as Error).message;
  }
  return null;
};

describe('key rotation settings', () => {
  it('reads <NAME>_PREVIOUS with <NAME>_PREVIOUS_UNTIL for every secret that signs or encrypts', () => {
    const config = loadConfig({
      ...TEST_ENV,
      JWT_ACCESS_SECRET: 'a'.repeat(40),
      JWT_ACCESS_SECRET_PREVIOUS: TEST_ENV.JWT_ACCESS_SECRET,
      JWT_ACCESS_SECRET_PREVIOUS_UNTIL: '2030-01-31',
      JWT_REFRESH_SECRET: 'b'.repeat(40),
      JWT_REFRESH_SECRET_PREVIOUS: TEST_ENV.JWT_REFRESH_SECRET,
      JWT_REFRESH_SECRET_PREVIOUS_UNTIL: '2030-01-31T12:00:00+02:00',
      ENCRYPTION_KEY: 'ff'.repeat(32),
      ENCRYPTION_KEY_PREVIOUS: TEST_ENV.ENCRYPTION_KEY,
      ENCRYPTION_KEY_PREVIOUS_UNTIL: '2030-01-31T10:00:00Z',
      ENCRYPTION_IV: 'ee'.repeat(16),
      ENCRYPTION_IV_PREVIOUS: TEST_ENV.ENCRYPTION_IV,
      ENCRYPTION_IV_PREVIOUS_UNTIL: '2030-01-31T10:00:00Z',
      IDP_COOKIE_PASSWORD: 'c'.repeat(40),
      IDP_COOKIE_PASSWORD_PREVIOUS: 'd'.repeat(40),
      IDP_COOKIE_PASSWORD_PREVIOUS_UNTIL: '2030-01-31',
    });
    expect(config.previousKeys).toEqual({
      jwtAccess: { value: TEST_ENV.JWT_ACCESS_SECRET, until: new Date('2030-01-31T00:00:00Z') },
      jwtRefresh: { value: TEST_ENV.JWT_REFRESH_SECRET, until: new Date('2030-01-31T10:00:00Z') },
      encryptionKey: { value: Buffer.from(TEST_ENV.ENCRYPTION_KEY, 'hex'), until: new Date('2030-01-31T10:00:00Z') },
      encryptionIv: { value: Buffer.from(TEST_ENV.ENCRYPTION_IV, 'hex'), until: new Date('2030-01-31T10:00:00Z') },
      idpCookiePassword: { value: 'd'.repeat(40), until: new Date('2030-01-31T00:00:00Z') },
    });
    expect(config.warnings).toContain(
      'Key rotation: JWT_ACCESS_SECRET_PREVIOUS is accepted for reading until 2030-01-31T00:00:00.000Z; everything new is made with JWT_ACCESS_SECRET',
    );
    expect(loadConfig(TEST_ENV).previousKeys).toEqual({
      jwtAccess: null,
      jwtRefresh: null,
      encryptionKey: null,
      encryptionIv: null,
      idpCookiePassword: null,
    });
  });

  it('refuses half a rotation, a bad date, a malformed or unchanged previous value, each naming the variable', () => {
    expect(errorOf({ ENCRYPTION_KEY: 'ff'.repeat(32), ENCRYPTION_KEY_PREVIOUS: TEST_ENV.ENCRYPTION_KEY })).toBe(
      'Invalid configuration: ENCRYPTION_KEY_PREVIOUS needs ENCRYPTION_KEY_PREVIOUS_UNTIL, the date after which what it made is refused (2026-12-31 or 2026-12-31T12:00:00Z)',
    );
    expect(errorOf({ JWT_ACCESS_SECRET_PREVIOUS_UNTIL: FUTURE })).toBe(
      'Invalid configuration: JWT_ACCESS_SECRET_PREVIOUS_UNTIL is set without JWT_ACCESS_SECRET_PREVIOUS',
    );
    for (const until of ['31/12/2030', '2030-12-31T10:00:00', 'tomorrow', '2030-02-30'])
      expect(
        errorOf({
          ENCRYPTION_KEY: 'ff'.repeat(32),
          ENCRYPTION_KEY_PREVIOUS: TEST_ENV.ENCRYPTION_KEY,
          ENCRYPTION_KEY_PREVIOUS_UNTIL: until,
        }),
      ).toBe(
        `Invalid configuration: ENCRYPTION_KEY_PREVIOUS_UNTIL must be a date (2026-12-31, meaning 00:00 UTC) or a date and time with its zone (2026-12-31T12:00:00Z) (got "${until}")`,
      );
    expect(errorOf({ ENCRYPTION_KEY_PREVIOUS: 'short', ENCRYPTION_KEY_PREVIOUS_UNTIL: FUTURE })).toBe(
      'Invalid configuration: ENCRYPTION_KEY_PREVIOUS must be 32 bytes: 32 characters, 64 hex digits or base64 of 32 bytes',
    );
    expect(errorOf({ JWT_REFRESH_SECRET_PREVIOUS: 'short', JWT_REFRESH_SECRET_PREVIOUS_UNTIL: FUTURE })).toBe(
      'Invalid configuration: JWT_REFRESH_SECRET_PREVIOUS must be at least 32 characters',
    );
    expect(errorOf({ JWT_ACCESS_SECRET_PREVIOUS: TEST_ENV.JWT_ACCESS_SECRET, JWT_ACCESS_SECRET_PREVIOUS_UNTIL: FUTURE })).toBe(
      'Invalid configuration: JWT_ACCESS_SECRET_PREVIOUS is the same as JWT_ACCESS_SECRET: set JWT_ACCESS_SECRET to the new value',
    );
    expect(errorOf({ IDP_COOKIE_PASSWORD_PREVIOUS: 'd'.repeat(40), IDP_COOKIE_PASSWORD_PREVIOUS_UNTIL: FUTURE })).toBe(
      'Invalid configuration: IDP_COOKIE_PASSWORD_PREVIOUS is set but IDP_COOKIE_PASSWORD is not: set IDP_COOKIE_PASSWORD to the new value',
    );
    expect(
      errorOf({
        NODE_ENV: 'production',
        SMTP_URL: 'smtp://127.0.0.1:25',
        SMS_WEBHOOK_URL: 'https://sms.example.test/send',
        JWT_ACCESS_SECRET: 'a'.repeat(40).replace(/^a{8}/, 'Q1w2E3r4'),
        JWT_ACCESS_SECRET_PREVIOUS: 'change-me-change-me-change-me-change-me',
        JWT_ACCESS_SECRET_PREVIOUS_UNTIL: FUTURE,
      }),
    ).toMatch(/JWT_ACCESS_SECRET_PREVIOUS holds a sample value/);
  });

  it('dates: a bare date is its 00:00 UTC; a date and time needs its zone', () => {
    expect(parseUntil('2030-06-01')).toEqual(new Date('2030-06-01T00:00:00Z'));
    expect(parseUntil('2030-06-01T08:30+02:00')).toEqual(new Date('2030-06-01T06:30:00Z'));
    expect(parseUntil('2030-06-01T08:30:00.250Z')).toEqual(new Date('2030-06-01T08:30:00.250Z'));
    expect(parseUntil('2030-06-01 08:30')).toBeNull();
  });
});

describe('reading with the previous keys', () => {
  const oldCipher = new IdCipherService(loadConfig(TEST_ENV));
  const rotatedCipher = (env: Record<string, string>) => new IdCipherService(loadConfig({ ...TEST_ENV, ...env }));
  const keyOnly = (until: string) => ({
    ENCRYPTION_KEY: 'ff'.repeat(32),
    ENCRYPTION_KEY_PREVIOUS: TEST_ENV.ENCRYPTION_KEY,
    ENCRYPTION_KEY_PREVIOUS_UNTIL: until,
  });
  const ivOnly = (until: string) => ({
    ENCRYPTION_IV: 'ee'.repeat(16),
    ENCRYPTION_IV_PREVIOUS: TEST_ENV.ENCRYPTION_IV,
    ENCRYPTION_IV_PREVIOUS_UNTIL: until,
  });

  it('tokens sealed with the old key (reset links, userId tokens) open until the date, new ones use the new key', () => {
    const token = oldCipher.seal('reset', '{"u":1}');
    const during = rotatedCipher(keyOnly(FUTURE));
    expect(during.open('reset', token)).toBe('{"u":1}');
    expect(during.open('other', token)).toBeNull();
    expect(oldCipher.open('reset', during.seal('reset', '{"u":1}'))).toBeNull();
    expect(rotatedCipher(keyOnly('2020-01-01')).open('reset', token)).toBeNull();
  });

  it('the legacy bracket form and the legacy app key follow a rotation of the key, of the iv, or of both', () => {
    const iv = Buffer.alloc(16, 3);
    const cipher = createCipheriv('aes-256-cbc', Buffer.from(TEST_ENV.ENCRYPTION_KEY, 'hex'), iv);
    const bracket = `[${iv.toString('hex')}:${Buffer.concat([cipher.update('42'), cipher.final()]).toString('hex')}]`;
    expect(rotatedCipher(keyOnly(FUTURE)).decryptId(7, bracket)).toBe(42);
    expect(rotatedCipher(keyOnly('2020-01-01')).decryptId(7, bracket)).not.toBe(42);

    const appKey = oldCipher.legacyAppKey(7);
    for (const env of [keyOnly(FUTURE), ivOnly(FUTURE), { ...keyOnly(FUTURE), ...ivOnly(FUTURE) }]) {
      const during = rotatedCipher(env);
      expect(during.decryptAppKey(appKey)).toBe(7);
      expect(during.legacyAppKey(7)).not.toBe(appKey);
    }
    expect(rotatedCipher({ ...keyOnly('2020-01-01'), ...ivOnly('2020-01-01') }).decryptAppKey(appKey)).toBeNull();
  });

  it('the IdP cookie and states sealed with the old IDP_COOKIE_PASSWORD open until the date', () => {
    const oldPassword = 'old-cookie-password-0123456789abcdef0123';
    const now = Date.now();
    const sealed = new IdpSealer(oldPassword).seal('idp-app-ctx', { app: 7 }, 600, now);
    const until = new Date(now + 60_000);
    const during = new IdpSealer('new-cookie-password-0123456789abcdef0123', { value: oldPassword, until });
    expect(during.open('idp-app-ctx', sealed, now)).toMatchObject({ app: 7 });
    expect(during.open('idp-state', sealed, now)).toBeNull();
    expect(during.open('idp-app-ctx', sealed, until.getTime())).toBeNull();
    expect(new IdpSealer(oldPassword).open('idp-app-ctx', during.seal('idp-app-ctx', { app: 7 }, 600, now), now)).toBeNull();
  });
});
