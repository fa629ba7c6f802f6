import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './app-config';
import { withDevSecrets } from './dev-secrets';

const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_ACCESS_SECRET: 'a'.repeat(8) + 'Zq3#kP9v2LmN8xR4tY6uW1eS5dF7gH0j',
  JWT_REFRESH_SECRET: 'b'.repeat(8) + 'Zq3#kP9v2LmN8xR4tY6uW1eS5dF7gH0j',
  ENCRYPTION_KEY: 'c4f1a9e2b7d36085f1e2d3c4b5a6978812345678abcdef0123456789abcdef01',
  ENCRYPTION_IV: '9a8b7c6d5e4f30211203f4e5d6c7b8a9',
  SMTP_URL: 'smtps://mailer:pw@smtp.example.test:465',
  SMS_WEBHOOK_URL: 'https://sms.example.test/send',
};

describe('configuration', () => {
  it('loads a complete production configuration with the /api/v2 base path', () => {
    const config = loadConfig(PRODUCTION);
    expect(config.production).toBe(true);
    expect(config.basePath).toBe('/api/v2');
    expect(config.encryption.key).toHaveLength(32);
    expect(config.encryption.iv).toHaveLength(16);
    expect(config.rateLimit).toEqual({ windowMs: 900000, maxRequests: 100 });
    expect(config.jwt.accessTtlSeconds).toBe(3600);
    expect(config.jwt.refreshTtlSeconds).toBe(2592000);
  });

  it.each(['JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET', 'ENCRYPTION_KEY', 'ENCRYPTION_IV'])(
    'refuses to start in production without %s, naming it',
    (name) => {
      const env: Record<string, string | undefined> = { ...PRODUCTION, [name]: undefined };
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(new RegExp(`${name} is required in production`));
    },
  );

  it.each([
    ['JWT_ACCESS_SECRET', 'change-me-change-me-change-me-change-me'],
    ['JWT_REFRESH_SECRET', 'sample-refresh-secret-for-the-readme-000'],
    ['ENCRYPTION_KEY', 'change-me-0000000000000000000000'],
  ])('refuses a sample value of %s in production', (name, value) => {
    expect(() => loadConfig({ ...PRODUCTION, [name]: value })).toThrow(new RegExp(`${name} holds a sample value`));
  });

  it('generates development secrets with one warning outside production', () => {
    const config = loadConfig({});
    expect(config.production).toBe(false);
    expect(config.basePath).toBe('');
    expect(config.jwt.accessSecret).toHaveLength(64);
    expect(config.jwt.accessSecret).not.toBe(config.jwt.refreshSecret);
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toMatch(/JWT_ACCESS_SECRET, JWT_REFRESH_SECRET, ENCRYPTION_KEY, ENCRYPTION_IV/);
  });

  it('says what is wrong in one line', () => {
    expect(() => loadConfig({ ...PRODUCTION, JWT_ACCESS_SECRET: undefined, PORT: 'eighty' })).toThrow(
      /^Invalid configuration: PORT must be an integer between 0 and 65535 \(got "eighty"\); JWT_ACCESS_SECRET is required in production$/,
    );
  });

  it('names every invalid variable', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'eighty', RATE_LIMIT_MAX_REQUESTS: '0', ENCRYPTION_KEY: 'short', DATABASE_URL: 'mysql://x', BCRYPT_COST: '4' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/PORT must be an integer/);
    expect(message).toMatch(/RATE_LIMIT_MAX_REQUESTS must be an integer between 1/);
    expect(message).toMatch(/ENCRYPTION_KEY must be 32 bytes/);
    expect(message).toMatch(/DATABASE_URL must be a URL/);
    expect(message).toMatch(/BCRYPT_COST must be an integer between 10 and 15/);
  });

  it('accepts keys as hex, base64 or 32/16 raw characters', () => {
    const hex = loadConfig({ ENCRYPTION_KEY: '00'.repeat(32), ENCRYPTION_IV: '11'.repeat(16) });
    const raw = loadConfig({ ENCRYPTION_KEY: 'k'.repeat(32), ENCRYPTION_IV: 'v'.repeat(16) });
    const b64 = loadConfig({
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      ENCRYPTION_IV: Buffer.alloc(16, 9).toString('base64'),
    });
    expect(hex.encryption.key.equals(Buffer.alloc(32, 0))).toBe(true);
    expect(raw.encryption.iv.toString()).toBe('v'.repeat(16));
    expect(b64.encryption.key.equals(Buffer.alloc(32, 7))).toBe(true);
  });
});

