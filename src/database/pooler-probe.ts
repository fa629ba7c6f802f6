import { Logger } from '@nestjs/common';
import { Client, ClientConfig } from 'pg';
import type { AppConfig } from '../config/app-config';
import { CONNECT_TIMEOUT_MS } from './connection-errors';

/** Rounds of the probe: each client asks once per round. */
const ROUNDS = 3;
/** What PgBouncer answers a startup parameter it does not know (08P01), `statement_timeout` among them. */
const UNSUPPORTED_STARTUP_PARAMETER = /unsupported startup parameter/i;

/** What the probe found out about DATABASE_URL. */
export interface UrlProbe {
  /** Whether server connections are shared between client connections (a transaction- or statement-mode pooler). */
  sharedServerConnections: boolean;
  /** Whether a connection may carry `statement_timeout` as a startup parameter (PgBouncer refuses it in every mode). */
  startupTimeout: boolean;
}

/**
 * Two clients on `url` ask in turn which server process answers them (`pg_backend_pid()`). Directly on
 * PostgreSQL (or through a session-mode pooler) each client keeps its own process; behind a transaction-mode
 * pooler the second client gets the server connection the first has just given back (PgBouncer reuses the
 * most recently used one), or one client meets another process from one statement to the next. That is
 * what matters: session state (a prepared statement, a session setting, LISTEN, a session advisory lock) made
 * by one statement may be missing at the next, or be met by another client. The first client connects with
 * the `statement_timeout` startup parameter the pools would use (`timeoutMs` > 0), which PgBouncer refuses.
 * Raw SQL: a catalog function, no table.
 */
export async function probeDatabaseUrl(url: string, timeoutMs: number): Promise<UrlProbe> {
  const options: ClientConfig = { connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'platform-probe' };
  const clients: Client[] = [];
  let startupTimeout = timeoutMs > 0;
  try {
    const first = new Client(startupTimeout ? { ...options, statement_timeout: timeoutMs } : options);
    clients.push(first);
    try {
      await first.connect();
    } catch (error) {
      if (!startupTimeout || !UNSUPPORTED_STARTUP_PARAMETER.test((error as Error).message)) throw error;
      startupTimeout = false;
      clients[0] = new Client(options);
      await clients[0].connect();
    }
    clients.push(new Client(options));
    await clients[1].connect();
    const seen = new Map<number, Client>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const client of clients) {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const holder = seen.get(rows[0].pid);
        if (holder && holder !== client) return { sharedServerConnections: true, startupTimeout };
        seen.set(rows[0].pid, client);
      }
    }
    // A client that met more than one server process.
    return { sharedServerConnections: seen.size > clients.length, startupTimeout };
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
  }
}

/** How the request and system pools use DATABASE_URL, decided once at start (DatabaseModule). */
export interface PoolMode {
  /** The probe's answer (null on the embedded database, where it does not run). */
  sharedServerConnections: boolean | null;
  /**
   * How the statement timeout (DB_STATEMENT_TIMEOUT_MS) reaches the statements: `startup`, a startup parameter of
   * each connection (a connection of its own to PostgreSQL: no cost per statement); `transaction`, set per
   * transaction or with each statement outside one (statement-timeout.ts: no session state, for a pooler);
   * `none` (0, or the embedded database, which does not enforce it).
   */
  statementTimeout: 'startup' | 'transaction' | 'none';
  /** Whether statements marked prepared() run as named prepared statements (prepared-statements.ts). */
  preparedStatements: boolean;
}

/**
 * Decides the pools' use of DATABASE_URL from the probe. Session state only on a connection no other client
 * shares: the startup parameter where the connection is PostgreSQL's own (or a session-mode pooler's that
 * accepts it), else the timeout per transaction. Prepared statements (DB_PREPARED_STATEMENTS): `true` uses them
 * (the operator says the connection carries them: PgBouncer 1.21+ with `max_prepared_statements`), `false`
 * never, `auto` (the default) unless the server connections are shared, where a statement prepared on one is
 * missing on the next (PgBouncer before 1.21 cannot carry them at all). The embedded database uses neither.
 */
export async function decidePoolMode(
  config: AppConfig,
  database: { url: string; directUrl?: string; embedded: boolean },
): Promise<PoolMode> {
  if (database.embedded) return { sharedServerConnections: null, statementTimeout: 'none', preparedStatements: false };
  const timeoutMs = config.database.statementTimeoutMs;
  const probe = await probeDatabaseUrl(database.url, timeoutMs);
  const shared = probe.sharedServerConnections;
  const setting = config.database.preparedStatements;
  const mode: PoolMode = {
    sharedServerConnections: shared,
    statementTimeout: timeoutMs <= 0 ? 'none' : !shared && probe.startupTimeout ? 'startup' : 'transaction',
    preparedStatements: setting === 'auto' ? !shared : setting,
  };
  if (shared) {
    const logger = new Logger('Database');
    logger.log(
      `DATABASE_URL shares server connections between clients (a transaction-mode pooler): statement timeout set per transaction, prepared statements ${
        mode.preparedStatements
          ? 'on (DB_PREPARED_STATEMENTS=true)'
          : 'off (DB_PREPARED_STATEMENTS=true if the pooler carries them, e.g. PgBouncer 1.21+ with max_prepared_statements)'
      }`,
    );
    if ((database.directUrl ?? database.url) === database.url) {
      logger.warn(
        'DATABASE_URL is a transaction-mode pooler and DATABASE_DIRECT_URL is not set: the migration lock and LISTEN ' +
          'go through the pooler; set DATABASE_DIRECT_URL to a direct connection',
      );
    }
  }
  return mode;
}
