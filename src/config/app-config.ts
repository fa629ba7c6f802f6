import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { browserOrigin } from './origin';
// The file, not '../auth': the list of user tables only (the auth module's index loads Nest modules).

/**
 * The whole typed configuration of the service. It is read from the environment once, at start,
 * by `loadConfig`, and handed to everything else through the APP_CONFIG provider: no other code
 * reads `process.env`.
 */
export interface AppConfig {
  production: boolean;
  port: number;
  host: string;
  /** `/api/v2` in production, none in development (API version V2; README "API conventions"). */
  basePath: string;
  databaseUrl: string | null;
  /**
   * The direct connection (DATABASE_DIRECT_URL, default DATABASE_URL; README "Running on PostgreSQL and Redis"):
   * what needs a session of its own, migrations and their lock, the listener (LISTEN) of the site cache and the
   * sender; the request, system and merge pools use DATABASE_URL, which may be a transaction-mode pooler.
   * Null without DATABASE_URL (the embedded database).
   */
  databaseDirectUrl: string | null;
  /**
   * Read replicas (README "Read replicas"): the URLs of streaming replicas of DATABASE_URL's database
   * (DATABASE_REPLICA_URLS, comma-separated; none: every read on the primary, nothing changes), the lag beyond which
   * a replica is skipped (DATABASE_REPLICA_MAX_LAG_MS), and the connections of each replica's pool
   * (DB_REPLICA_POOL_SIZE). Only lag-tolerant reads go there, with read-your-writes: src/database/replica-reads.ts.
   */
  replicas: { urls: string[]; maxLagMs: number; poolSize: number };
  dataDir: string;
  /**
   * The request pool and each tenant's share of it (README "Fair shares and timeouts"): its size
   * (DB_POOL_SIZE), the statement timeout of its connections (DB_STATEMENT_TIMEOUT_MS, 0 = none), the most
   * connections one tenant holds at once however few are active (DB_TENANT_MAX_CONNECTIONS, per instance and,
   * with REDIS_URL, across instances), the connections kept free for a tenant arriving while others are active
   * (DB_TENANT_HEADROOM: each active tenant's share is min(cap, max(1, floor((pool − headroom) / active)))),
   * those anonymous requests never take (DB_PRIORITY_CONNECTIONS, for authenticated ones), and how many of a
   * tenant's requests may wait for one (DB_TENANT_QUEUE) and how long (DB_TENANT_QUEUE_WAIT_MS); whether the hot
   * /getDataRows statements run as named prepared statements on its connections (DB_PREPARED_STATEMENTS: `auto`
   * decides at start, off when DATABASE_URL shares server connections between clients, i.e. a transaction-mode
   * pooler; src/database/pooler-probe.ts).
   */
  database: {
    poolSize: number;
    statementTimeoutMs: number;
    tenantMaxConnections: number;
    tenantHeadroom: number;
    priorityConnections: number;
    tenantQueue: number;
    tenantQueueWaitMs: number;
    preparedStatements: boolean | 'auto';
  };
  /**
   * Bounds on slow clients: the whole request (HTTP_REQUEST_TIMEOUT_MS) and its head (HTTP_HEADERS_TIMEOUT_MS)
   * must arrive within these, else 408; an idle keep-alive connection closes after HTTP_KEEP_ALIVE_TIMEOUT_MS.
   */
  http: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number };
  redisUrl: string | null;
  /** Prefix of every Redis key this deployment writes. */
  redisKeyPrefix: string;
  smtpUrl: string | null;
  smsWebhookUrl: string | null;
  smsWebhookToken: string | null;
  /**
   * Production without SMTP_URL (SMS_WEBHOOK_URL) refuses to start unless MAIL_TO_FILES (SMS_TO_FILES) says
   * the files in DATA_DIR/outbox (DATA_DIR/sms) are meant; outside production files are the default anyway.
   */
  mailToFiles: boolean;
  smsToFiles: boolean;
  /**
   * Which browser origins may read answers (README "Operations"): `anyOrigin` (CORS_ORIGINS `*`, or unset
   * outside production) reflects every origin; else the origins of CORS_ORIGINS and, with `appDomains`
   * (CORS_APP_DOMAINS), `https://<domain>` of every app in core_sites.
   */
  cors: { anyOrigin: boolean; origins: string[]; appDomains: boolean };
  /** Swagger UI and the OpenAPI document at /docs (DOCS_ENABLED; default on outside production only). */
  docsEnabled: boolean;
  paymentApiUrl: string | null;
  /**
   * The payment provider's events and the jobs that settle money (README "Payment events"): the system pool's
   * size (DB_SYSTEM_POOL_SIZE, connections no tenant's requests can take), how often the inbox worker looks for
   * events due again (PAYMENT_EVENTS_POLL_MS), how many tries an event gets before it is Failed
   * (PAYMENT_EVENTS_MAX_ATTEMPTS), and how long after its checkout an open payment intent is asked about at the
   * provider (PAYMENT_RECONCILE_AFTER_MS), by a tick every PAYMENT_RECONCILE_TICK_MS (0 = off).
   */
  payments: {
    systemPoolSize: number;
    eventsPollMs: number;
    eventsMaxAttempts: number;
    reconcileAfterMs: number;
    reconcileTickMs: number;
  };
  vapid: { publicKey: string | null; privateKey: string | null; subject: string | null };
  /** The notification sender and the SQL merge source (docs/messaging.md). */
  notifications: {
    senderEnabled: boolean;
    pollIntervalMs: number;
    batchSize: number;
    concurrency: number;
    maxAttempts: number;
    retryBaseMs: number;
    retryMaxMs: number;
    leaseMs: number;
    sqlTimeoutMs: number;
    /**
     * SQL merges: their own pool (NOTIFY_SQL_POOL_SIZE), merges at once per app (NOTIFY_SQL_PER_APP), waiting per app
     * (NOTIFY_SQL_QUEUE), longest wait (NOTIFY_SQL_QUEUE_WAIT_MS).
     */
    sqlPoolSize: number;
    sqlPerApp: number;
    sqlQueue: number;
    sqlQueueWaitMs: number;
    /**
     * Caps on /message/notification sends without an app admin's bearer (docs/messaging.md "Caps on sends"): mails
     * to one address (NOTIFY_ANON_PER_RECIPIENT) and of one template (NOTIFY_ANON_PER_TEMPLATE) per app and
     * window (NOTIFY_ANON_WINDOW_MS); 0 turns a cap off.
     */
    anonPerRecipient: number;
    anonPerTemplate: number;
    anonWindowMs: number;
  };
  /** Trust any TLS certificate of push services: tests only, refused in production (PUSH_INSECURE_TLS). */
  pushInsecureTls: boolean;
  jwt: { accessSecret: string; refreshSecret: string; accessTtlSeconds: number; refreshTtlSeconds: number };
  encryption: { key: Buffer; iv: Buffer };
  rateLimit: { windowMs: number; maxRequests: number };
  /** Proxy mode of tenant resolution: the app id from a setting, then the proxy's site-id, then x-original-host. */
  proxy: { enabled: boolean; appId: number | null };
  /**
   * How long a core_sites row read by the tenant resolution may be served from memory (SITE_CACHE_MS; 0 = never).
   * Changes reach every instance at once through PostgreSQL notifications; this bounds a missed one.
   */
  siteCacheMs: number;
  bodyLimitBytes: number;
  /** Most keys and array elements a JSON body may hold, all levels together (BODY_MAX_ITEMS). */
  bodyMaxItems: number;
  /** Trust X-Forwarded-For (behind a load balancer): the client address the rate limit counts. */
  trustProxy: boolean;
  bcryptCost: number;
  /**
   * Password auth: reset-link lifetime (RESET_TOKEN_LIFE, s); failed logins per 15 minutes on one account
   * from one client address (AUTH_LOGIN_MAX_PER_ACCOUNT) and from all addresses together
   * (AUTH_LOGIN_MAX_PER_ACCOUNT_ALL_ADDRESSES, default ten times the former).
   */
  auth: { resetTokenTtlSeconds: number; loginMaxPerAccount: number; loginMaxPerAccountAllAddresses: number };
  logLevel: string;
  /** Bearer token that GET /metrics requires (METRICS_TOKEN); null: /metrics answers without one. */
  metricsToken: string | null;
  /**
   * SSO through an OpenID Connect IdP (README "Single sign-on"). `redirectUri` is the relay URI registered at
   * the IdP: IDP_REDIRECT_URI with `/auth/oauth/idp/redirect` appended when missing (`redirectUriSetting` is
   * the variable as set). Discovery that failed is tried again at most every `discoveryRetryMs`; every call
   * to the IdP gives up after `timeoutMs`.
   */
  idp: {
    issuerUrl: string | null;
    clientId: string | null;
    apiKey: string | null;
    redirectUri: string | null;
    redirectUriSetting: string | null;
    cookiePassword: string | null;
    debug: boolean;
    allowedAuthTables: string[];
    /** How the client secret (IDP_API_KEY) is sent to the token endpoint (IDP_TOKEN_AUTH_METHOD). */
    tokenAuthMethod: 'client_secret_basic' | 'client_secret_post';
    discoveryRetryMs: number;
    timeoutMs: number;
  };
  /** Versioned content and /getDataRows: expiry job interval (0 = off), page and result size limits. */
  content: { expiryTickMs: number; maxPerPage: number; maxRows: number };
  /**
   * The staff console (README "Staff console"): its built files (CONSOLE_DIR, default console/dist of the
   * installation) and how long a console session may go without a refresh before it ends (CONSOLE_IDLE_MINUTES).
   */
  console: { distDir: string | null; idleMinutes: number };
  /**
   * Key rotation (docs/operations.md "Rotating keys"): the previous value of each secret that signs or encrypts,
   * `<NAME>_PREVIOUS`, still accepted for reading (verifying, decrypting) until `<NAME>_PREVIOUS_UNTIL`; what is
   * new is always made with the current value. Null when not rotating.
   */
  previousKeys: {
    jwtAccess: PreviousKey<string> | null;
    jwtRefresh: PreviousKey<string> | null;
    encryptionKey: PreviousKey<Buffer> | null;
    encryptionIv: PreviousKey<Buffer> | null;
    idpCookiePassword: PreviousKey<string> | null;
  };
  /** Warnings collected while loading (generated development secrets), logged once at start. */
  warnings: string[];
}

