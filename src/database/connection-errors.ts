/** Socket errors of a connection to PostgreSQL that cannot be made or was cut. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
/** SQLSTATEs of a server going away: class 08 (connection exception), admin/crash shutdown, cannot connect now. */
const SERVER_GONE = /^(08...|57P01|57P02|57P03)$/;
/** What pg and pg-pool say when a connection ended under a query or none could be had in time. */
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /Client has encountered a connection error/,
  /Connection closed/,
];

/**
 * Whether `error` says the database cannot be reached (down, restarting, network cut), rather than that a
 * statement failed: such a request is answered 503 `Database unavailable`, which a client may retry. TypeORM
 * wraps driver errors of a query (QueryFailedError.driverError); errors of getting a connection come bare.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, message, driverError } = error as { code?: unknown; message?: unknown; driverError?: unknown };
  if (driverError && driverError !== error && isDatabaseUnavailable(driverError)) return true;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_GONE.test(code))) return true;
  return typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message));
}

/**
 * Whether PostgreSQL cancelled the statement (57014 query_canceled): the request pool's statement_timeout
 * (DB_STATEMENT_TIMEOUT_MS) passed. Answered 503 with Retry-After, never 500.
 */
export function isStatementTimeout(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, driverError } = error as { code?: unknown; driverError?: { code?: unknown } };
  return (driverError?.code ?? code) === '57014';
}

/**
 * A request of a tenant that holds its whole share of the request pool (DB_TENANT_MAX_CONNECTIONS) found the
 * tenant's queue full (DB_TENANT_QUEUE) or waited DB_TENANT_QUEUE_WAIT_MS for a connection: answered 503.
 */
export class TenantShareExhausted extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('The app has too many database requests in progress');
  }
}

/** How long a start (migrate, the CLI) waits for PostgreSQL to accept a connection. */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * PostgreSQL could not be connected to: refused, unknown host, no answer, no such database, a refused login.
 * The message is one line for an operator, with the URL's password masked:
 * `Cannot connect to the database at postgresql://app:***@db:5432/platform (ECONNREFUSED)`.
 */
export class DatabaseConnectError extends Error {
  constructor(url: string, cause: unknown) {
    super(`Cannot connect to the database at ${maskedUrl(url)}${connectFailure(cause)}`);
  }
}

/** `url` without its password (and query, which may hold one): for messages and logs. */
export function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString();
  } catch {
    return '(DATABASE_URL, not a URL)';
  }
}

/** ` (ECONNREFUSED)`, `: database "x" does not exist (3D000)`, `: no answer within 10 s`… */
function connectFailure(cause: unknown): string {
  const error = (cause ?? {}) as { code?: unknown; message?: unknown; errors?: { code?: unknown }[] };
  // A host name with several addresses fails with an AggregateError: the code is its errors'.
  const code = typeof error.code === 'string' ? error.code : typeof error.errors?.[0]?.code === 'string' ? error.errors[0].code : undefined;
  const message = typeof error.message === 'string' ? error.message.split('\n')[0] : '';
  if (code && NETWORK_CODES.has(code)) return ` (${code})`;
  if (/timeout/i.test(message) && !code) return `: no answer within ${CONNECT_TIMEOUT_MS / 1000} s`;
  if (message) return `: ${message}${code ? ` (${code})` : ''}`;
  return code ? ` (${code})` : '';
}
