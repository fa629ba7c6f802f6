/** Fixed test secrets, so encrypted values are reproducible. */
export const TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  JWT_ACCESS_SECRET: 'test-access-secret-0123456789abcdef0123456789',
  JWT_REFRESH_SECRET: 'test-refresh-secret-0123456789abcdef012345678',
  ENCRYPTION_KEY: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  ENCRYPTION_IV: 'f0e0d0c0b0a090807060504030201000',
  RATE_LIMIT_WINDOW_MS: '60000',
  RATE_LIMIT_MAX_REQUESTS: '100000',
  // Tests send many notifications to one address without an admin's bearer; test/messaging/notification-caps.e2e.ts sets the caps.
  NOTIFY_ANON_PER_RECIPIENT: '0',
  NOTIFY_ANON_PER_TEMPLATE: '0',
  BCRYPT_COST: '10',
  LOG_LEVEL: 'silent',
  // Tests change core_sites with SQL and send the next request at once, before the change notification can
  // reach the cache; test/app-context/site-cache.e2e.ts turns it on.
  SITE_CACHE_MS: '0',
  // Production-mode test apps keep what tests rely on: mail and SMS files when no peer is given, and /docs
  // (test/foundation/production-defaults.e2e.ts checks the production defaults themselves).
  MAIL_TO_FILES: 'true',
  SMS_TO_FILES: 'true',
  DOCS_ENABLED: 'true',
};