/** A configuration that stops the start; its message is one line naming every variable at fault. */
export class ConfigError extends Error {}

/** A previous secret and the instant after which what it made is refused. */
export interface PreviousKey<T> {
  value: T;
  until: Date;
}

/** The previous value while it is still accepted (read at each use, so the date takes effect without a restart), else null. */
export function stillAccepted<T>(previous: PreviousKey<T> | null, now = Date.now()): T | null {
  return previous !== null && now < previous.until.getTime() ? previous.value : null;
}

/** `<NAME>_PREVIOUS_UNTIL`: a date (its 00:00 UTC) or a date and time with its zone; null when it is neither. */
export function parseUntil(raw: string): Date | null {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(raw)
    ? new Date(`${raw}T00:00:00Z`)
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(raw)
      ? new Date(raw)
      : null;
  if (!date || Number.isNaN(date.getTime())) return null;
  const [year, month, day] = raw.slice(0, 10).split('-').map(Number);
  const calendar = new Date(Date.UTC(year, month - 1, day));
  return calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day ? date : null; // no 2030-02-30
}

/** `Invalid configuration: <problem>; <problem>…`, one line (the start prints it as the only line). */
export function configErrorMessage(problems: string[]): string {
  return `Invalid configuration: ${problems.join('; ')}`;
}