describe('development secrets file', () => {
  it('generates missing secrets once in DATA_DIR and reuses them, so the CLI and the server agree across restarts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dev-secrets-'));
    const first = loadConfig(withDevSecrets({ DATA_DIR: dir }));
    const second = loadConfig(withDevSecrets({ DATA_DIR: dir }));
    expect(second.encryption.key.equals(first.encryption.key)).toBe(true);
    expect(second.jwt.accessSecret).toBe(first.jwt.accessSecret);
    expect(first.warnings).toEqual([expect.stringMatching(/Development secrets from .*dev-secrets\.json/)]);
    expect(statSync(join(dir, 'dev-secrets.json')).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'))).sort()).toEqual([
      'ENCRYPTION_IV',
      'ENCRYPTION_KEY',
      'JWT_ACCESS_SECRET',
      'JWT_REFRESH_SECRET',
    ]);
  });

  it('keeps secrets that are set, and never applies in production', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dev-secrets-'));
    const env = withDevSecrets({ DATA_DIR: dir, JWT_ACCESS_SECRET: 'x'.repeat(40) });
    expect(env.JWT_ACCESS_SECRET).toBe('x'.repeat(40));
    expect(withDevSecrets({ ...PRODUCTION, JWT_ACCESS_SECRET: undefined, DATA_DIR: dir }).JWT_ACCESS_SECRET).toBeUndefined();
  });
});

