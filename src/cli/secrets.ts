import { randomBytes } from 'node:crypto';

/**
 * Fresh values for every secret the service reads (config/app-config.ts), in the formats it accepts:
 * JWT_ACCESS_SECRET and JWT_REFRESH_SECRET (32+ characters, different: 32 random bytes as hex each),
 * ENCRYPTION_KEY (32 bytes as 64 hex digits), ENCRYPTION_IV (16 bytes as 32 hex digits), IDP_COOKIE_PASSWORD
 * (32+ characters) and a web-push key pair from web-push's own generateVAPIDKeys (base64url). Nothing is
 * stored: `npm run -s cli -- secrets:generate >> .env`.
 */
export function generateSecrets(): Record<string, string> {
  // Loaded here, not at the top: only this command needs it.
  const webpush = require('web-push') as typeof import('web-push');
  const vapid = webpush.generateVAPIDKeys();
  return {
    JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ENCRYPTION_IV: randomBytes(16).toString('hex'),
    IDP_COOKIE_PASSWORD: randomBytes(32).toString('hex'),
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
  };
}

/** `NAME=value` lines, as a .env file takes them (the values need no quoting: hex and base64url). */
export function envLines(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([name, value]) => `${name}=${value}`)
    .join('\n');
}