type Env = Record<string, string | undefined>;

/** Values copied from documentation or samples; production refuses them. */
const SAMPLE_SECRETS = [/^change[-_ ]?me/i, /^secret$/i, /^sample/i, /^example/i, /^your[-_]/i, /^x{8,}$/i, /^dev-/i];

function isSample(value: string): boolean {
  return SAMPLE_SECRETS.some((pattern) => pattern.test(value));
}

class Reader {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  constructor(
    private readonly env: Env,
    readonly production: boolean,
  ) {}

  str(name: string): string | null {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? null : value.trim();
  }

  int(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.str(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || value < min || value > max) {
      this.errors.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  bool<T extends boolean | 'auto'>(name: string, fallback: T): boolean | T {
    const raw = this.str(name);
    if (raw === null) return fallback;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    this.errors.push(`${name} must be ${fallback === 'auto' ? 'auto, ' : ''}true or false (got "${raw}")`);
    return fallback;
  }

  url(name: string, protocols: string[]): string | null {
    const raw = this.str(name);
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error();
      return raw;
    } catch {
      this.errors.push(`${name} must be a URL with protocol ${protocols.join(' or ')}`);
      return null;
    }
  }

  /** A secret: required and non-sample in production, generated with a warning in development. */
  secret(name: string, minLength: number): string {
    const raw = this.str(name);
    if (raw !== null && isSample(raw) && this.production) {
      this.errors.push(`${name} holds a sample value; set a real secret`);
    } else if (raw !== null && raw.length < minLength) {
      this.errors.push(`${name} must be at least ${minLength} characters`);
    } else if (raw !== null) {
      return raw;
    } else if (this.production) {
      this.errors.push(`${name} is required in production`);
    } else {
      this.warnings.push(name);
      return randomBytes(32).toString('hex');
    }
    return '';
  }

  /**
   * `<name>_PREVIOUS` with `<name>_PREVIOUS_UNTIL` (both or neither), in the format of `<name>` (`parse`
   * pushes its own error), different from the current value; `notes` gets a line for the start's log.
   */
  previous<T>(
    name: string,
    parse: (raw: string, label: string) => T | null,
    current: T | null,
    same: (a: T, b: T) => boolean,
    notes: string[],
  ): PreviousKey<T> | null {
    const raw = this.str(`${name}_PREVIOUS`);
    const untilRaw = this.str(`${name}_PREVIOUS_UNTIL`);
    if (raw === null && untilRaw === null) return null;
    if (raw === null) {
      this.errors.push(`${name}_PREVIOUS_UNTIL is set without ${name}_PREVIOUS`);
      return null;
    }
    if (untilRaw === null) {
      this.errors.push(
        `${name}_PREVIOUS needs ${name}_PREVIOUS_UNTIL, the date after which what it made is refused (2026-12-31 or 2026-12-31T12:00:00Z)`,
      );
      return null;
    }
    const until = parseUntil(untilRaw);
    if (until === null) {
      this.errors.push(
        `${name}_PREVIOUS_UNTIL must be a date (2026-12-31, meaning 00:00 UTC) or a date and time with its zone (2026-12-31T12:00:00Z) (got "${untilRaw}")`,
      );
      return null;
    }
    if (this.str(name) === null) {
      this.errors.push(`${name}_PREVIOUS is set but ${name} is not: set ${name} to the new value`);
      return null;
    }
    const value = parse(raw, `${name}_PREVIOUS`);
    if (value === null) return null;
    if (current !== null && same(value, current)) {
      this.errors.push(`${name}_PREVIOUS is the same as ${name}: set ${name} to the new value`);
      return null;
    }
    notes.push(
      until.getTime() > Date.now()
        ? `Key rotation: ${name}_PREVIOUS is accepted for reading until ${until.toISOString()}; everything new is made with ${name}`
        : `${name}_PREVIOUS_UNTIL (${until.toISOString()}) has passed: what ${name}_PREVIOUS made is refused; ` +
            `remove ${name}_PREVIOUS and ${name}_PREVIOUS_UNTIL`,
    );
    return { value, until };
  }

  /** A previous secret: the current one's rules (length, no sample value in production). */
  previousSecret(raw: string, label: string, minLength: number): string | null {
    if (this.production && isSample(raw)) this.errors.push(`${label} holds a sample value`);
    else if (raw.length < minLength) this.errors.push(`${label} must be at least ${minLength} characters`);
    else return raw;
    return null;
  }

  /** A previous binary key: the current one's formats. */
  previousKeyBytes(raw: string, label: string, bytes: number): Buffer | null {
    const decoded = decodeKey(raw, bytes);
    if (this.production && isSample(raw)) this.errors.push(`${label} holds a sample value`);
    else if (!decoded)
      this.errors.push(`${label} must be ${bytes} bytes: ${bytes} characters, ${bytes * 2} hex digits or base64 of ${bytes} bytes`);
    else return decoded;
    return null;
  }

  /** A fixed-length binary key given as hex, base64 or raw text of exactly that many bytes. */
  key(name: string, bytes: number): Buffer {
    const raw = this.str(name);
    if (raw === null) {
      if (this.production) this.errors.push(`${name} is required in production (${bytes} bytes)`);
      else this.warnings.push(name);
      return randomBytes(bytes);
    }
    if (this.production && isSample(raw)) {
      this.errors.push(`${name} holds a sample value; set a real key`);
      return Buffer.alloc(bytes);
    }
    const decoded = decodeKey(raw, bytes);
    if (!decoded) {
      this.errors.push(`${name} must be ${bytes} bytes: ${bytes} characters, ${bytes * 2} hex digits or base64 of ${bytes} bytes`);
      return Buffer.alloc(bytes);
    }
    return decoded;
  }
}

export function decodeKey(raw: string, bytes: number): Buffer | null {
  if (raw.length === bytes * 2 && /^[0-9a-f]+$/i.test(raw)) return Buffer.from(raw, 'hex');
  if (Buffer.byteLength(raw, 'utf8') === bytes) return Buffer.from(raw, 'utf8');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) {
    const decoded = Buffer.from(raw, 'base64');
    if (decoded.length === bytes) return decoded;
  }
  return null;
}