describe('configuration: fair shares and timeouts', () => {
  it('keeps a fifth of the pool as headroom and a fifth for authenticated requests, and a headers timeout within the request timeout by default', () => {
    expect(loadConfig({}).database).toEqual({
      poolSize: 10,
      statementTimeoutMs: 5000,
      tenantMaxConnections: 10,
      tenantHeadroom: 2,
      priorityConnections: 2,
      tenantQueue: 100,
      tenantQueueWaitMs: 5000,
      preparedStatements: 'auto',
    });
    expect(loadConfig({ DB_POOL_SIZE: '3' }).database).toMatchObject({
      tenantMaxConnections: 3,
      tenantHeadroom: 1,
      priorityConnections: 1,
    });
    expect(loadConfig({ DB_POOL_SIZE: '2' }).database).toMatchObject({ tenantHeadroom: 0, priorityConnections: 0 });
    expect(loadConfig({ DB_POOL_SIZE: '1' }).database).toMatchObject({ tenantHeadroom: 0, priorityConnections: 0 });
    expect(loadConfig({ DB_PREPARED_STATEMENTS: 'false' }).database.preparedStatements).toBe(false);
    expect(loadConfig({ DB_PREPARED_STATEMENTS: 'true' }).database.preparedStatements).toBe(true);
    expect(loadConfig({ DB_PREPARED_STATEMENTS: 'AUTO' }).database.preparedStatements).toBe('auto');
    expect(() => loadConfig({ DB_PREPARED_STATEMENTS: 'sometimes' })).toThrow(/DB_PREPARED_STATEMENTS must be auto, true or false/);
    expect(loadConfig({}).http).toEqual({ requestTimeoutMs: 30000, headersTimeoutMs: 10000, keepAliveTimeoutMs: 72000 });
    expect(loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '2000' }).http.headersTimeoutMs).toBe(2000);
  });

  it('takes DATABASE_DIRECT_URL for what needs a session, DATABASE_URL when unset, and refuses it alone or malformed', () => {
    const pooled = 'postgresql://app@pooler:6432/platform';
    const direct = 'postgresql://app@primary:5432/platform';
    expect(loadConfig({ DATABASE_URL: pooled })).toMatchObject({ databaseUrl: pooled, databaseDirectUrl: pooled });
    expect(loadConfig({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct })).toMatchObject({
      databaseUrl: pooled,
      databaseDirectUrl: direct,
    });
    expect(loadConfig({})).toMatchObject({ databaseUrl: null, databaseDirectUrl: null });
    expect(() => loadConfig({ DATABASE_DIRECT_URL: direct })).toThrow(/DATABASE_DIRECT_URL needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: 'mysql://x' })).toThrow(/DATABASE_DIRECT_URL must be a URL/);
  });

  it('takes DATABASE_REPLICA_URLS comma-separated, none by default, and refuses a malformed entry or replicas alone', () => {
    const primary = 'postgresql://app@primary:5432/platform';
    const [a, b] = ['postgresql://app@replica-a:5432/platform', 'postgres://app:pw@replica-b:5432/platform'];
    expect(loadConfig({ DATABASE_URL: primary }).replicas).toEqual({ urls: [], maxLagMs: 1000, poolSize: 3 });
    expect(loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: ` ${a}, ${b} ,` }).replicas.urls).toEqual([a, b]);
    expect(loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_MAX_LAG_MS: '250', DB_REPLICA_POOL_SIZE: '2' }).replicas).toMatchObject({
      maxLagMs: 250,
      poolSize: 2,
    });
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URLS: `${a},mysql://x` })).toThrow(
      /DATABASE_REPLICA_URLS: every entry must be a URL with protocol postgres: or postgresql: \(entry 2 is not\)/,
    );
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: a })).toThrow(/DATABASE_REPLICA_URLS needs DATABASE_URL/);
  });

  it('refuses a tenant share larger than the pool and a headers timeout longer than the request timeout', () => {
    expect(() => loadConfig({ DB_POOL_SIZE: '4', DB_TENANT_MAX_CONNECTIONS: '5' })).toThrow(
      /DB_TENANT_MAX_CONNECTIONS must be an integer between 1 and 4/,
    );
    expect(() => loadConfig({ DB_POOL_SIZE: '4', DB_TENANT_HEADROOM: '4' })).toThrow(
      /DB_TENANT_HEADROOM must be an integer between 0 and 3/,
    );
    expect(() => loadConfig({ DB_POOL_SIZE: '4', DB_PRIORITY_CONNECTIONS: '4' })).toThrow(
      /DB_PRIORITY_CONNECTIONS must be an integer between 0 and 3/,
    );
    expect(() => loadConfig({ DB_POOL_SIZE: '4', DB_TENANT_HEADROOM: '2', DB_PRIORITY_CONNECTIONS: '2' })).toThrow(
      /must leave anonymous requests at least one/,
    );
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '6000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS must be an integer between 1000 and 5000/,
    );
  });
});

