/** Socket errors of a connection to PostgreSQL that cannot be made or was cut. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
/** SQLSTATEs of a server going away: class 08 (connection exception), admin/crash shutdown, cannot connect now. */
const SERVER_GONE = /^(08...|57P01|57P02|57P03)$/;
/** What pg and pg-pool say when a connection ended under a query or none could be had in time. */
const DRIVER_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /Client has encountered a connection error/, /Connection closed/];

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