/** The path of the relay the IdP redirects to (README "Single sign-on (OpenID Connect)"). */
export const IDP_RELAY_PATH = '/auth/oauth/idp/redirect';

/** IDP_REDIRECT_URI with the relay path appended unless it already ends with it (or with its alias `/auth/oauth/idp/callback`). */
export function idpRelayUri(setting: string): string {
  const url = new URL(setting);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(IDP_RELAY_PATH) && !path.endsWith('/auth/oauth/idp/callback')) url.pathname = `${path}${IDP_RELAY_PATH}`;
  return url.href;
}

/**
 * The IdP settings. SSO is on when IDP_CLIENT_ID is set; then IDP_ISSUER_URL and IDP_REDIRECT_URI are
 * required, and IDP_COOKIE_PASSWORD (at least 32 characters) is required in production and generated per
 * process, with a warning, outside it. An http issuer is refused in production (tests and local IdPs only).
 */
function readIdp(r: Reader): AppConfig['idp'] {
  const clientId = r.str('IDP_CLIENT_ID');
  const issuerUrl = r.url('IDP_ISSUER_URL', ['http:', 'https:']);
  const redirectUriSetting = r.url('IDP_REDIRECT_URI', ['http:', 'https:']);
  let redirectUri: string | null = null;
  if (redirectUriSetting !== null) {
    const parsed = new URL(redirectUriSetting);
    if (parsed.search || parsed.hash || parsed.username || parsed.password)
      r.errors.push('IDP_REDIRECT_URI must have no query, fragment or user info');
    else redirectUri = idpRelayUri(redirectUriSetting);
  }
  if (r.production && issuerUrl !== null && new URL(issuerUrl).protocol !== 'https:')
    r.errors.push('IDP_ISSUER_URL must be an https URL in production');
  if (r.production && redirectUri !== null && new URL(redirectUri).protocol !== 'https:')
    r.errors.push('IDP_REDIRECT_URI must be an https URL in production');
  if (clientId !== null && issuerUrl === null && r.str('IDP_ISSUER_URL') === null)
    r.errors.push("IDP_ISSUER_URL is required when IDP_CLIENT_ID is set (the IdP's issuer, for discovery)");
  if (clientId !== null && redirectUriSetting === null && r.str('IDP_REDIRECT_URI') === null)
    r.errors.push("IDP_REDIRECT_URI is required when IDP_CLIENT_ID is set (this service's public base URL or relay URI)");

  let cookiePassword = r.str('IDP_COOKIE_PASSWORD');
  if (cookiePassword !== null && cookiePassword.length < 32) r.errors.push('IDP_COOKIE_PASSWORD must be at least 32 characters');
  else if (cookiePassword !== null && r.production && isSample(cookiePassword))
    r.errors.push('IDP_COOKIE_PASSWORD holds a sample value; set a real secret');
  else if (cookiePassword === null && clientId !== null) {
    if (r.production) r.errors.push('IDP_COOKIE_PASSWORD is required in production when IDP_CLIENT_ID is set');
    else {
      r.warnings.push('IDP_COOKIE_PASSWORD');
      cookiePassword = randomBytes(32).toString('hex');
    }
  }

  const allowedAuthTables = (r.str('IDP_ALLOWED_AUTH_TABLES') ?? 'core_customers')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  // Whether these are user tables is the idp module's check at start (the tables are the auth module's).

  return {
    issuerUrl,
    clientId,
    apiKey: r.str('IDP_API_KEY'),
    redirectUri,
    redirectUriSetting,
    cookiePassword,
    debug: r.bool('IDP_DEBUG_AUTH', false),
    allowedAuthTables,
    tokenAuthMethod: readTokenAuthMethod(r),
    discoveryRetryMs: r.int('IDP_DISCOVERY_RETRY_MS', 5000, 0, 600000),
    timeoutMs: r.int('IDP_TIMEOUT_MS', 10000, 100, 120000),
  };
}