describe('configuration: safe by default in production', () => {
  const errorOf = (env: Record<string, string | undefined>): string => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('loadConfig accepted the configuration');
  };

  it('refuses to start in production without SMTP_URL, naming it, unless MAIL_TO_FILES accepts the files (with a warning)', () => {
    expect(errorOf({ ...PRODUCTION, SMTP_URL: undefined })).toMatch(
      /^Invalid configuration: SMTP_URL is required in production .*MAIL_TO_FILES=true/,
    );
    expect(errorOf({ ...PRODUCTION, SMTP_URL: undefined })).not.toMatch(/\n/);
    const accepted = loadConfig({ ...PRODUCTION, SMTP_URL: undefined, MAIL_TO_FILES: 'true', DATA_DIR: '/var/lib/platform' });
    expect(accepted.smtpUrl).toBeNull();
    expect(accepted.warnings).toEqual([
      expect.stringMatching(
        /^Production instance writes mail as \.eml files in \/var\/lib\/platform\/outbox \(MAIL_TO_FILES=true\): nothing of it is sent$/,
      ),
    ]);
    expect(() => loadConfig({ ...PRODUCTION, MAIL_TO_FILES: 'maybe' })).toThrow(/MAIL_TO_FILES must be true or false/);
  });

  it('refuses to start in production without SMS_WEBHOOK_URL, naming it, unless SMS_TO_FILES accepts the files (with a warning)', () => {
    expect(errorOf({ ...PRODUCTION, SMS_WEBHOOK_URL: undefined })).toMatch(
      /^Invalid configuration: SMS_WEBHOOK_URL is required in production .*SMS_TO_FILES=true/,
    );
    const accepted = loadConfig({ ...PRODUCTION, SMS_WEBHOOK_URL: undefined, SMS_TO_FILES: 'true', DATA_DIR: '/var/lib/platform' });
    expect(accepted.warnings).toEqual([expect.stringMatching(/SMS as files in \/var\/lib\/platform\/sms \(SMS_TO_FILES=true\)/)]);
    const both = errorOf({ ...PRODUCTION, SMTP_URL: undefined, SMS_WEBHOOK_URL: undefined });
    expect(both).toMatch(/SMTP_URL is required in production.*; SMS_WEBHOOK_URL is required in production/);
  });

  it('writes mail and SMS to files outside production without being asked (and without a warning)', () => {
    const config = loadConfig({
      JWT_ACCESS_SECRET: 'a'.repeat(40),
      JWT_REFRESH_SECRET: 'b'.repeat(40),
      ENCRYPTION_KEY: '1'.repeat(64),
      ENCRYPTION_IV: '2'.repeat(32),
    });
    expect([config.smtpUrl, config.smsWebhookUrl, config.warnings]).toEqual([null, null, []]);
  });

  it('serves /docs outside production, and in production only with DOCS_ENABLED=true', () => {
    expect(loadConfig({}).docsEnabled).toBe(true);
    expect(loadConfig({ DOCS_ENABLED: 'false' }).docsEnabled).toBe(false);
    expect(loadConfig(PRODUCTION).docsEnabled).toBe(false);
    expect(loadConfig({ ...PRODUCTION, DOCS_ENABLED: 'true' }).docsEnabled).toBe(true);
  });

  it("lets any origin read answers outside production by default, none in production but the apps' domains", () => {
    expect(loadConfig({}).cors).toEqual({ anyOrigin: true, origins: [], appDomains: true });
    expect(loadConfig(PRODUCTION).cors).toEqual({ anyOrigin: false, origins: [], appDomains: true });
    expect(loadConfig({ CORS_ORIGINS: 'http://localhost:5173' }).cors).toEqual({
      anyOrigin: false,
      origins: ['http://localhost:5173'],
      appDomains: true,
    });
    expect(loadConfig({ ...PRODUCTION, CORS_ORIGINS: '*', CORS_APP_DOMAINS: 'false' }).cors).toEqual({
      anyOrigin: true,
      origins: [],
      appDomains: false,
    });
  });

  it('reads CORS_ORIGINS as a list of origins, as browsers write them, and refuses anything else', () => {
    const config = loadConfig({
      ...PRODUCTION,
      CORS_ORIGINS: ' https://Shop.Example.com, https://admin.example.com:8443/ ,http://localhost:3001,https://x.example.com:443',
    });
    expect(config.cors.origins).toEqual([
      'https://shop.example.com',
      'https://admin.example.com:8443',
      'http://localhost:3001',
      'https://x.example.com',
    ]);
    const message = errorOf({
      ...PRODUCTION,
      CORS_ORIGINS: 'https://ok.example.com,shop.example.com,https://a.example.com/app,ftp://f.example.com',
    });
    expect(message).toMatch(/CORS_ORIGINS: "shop\.example\.com" is not an origin/);
    expect(message).toMatch(/CORS_ORIGINS: "https:\/\/a\.example\.com\/app" is not an origin/);
    expect(message).toMatch(/CORS_ORIGINS: "ftp:\/\/f\.example\.com" is not an origin/);
    expect(message).not.toMatch(/ok\.example\.com/);
  });
});
