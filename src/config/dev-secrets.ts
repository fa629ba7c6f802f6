import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DEV_SECRETS: Record<string, () => string> = {
  JWT_ACCESS_SECRET: () => randomBytes(32).toString('hex'),
  JWT_REFRESH_SECRET: () => randomBytes(32).toString('hex'),
  ENCRYPTION_KEY: () => randomBytes(32).toString('hex'),
  ENCRYPTION_IV: () => randomBytes(16).toString('hex'),
};

/**
 * Outside production, secrets that are not set come from DATA_DIR/dev-secrets.json, generated on first use,
 * so that the server and the CLI agree and tokens and encrypted ids survive a restart. Production never
 * reads this file: there, a missing secret stops the start.
 */
export function withDevSecrets(env: Record<string, string | undefined>): Record<string, string | undefined> {
  if (env.NODE_ENV === 'production') return env;
  const missing = Object.keys(DEV_SECRETS).filter((name) => !env[name]?.trim());
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
