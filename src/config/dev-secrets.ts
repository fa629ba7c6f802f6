import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, configErrorMessage } from './app-config';

const DEV_SECRETS: Record<string, () => string> = {
  JWT_ACCESS_SECRET: () => randomBytes(32).toString('hex'),
  JWT_REFRESH_SECRET: () => randomBytes(32).toString('hex'),
  ENCRYPTION_KEY: () => randomBytes(32).toString('hex'),
  ENCRYPTION_IV: () => randomBytes(16).toString('hex'),
};

/**
 * Outside production, secrets that are not set come from DATA_DIR/dev-secrets.json, generated on first use,
 * so that the server and the CLI agree and tokens and encrypted ids survive a restart. Only for the embedded
 * database: with DATABASE_URL set, the CLI and the server (both call this) may run in different places with
 * different DATA_DIRs and would each mint ids and app keys the other rejects, so a missing secret is refused
 * there with one line naming it (IDP_COOKIE_PASSWORD too when SSO is on: a per-process value breaks SSO on
 * a second instance). Production never reads this file: there, a missing secret stops the start.
 */
export function withDevSecrets(env: Record<string, string | undefined>): Record<string, string | undefined> {
  if (env.NODE_ENV === 'production') return env;
  const missing = Object.keys(DEV_SECRETS).filter((name) => !env[name]?.trim());
  if (env.DATABASE_URL?.trim()) {
    const required = env.IDP_CLIENT_ID?.trim() && !env.IDP_COOKIE_PASSWORD?.trim() ? [...missing, 'IDP_COOKIE_PASSWORD'] : missing;
    if (required.length > 0) throw new ConfigError(configErrorMessage([databaseSecretsMessage(required)]));
    return env;
  }
  if (missing.length === 0) return env;

  const dir = env.DATA_DIR?.trim() || './.data';
  const file = join(dir, 'dev-secrets.json');
  let stored: Record<string, string> = {};
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // first start: generated below
  }
  const added = missing.filter((name) => typeof stored[name] !== 'string');
  for (const name of added) stored[name] = DEV_SECRETS[name]();
  if (added.length) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  }
  const merged = { ...env };
  for (const name of missing) merged[name] = stored[name];
  merged.DEV_SECRETS_FILE = file;
  return merged;
}

function databaseSecretsMessage(names: string[]): string {
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  return (
    `DATABASE_URL is set, so ${list} must be set too (the same values for every instance and the CLI): ` +
    'development secrets (DATA_DIR/dev-secrets.json) are only for the embedded database; ' +
    '`npm run -s cli -- secrets:generate` prints a set'
  );
}