function readTokenAuthMethod(r: Reader): AppConfig['idp']['tokenAuthMethod'] {
  const value = r.str('IDP_TOKEN_AUTH_METHOD') ?? 'client_secret_basic';
  if (value === 'client_secret_basic' || value === 'client_secret_post') return value;
  r.errors.push(`IDP_TOKEN_AUTH_METHOD must be client_secret_basic or client_secret_post (got "${value}")`);
  return 'client_secret_basic';
}

/**
 * CORS_ORIGINS: comma-separated origins (`https://shop.example.com`, scheme, host and port only) or `*` for
 * any. Unset: any origin outside production (local front ends on their own ports), none in production.
 */
function readCors(r: Reader): AppConfig['cors'] {
  const raw = r.str('CORS_ORIGINS');
  const entries =
    raw === null
      ? []
      : raw
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean);
  const origins: string[] = [];
  for (const entry of entries) {
    if (entry === '*') continue;
    const origin = browserOrigin(entry);
    if (origin === null) r.errors.push(`CORS_ORIGINS: "${entry}" is not an origin (scheme://host[:port], no path), nor *`);
    else origins.push(origin);
  }
  return { anyOrigin: entries.includes('*') || (raw === null && !r.production), origins, appDomains: r.bool('CORS_APP_DOMAINS', true) };
}

