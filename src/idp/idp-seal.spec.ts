import { IdpSealer } from './idp-seal';

const PASSWORD = 'a-real-cookie-password-0123456789abcdef';

describe('IdpSealer (state, cookie and logout state)', () => {
  const sealer = new IdpSealer(PASSWORD);
  const now = Date.UTC(2026, 0, 1);

  it('opens what it sealed for the same purpose until it expires', () => {
    const sealed = sealer.seal('idp-state', { app: 7, cs: 'é "x"' }, 600, now);
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(sealer.open('idp-state', sealed, now + 599_000)).toMatchObject({ app: 7, cs: 'é "x"' });
    expect(sealer.open('idp-state', sealed, now + 600_000)).toBeNull();
    expect(sealer.inspect('idp-state', sealed, now + 601_000)).toMatchObject({ status: 'expired', payload: { app: 7 } });
  });

  it('refuses another purpose, another password, any altered byte, and non-values', () => {
    const sealed = sealer.seal('idp-state', { app: 7 }, 600, now);
    expect(sealer.open('idp-logout', sealed, now)).toBeNull();
    expect(new IdpSealer('another-password-of-32-characters-at-least').open('idp-state', sealed, now)).toBeNull();
    const raw = Buffer.from(sealed, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw);
      altered[i] ^= 1;
      expect(sealer.open('idp-state', altered.toString('base64url'), now)).toBeNull();
    }
    for (const value of [undefined, null, 7, '', 'not base64!', 'A'.repeat(5000), sealed.slice(0, 20)])
      expect(sealer.open('idp-state', value, now)).toBeNull();
  });

  it('seals the same payload differently each time (random nonce)', () => {
    expect(sealer.seal('idp-app-ctx', { app: 1 }, 60, now)).not.toBe(sealer.seal('idp-app-ctx', { app: 1 }, 60, now));
  });
});
