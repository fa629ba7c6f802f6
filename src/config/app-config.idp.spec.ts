import { ConfigError, idpRelayUri, loadConfig } from './app-config';

const PASSWORD = 'a-real-cookie-password-0123456789abcdef';
const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_ACCESS_SECRET: 'a'.repeat(8) + 'Zq3#kP9v2LmN8xR4tY6uW1eS5dF7gH0j',
  JWT_REFRESH_SECRET: 'b'.repeat(8) + 'Zq3#kP9v2LmN8xR4tY6uW1eS5dF7gH0j',
  ENCRYPTION_KEY: 'c4f1a9e2b7d36085f1e2d3c4b5a6978812345678abcdef0123456789abcdef01',
  ENCRYPTION_IV: '9a8b7c6d5e4f30211203f4e5d6c7b8a9',
  SMTP_URL: 'smtps://mailer:pw@smtp.example.test:465',
  SMS_WEBHOOK_URL: 'https://sms.example.test/send',
};
const SSO = {
  IDP_CLIENT_ID: 'client',
  IDP_ISSUER_URL: 'https://idp.example.test',
  IDP_REDIRECT_URI: 'https://api.example.test',
  IDP_COOKIE_PASSWORD: PASSWORD,
};

function errorOf(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('loadConfig accepted the configuration');
}

describe('IdP configuration', () => {
  it('appends the relay path to IDP_REDIRECT_URI when missing', () => {
    expect(idpRelayUri('https://api.example.test')).toBe('https://api.example.test/auth/oauth/idp/redirect');
    expect(idpRelayUri('https://api.example.test/')).toBe('https://api.example.test/auth/oauth/idp/redirect');
    expect(idpRelayUri('https://example.test/api/v2/')).toBe('https://example.test/api/v2/auth/oauth/idp/redirect');
    expect(idpRelayUri('https://api.example.test/auth/oauth/idp/redirect')).toBe('https://api.example.test/auth/oauth/idp/redirect');
    expect(idpRelayUri('https://api.example.test/auth/oauth/idp/callback')).toBe('https://api.example.test/auth/oauth/idp/callback');
    const config = loadConfig({ ...PRODUCTION, ...SSO });
    expect(config.idp.redirectUri).toBe('https://api.example.test/auth/oauth/idp/redirect');
    expect(config.idp.redirectUriSetting).toBe('https://api.example.test');
  });

  it('defaults: core_customers only, client_secret_basic, SSO off without IDP_CLIENT_ID', () => {
    const config = loadConfig({});
    expect(config.idp.allowedAuthTables).toEqual(['core_customers']);
    expect(config.idp.tokenAuthMethod).toBe('client_secret_basic');
    expect(config.idp.clientId).toBeNull();
    expect(config.idp.cookiePassword).toBeNull();
    expect(loadConfig({ IDP_ALLOWED_AUTH_TABLES: ' core_customers , core_users ' }).idp.allowedAuthTables).toEqual([
      'core_customers',
      'core_users',
    ]);
  });

  it('refuses an IDP_COOKIE_PASSWORD under 32 characters, and a sample one in production', () => {
    expect(errorOf({ IDP_COOKIE_PASSWORD: 'x'.repeat(31) })).toMatch(/IDP_COOKIE_PASSWORD must be at least 32 characters/);
    expect(loadConfig({ IDP_COOKIE_PASSWORD: 'x'.repeat(32) }).idp.cookiePassword).toBe('x'.repeat(32));
    expect(errorOf({ ...PRODUCTION, ...SSO, IDP_COOKIE_PASSWORD: 'change-me-change-me-change-me-change-me' })).toMatch(
      /IDP_COOKIE_PASSWORD holds a sample value/,
    );
  });

  it('with IDP_CLIENT_ID: issuer and redirect URI are required; the cookie password too in production, generated with a warning outside it', () => {
    const message = errorOf({ IDP_CLIENT_ID: 'client' });
    expect(message).toMatch(/IDP_ISSUER_URL is required when IDP_CLIENT_ID is set/);
    expect(message).toMatch(/IDP_REDIRECT_URI is required when IDP_CLIENT_ID is set/);
    expect(errorOf({ ...PRODUCTION, ...SSO, IDP_COOKIE_PASSWORD: undefined })).toMatch(
      /IDP_COOKIE_PASSWORD is required in production when IDP_CLIENT_ID is set/,
    );
    const dev = loadConfig({ ...SSO, IDP_COOKIE_PASSWORD: undefined });
    expect(dev.idp.cookiePassword).toHaveLength(64);
    expect(dev.warnings.join(' ')).toMatch(/IDP_COOKIE_PASSWORD/);
  });

  it('refuses plain http in production, a redirect URI with a query, an unknown token auth method', () => {
    expect(errorOf({ ...PRODUCTION, ...SSO, IDP_ISSUER_URL: 'http://idp.example.test' })).toMatch(
      /IDP_ISSUER_URL must be an https URL in production/,
    );
    expect(errorOf({ ...PRODUCTION, ...SSO, IDP_REDIRECT_URI: 'http://api.example.test' })).toMatch(
      /IDP_REDIRECT_URI must be an https URL in production/,
    );
    expect(loadConfig({ ...SSO, IDP_ISSUER_URL: 'http://127.0.0.1:8080' }).idp.issuerUrl).toBe('http://127.0.0.1:8080');
    expect(errorOf({ ...SSO, IDP_REDIRECT_URI: 'https://api.example.test/?x=1' })).toMatch(
      /IDP_REDIRECT_URI must have no query, fragment or user info/,
    );
    expect(errorOf({ ...SSO, IDP_ISSUER_URL: 'ftp://idp.example.test' })).toMatch(
      /IDP_ISSUER_URL must be a URL with protocol http: or https:/,
    );
    expect(errorOf({ IDP_TOKEN_AUTH_METHOD: 'private_key_jwt' })).toMatch(
      /IDP_TOKEN_AUTH_METHOD must be client_secret_basic or client_secret_post/,
    );
  });
});