/** DATABASE_REPLICA_URLS: comma-separated PostgreSQL URLs, each checked like DATABASE_URL; blank entries are ignored. */
function readReplicaUrls(r: Reader): string[] {
  const raw = r.str('DATABASE_REPLICA_URLS');
  if (raw === null) return [];
  const urls: string[] = [];
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const [index, entry] of entries.entries()) {
    let protocol = '';
    try {
      protocol = new URL(entry).protocol;
    } catch {
      // reported below
    }
    if (protocol === 'postgres:' || protocol === 'postgresql:') urls.push(entry);
    else
      r.errors.push(`DATABASE_REPLICA_URLS: every entry must be a URL with protocol postgres: or postgresql: (entry ${index + 1} is not)`);
  }
  return urls;
}

/** The default headroom and priority reserve of a pool: a fifth of it, at least 1, none below 3 connections. */
function fifth(poolSize: number): number {
  return poolSize >= 3 ? Math.max(1, Math.round(poolSize / 5)) : 0;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const production = env.NODE_ENV === 'production';
  const r = new Reader(env, production);
  const loginMaxPerAccount = r.int('AUTH_LOGIN_MAX_PER_ACCOUNT', 10, 1);
  const poolSize = r.int('DB_POOL_SIZE', 10, 1, 1000);
  const requestTimeoutMs = r.int('HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000);
  const databaseUrl = r.url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const databaseDirectUrl = r.url('DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']);
  if (databaseDirectUrl && !databaseUrl) r.errors.push('DATABASE_DIRECT_URL needs DATABASE_URL (without it the embedded database is used)');
  const replicaUrls = readReplicaUrls(r);
  if (replicaUrls.length > 0 && !databaseUrl) r.errors.push('DATABASE_REPLICA_URLS needs DATABASE_URL (replicas of its database)');

  const config: AppConfig = {
    production,
    port: r.int('PORT', 3000, 0, 65535),
    host: r.str('HOST') ?? '0.0.0.0',
    basePath: production ? '/api/v2' : '',
    databaseUrl,
    databaseDirectUrl: databaseDirectUrl ?? databaseUrl,
    replicas: {
      urls: replicaUrls,
      maxLagMs: r.int('DATABASE_REPLICA_MAX_LAG_MS', 1000, 0, 3_600_000),
      poolSize: r.int('DB_REPLICA_POOL_SIZE', 3, 1, 100),
    },
    dataDir: r.str('DATA_DIR') ?? './.data',
    database: {
      poolSize,
      statementTimeoutMs: r.int('DB_STATEMENT_TIMEOUT_MS', 5000, 0, 3_600_000),
      tenantMaxConnections: r.int('DB_TENANT_MAX_CONNECTIONS', poolSize, 1, poolSize),
      // A fifth of the pool each (2 of 10; none below 3 connections), leaving anonymous requests at least one.
      tenantHeadroom: r.int('DB_TENANT_HEADROOM', fifth(poolSize), 0, poolSize - 1),
      priorityConnections: r.int('DB_PRIORITY_CONNECTIONS', fifth(poolSize), 0, poolSize - 1),
      tenantQueue: r.int('DB_TENANT_QUEUE', 100, 0, 100_000),
      tenantQueueWaitMs: r.int('DB_TENANT_QUEUE_WAIT_MS', 5000, 0, 600_000),
      preparedStatements: r.str('DB_PREPARED_STATEMENTS')?.toLowerCase() === 'auto' ? 'auto' : r.bool('DB_PREPARED_STATEMENTS', 'auto'),
    },
    http: {
      requestTimeoutMs,
      headersTimeoutMs: r.int('HTTP_HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 1000, requestTimeoutMs),
      keepAliveTimeoutMs: r.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 600_000),
    },
    redisUrl: r.url('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: r.str('REDIS_KEY_PREFIX') ?? 'platform:',
    smtpUrl: r.url('SMTP_URL', ['smtp:', 'smtps:']),
    smsWebhookUrl: r.url('SMS_WEBHOOK_URL', ['http:', 'https:']),
    smsWebhookToken: r.str('SMS_WEBHOOK_TOKEN'),
    mailToFiles: r.bool('MAIL_TO_FILES', false),
    smsToFiles: r.bool('SMS_TO_FILES', false),
    cors: readCors(r),
    docsEnabled: r.bool('DOCS_ENABLED', !production),
    paymentApiUrl: r.url('PAYMENT_API_URL', ['http:', 'https:']),
    payments: {
      systemPoolSize: r.int('DB_SYSTEM_POOL_SIZE', 3, 1, 100),
      eventsPollMs: r.int('PAYMENT_EVENTS_POLL_MS', 5000, 0, 3_600_000),
      eventsMaxAttempts: r.int('PAYMENT_EVENTS_MAX_ATTEMPTS', 12, 1, 1000),
      reconcileAfterMs: r.int('PAYMENT_RECONCILE_AFTER_MS', 600_000, 0, 30 * 86_400_000),
      reconcileTickMs: r.int('PAYMENT_RECONCILE_TICK_MS', 60_000, 0, 86_400_000),
    },
    vapid: {
      publicKey: r.str('VAPID_PUBLIC_KEY'),
      privateKey: r.str('VAPID_PRIVATE_KEY'),
      subject: r.str('VAPID_SUBJECT'),
    },
    notifications: {
      senderEnabled: r.bool('NOTIFY_SENDER_ENABLED', true),
      pollIntervalMs: r.int('NOTIFY_POLL_INTERVAL_MS', 2000, 10),
      batchSize: r.int('NOTIFY_BATCH_SIZE', 50, 1, 1000),
      concurrency: r.int('NOTIFY_CONCURRENCY', 32, 1, 256),
      maxAttempts: r.int('NOTIFY_MAX_ATTEMPTS', 5, 1, 100),
      retryBaseMs: r.int('NOTIFY_RETRY_BASE_MS', 30000, 0),
      retryMaxMs: r.int('NOTIFY_RETRY_MAX_MS', 3600000, 0),
      leaseMs: r.int('NOTIFY_LEASE_MS', 600000, 1000),
      sqlTimeoutMs: r.int('NOTIFY_SQL_TIMEOUT_MS', 2000, 10, 60000),
      sqlPoolSize: r.int('NOTIFY_SQL_POOL_SIZE', 2, 1, 50),
      sqlPerApp: r.int('NOTIFY_SQL_PER_APP', 1, 1, 50),
      sqlQueue: r.int('NOTIFY_SQL_QUEUE', 4, 0, 1000),
      sqlQueueWaitMs: r.int('NOTIFY_SQL_QUEUE_WAIT_MS', 5000, 10, 600000),
      anonPerRecipient: r.int('NOTIFY_ANON_PER_RECIPIENT', 3, 0, 1_000_000),
      anonPerTemplate: r.int('NOTIFY_ANON_PER_TEMPLATE', 100, 0, 100_000_000),
      anonWindowMs: r.int('NOTIFY_ANON_WINDOW_MS', 3_600_000, 1000, 86_400_000),
    },
    pushInsecureTls: r.bool('PUSH_INSECURE_TLS', false),
    jwt: {
      accessSecret: r.secret('JWT_ACCESS_SECRET', 32),
      refreshSecret: r.secret('JWT_REFRESH_SECRET', 32),
      accessTtlSeconds: r.int('JWT_ACCESS_TOKEN_LIFE', 3600, 1),
      refreshTtlSeconds: r.int('JWT_REFRESH_TOKEN_LIFE', 2592000, 1),
    },
    encryption: { key: r.key('ENCRYPTION_KEY', 32), iv: r.key('ENCRYPTION_IV', 16) },
    rateLimit: {
      windowMs: r.int('RATE_LIMIT_WINDOW_MS', 900000, 1000),
      maxRequests: r.int('RATE_LIMIT_MAX_REQUESTS', 100, 1),
    },
    proxy: {
      enabled: r.bool('APP_PROXY', false),
      appId: r.str('APP_PROXY_APP_ID') === null ? null : r.int('APP_PROXY_APP_ID', 0, 1),
    },
    siteCacheMs: r.int('SITE_CACHE_MS', 5000, 0, 3_600_000),
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', 1048576, 1024),
    bodyMaxItems: r.int('BODY_MAX_ITEMS', 2500, 100, 1000000),
    trustProxy: r.bool('TRUST_PROXY', false),
    bcryptCost: r.int('BCRYPT_COST', 10, 10, 15),
    auth: {
      resetTokenTtlSeconds: r.int('RESET_TOKEN_LIFE', 3600, 60, 86400 * 7),
      loginMaxPerAccount,
      loginMaxPerAccountAllAddresses: r.int('AUTH_LOGIN_MAX_PER_ACCOUNT_ALL_ADDRESSES', 10 * loginMaxPerAccount, 1),
    },
    logLevel: r.str('LOG_LEVEL') ?? (env.NODE_ENV === 'test' ? 'warn' : 'info'),
    metricsToken: r.str('METRICS_TOKEN'),
    idp: readIdp(r),
    content: {
      expiryTickMs: r.int('CONTENT_EXPIRY_TICK_MS', 60000, 0),
      maxPerPage: r.int('DATA_ROWS_MAX_PER_PAGE', 100, 1, 10000),
      maxRows: r.int('DATA_ROWS_MAX_ROWS', 1000, 1, 100000),
    },
    console: {
      distDir: r.str('CONSOLE_DIR'),
      idleMinutes: r.int('CONSOLE_IDLE_MINUTES', 30, 1, 7 * 24 * 60),
    },
    previousKeys: { jwtAccess: null, jwtRefresh: null, encryptionKey: null, encryptionIv: null, idpCookiePassword: null },
    warnings: [],
  };
  const rotation: string[] = [];
  const sameText = (a: string, b: string) => a === b;
  const sameBytes = (a: Buffer, b: Buffer) => a.equals(b);
  config.previousKeys = {
    jwtAccess: r.previous(
      'JWT_ACCESS_SECRET',
      (raw, label) => r.previousSecret(raw, label, 32),
      config.jwt.accessSecret,
      sameText,
      rotation,
    ),
    jwtRefresh: r.previous(
      'JWT_REFRESH_SECRET',
      (raw, label) => r.previousSecret(raw, label, 32),
      config.jwt.refreshSecret,
      sameText,
      rotation,
    ),
    encryptionKey: r.previous(
      'ENCRYPTION_KEY',
      (raw, label) => r.previousKeyBytes(raw, label, 32),
      config.encryption.key,
      sameBytes,
      rotation,
    ),
    encryptionIv: r.previous(
      'ENCRYPTION_IV',
      (raw, label) => r.previousKeyBytes(raw, label, 16),
      config.encryption.iv,
      sameBytes,
      rotation,
    ),
    idpCookiePassword: r.previous(
      'IDP_COOKIE_PASSWORD',
      (raw, label) => r.previousSecret(raw, label, 32),
      config.idp.cookiePassword,
      sameText,
      rotation,
    ),
  };

  if (config.jwt.accessSecret && config.jwt.accessSecret === config.jwt.refreshSecret) {
    r.errors.push('JWT_REFRESH_SECRET must differ from JWT_ACCESS_SECRET');
  }

  if (production && config.pushInsecureTls) r.errors.push('PUSH_INSECURE_TLS is for tests only and is refused in production');
  // Production never writes mail or SMS to files without being told to: a missing gateway is a mistake.
  const toFiles: string[] = [];
  if (production && config.smtpUrl === null) {
    if (config.mailToFiles) toFiles.push(`mail as .eml files in ${resolve(config.dataDir, 'outbox')} (MAIL_TO_FILES=true)`);
    else
      r.errors.push(
        'SMTP_URL is required in production (without it mail is only written to files in DATA_DIR/outbox; set MAIL_TO_FILES=true to accept that)',
      );
  }
  if (production && config.smsWebhookUrl === null) {
    if (config.smsToFiles) toFiles.push(`SMS as files in ${resolve(config.dataDir, 'sms')} (SMS_TO_FILES=true)`);
    else
      r.errors.push(
        'SMS_WEBHOOK_URL is required in production (without it SMS are only written to files in DATA_DIR/sms; set SMS_TO_FILES=true to accept that)',
      );
  }
  const { tenantHeadroom, priorityConnections } = config.database;
  if (poolSize > 1 && tenantHeadroom + priorityConnections >= poolSize)
    r.errors.push(
      `DB_TENANT_HEADROOM (${tenantHeadroom}) + DB_PRIORITY_CONNECTIONS (${priorityConnections}) must leave anonymous requests ` +
        `at least one of the DB_POOL_SIZE (${poolSize}) connections`,
    );
  if (r.errors.length > 0) throw new ConfigError(configErrorMessage(r.errors));
  if (toFiles.length > 0) config.warnings.push(`Production instance writes ${toFiles.join(' and ')}: nothing of it is sent`);
  if (env.DEV_SECRETS_FILE) {
    config.warnings.push(
      `Development secrets from ${env.DEV_SECRETS_FILE}; set JWT_ACCESS_SECRET, JWT_REFRESH_SECRET, ENCRYPTION_KEY and ENCRYPTION_IV for a real deployment`,
    );
  }
  config.warnings.push(...rotation);
  if (r.warnings.length > 0) {
    config.warnings.push(
      `Generated development values for ${r.warnings.join(', ')}; set them to keep tokens and ids valid across restarts`,
    );
  }
  return config;
}
