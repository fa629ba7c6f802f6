import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSecrets } from '../../src/cli/secrets';
import { loadConfig } from '../../src/config/app-config';

// Docker does not run where the tests run: the compose files are checked by reading them. js-yaml is
// @nestjs/swagger's own dependency (always installed with it); its YAML 1.1 schema merges `<<: *service` as compose does.
const yaml = require('js-yaml') as { load(text: string, options: { schema: unknown }): unknown; YAML11_SCHEMA: unknown };

const ROOT = join(__dirname, '..', '..');
type Compose = { services: Record<string, { environment?: Record<string, string>; image?: string }> };
const compose = (file: string) => yaml.load(readFileSync(join(ROOT, file), 'utf8'), { schema: yaml.YAML11_SCHEMA }) as Compose;
const serviceInstances = (file: string) =>
  Object.entries(compose(file).services).filter(([, service]) => service.image?.startsWith('platform-service'));

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?message}` from `env` (a .env file). */
function interpolate(value: string, env: Record<string, string>): string {
  return String(value).replace(/\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g, (_all, name: string, kind?: string, rest?: string) => {
    if (env[name]) return env[name];
    if (kind === '?') throw new Error(`compose would stop: ${rest}`);
    return kind === '-' ? (rest ?? '') : '';
  });
}

/** Every variable production requires, from the configuration's own messages (SSO on, for IDP_COOKIE_PASSWORD). */
function requiredInProduction(): string[] {
  try {
    loadConfig({
      NODE_ENV: 'production',
      IDP_CLIENT_ID: 'x',
      IDP_ISSUER_URL: 'https://idp.example',
      IDP_REDIRECT_URI: 'https://svc.example',
    });
  } catch (error) {
    return [...(error as Error).message.matchAll(/([A-Z][A-Z0-9_]+) is required in production/g)].map((m) => m[1]);
  }
  throw new Error('an empty production configuration was accepted');
}

describe('docker compose files', () => {
  const required = requiredInProduction();
  const dotEnv: Record<string, string> = {
    ...generateSecrets(),
    POSTGRES_PASSWORD: 'a1b2c3d4e5f6a1b2c3d4e5f6',
    METRICS_TOKEN: 'm'.repeat(40),
  };
  const production: Record<string, string> = {
    ...dotEnv,
    DATABASE_URL: 'postgresql://platform:pw@db.internal:5432/platform',
    REDIS_URL: 'redis://redis.internal:6379',
    SMTP_URL: 'smtp://smtp.internal:587',
    SMS_WEBHOOK_URL: 'https://sms.internal/send',
  };

  it('the configuration requires these in production', () => {
    expect(required).toEqual(
      expect.arrayContaining([
        'JWT_ACCESS_SECRET',
        'JWT_REFRESH_SECRET',
        'ENCRYPTION_KEY',
        'ENCRYPTION_IV',
        'SMTP_URL',
        'SMS_WEBHOOK_URL',
        'IDP_COOKIE_PASSWORD',
      ]),
    );
  });

  it.each([
    ['docker-compose.yml', dotEnv],
    ['docker-compose.production.yml', production],
  ])(
    '%s passes every variable production requires (or its file opt-in) and every secret secrets:generate makes, from .env',
    (file, env) => {
      const instances = serviceInstances(file);
      expect(instances.map(([name]) => name)).toEqual(['service-1', 'service-2']);
      for (const [, service] of instances) {
        const environment = service.environment!;
        for (const name of required) {
          const optIn = { SMTP_URL: 'MAIL_TO_FILES', SMS_WEBHOOK_URL: 'SMS_TO_FILES' }[name as string];
          if (!(name in environment)) expect([name, optIn && environment[optIn]]).toEqual([name, 'true']);
        }
        for (const name of Object.keys(generateSecrets())) {
          expect(environment[name]).toMatch(new RegExp(`^\\$\\{${name}:\\?`)); // from .env, and compose stops without it
        }
        // What compose would give the instance starts in production.
        const resolved = Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, interpolate(value, env)]));
        expect(resolved.NODE_ENV).toBe('production');
        expect(() => loadConfig(resolved)).not.toThrow();
        expect(resolved.JWT_ACCESS_SECRET).toBe(env.JWT_ACCESS_SECRET);
        expect(resolved.VAPID_PRIVATE_KEY).toBe(env.VAPID_PRIVATE_KEY);
      }
    },
  );

  it('the trying file takes the database password from .env, and says it is for trying', () => {
    const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(text).toMatch(/FOR TRYING IT, NOT FOR PRODUCTION/);
    expect(text).toMatch(/docker-compose\.production\.yml/);
    const { services } = compose('docker-compose.yml');
    expect(services.postgres.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    for (const [, service] of serviceInstances('docker-compose.yml')) {
      const url = new URL(interpolate(service.environment!.DATABASE_URL, dotEnv));
      expect(url.password).toBe(dotEnv.POSTGRES_PASSWORD);
    }
    expect(() => interpolate(services.postgres.environment!.POSTGRES_PASSWORD, {})).toThrow(/set POSTGRES_PASSWORD in \.env/);
  });

  it('the production example holds no value of its own for a secret or the database', () => {
    for (const [, service] of serviceInstances('docker-compose.production.yml'))
      for (const name of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'SMS_WEBHOOK_URL', 'METRICS_TOKEN', ...Object.keys(generateSecrets())])
        expect([name, service.environment![name]]).toEqual([name, expect.stringMatching(new RegExp(`^\\$\\{${name}:\\?`))]);
  });
});
