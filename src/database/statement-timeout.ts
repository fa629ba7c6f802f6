import { Client, ClientConfig, Connection, FieldDef, Query, QueryResult } from 'pg';

/**
 * The pg options of the request and system pools' connections (TypeORM's `extra`, handed by pg's Pool to
 * every Client it makes): `requestStatementTimeoutMs`, the statement timeout each of their statements runs
 * under (DB_STATEMENT_TIMEOUT_MS; 0 for none).
 */
export interface StatementTimeoutConfig extends ClientConfig {
  requestStatementTimeoutMs?: number;
}

/**
 * Statements that cannot run inside a transaction block (and maintenance that no request runs): sent as they
 * are, without the timeout, since the timeout comes with an implicit transaction around the statement.
 */
const UNBOUNDED =
  /^\s*(VACUUM|DISCARD|CREATE\s+DATABASE|DROP\s+DATABASE|ALTER\s+SYSTEM|(CREATE|DROP)\s+(UNIQUE\s+)?INDEX\s+CONCURRENTLY|REINDEX\b.*\bCONCURRENTLY)/i;
/** The first statement of a transaction the caller opens (TypeORM sends `START TRANSACTION`). */
const BEGIN = /^\s*(START\s+TRANSACTION|BEGIN)\b/i;

/** The statement that sets the timeout for the rest of the current transaction (raw SQL: a setting, no table). */
function setLocal(timeoutMs: number): string {
  return `SELECT set_config('statement_timeout', '${Math.trunc(timeoutMs)}', true)`;
}

/**
 * A statement of the request and system pools that sets the statement timeout for itself when it starts outside
 * a transaction, in the same round trip, deciding when it is sent (the connection's state is known then):
 * - a text that opens a transaction (`START TRANSACTION`, TypeORM's) is sent as `START TRANSACTION; SET LOCAL
 *   statement_timeout = …`: every statement of the transaction runs under it, and one may change it for the rest
 *   of the transaction (the expiry tick's `SET LOCAL statement_timeout = 0`). SET LOCAL, not set_config(): a
 *   SELECT would take the transaction's snapshot, after which TypeORM's `SET TRANSACTION ISOLATION LEVEL` fails;
 * - a parameterless text is sent as `SELECT set_config('statement_timeout', …, true); <text>`: the statements
 *   of one Query message run in one implicit transaction, and PostgreSQL starts the timer anew for each;
 * - a query of the extended protocol (parameters, or a name: prepared-statements.ts) gets Parse, Bind and
 *   Execute of that set_config() before its own messages and its one Sync, so both run in the one implicit
 *   transaction the Sync ends (PostgreSQL's pipelining, protocol "Extended Query"); PostgreSQL starts the
 *   query's timer when its Bind arrives, after the setting took effect.
 * The setting is the transaction's (local) and ends with it: nothing stays on the server connection, which a
 * transaction-mode pooler hands to another client once the transaction ends. Inside a transaction the query is
 * sent as it is. The setting's row and command tag are not the query's and are skipped.
 */
export class TimedQuery extends Query {
  private pipelineTimeout = false;
  /** set_config()'s row description, row and command tag come before the query's own. */
  private skipLeading = false;
  /** SET LOCAL's command tag comes after START TRANSACTION's. */
  private skipTrailing = false;

  /** `timeoutMs` 0 sends the query as it is; `client` tells whether a transaction is open when it is sent. */
  constructor(
    text: string,
    values: unknown[] | undefined,
    private readonly timeoutMs: number,
    private readonly client: Client,
  ) {
    super(text, values);
  }

  // pg's types declare submit() as a property: patched onto the prototype in the class body.
  static {
    const submit = (Query.prototype as unknown as { submit(connection: Connection): Error | null }).submit;
    TimedQuery.prototype.submit = function (this: TimedQuery, connection: Connection) {
      return submit.call(this.decide(), connection);
    } as Query['submit'];
  }

  /** Rewrites this query for the timeout when it starts outside a transaction; called when it is sent. */
  private decide(): this {
    const self = this as unknown as { text: string; requiresPreparation(): boolean };
    if (this.timeoutMs > 0 && this.client.getTransactionStatus() === 'I' && self.text.trim() !== '') {
      if (self.requiresPreparation()) this.pipelineTimeout = true;
      else if (BEGIN.test(self.text)) {
        self.text = `${self.text}; SET LOCAL statement_timeout = ${Math.trunc(this.timeoutMs)}`;
        this.skipTrailing = true;
      } else {
        self.text = `${setLocal(this.timeoutMs)}; ${self.text}`;
        this.skipLeading = true;
      }
    }
    return this;
  }

  prepare(connection: Connection): void {
    if (this.pipelineTimeout) {
      this.pipelineTimeout = false;
      const wire = connection as unknown as PipelineWire;
      wire.parse({ text: setLocal(this.timeoutMs), name: '', types: [] });
      wire.bind({ portal: '', statement: '', values: [] });
      wire.execute({ portal: '', rows: 0 });
      this.skipLeading = true;
    }
    (Query.prototype as unknown as { prepare(connection: Connection): void }).prepare.call(this, connection);
  }

  handleRowDescription(message: { fields: FieldDef[] }): void {
    if (this.skipLeading) return;
    (Query.prototype as unknown as { handleRowDescription(message: unknown): void }).handleRowDescription.call(this, message);
  }

  handleDataRow(message: unknown): void {
    if (this.skipLeading) return;
    (Query.prototype as unknown as { handleDataRow(message: unknown): void }).handleDataRow.call(this, message);
  }

  handleCommandComplete(message: { command?: string }, connection: Connection): void {
    if (this.skipLeading) {
      this.skipLeading = false;
      return;
    }
    if (this.skipTrailing && message.command === 'SET') {
      this.skipTrailing = false;
      return;
    }
    (Query.prototype as unknown as QueryHandlers).handleCommandComplete.call(this, message, connection);
  }

  handleError(error: Error, connection: Connection): void {
    this.skipLeading = this.skipTrailing = false;
    (Query.prototype as unknown as QueryHandlers).handleError.call(this, error, connection);
  }
}

interface QueryHandlers {
  handleCommandComplete(message: unknown, connection: Connection): void;
  handleError(error: Error, connection: Connection): void;
}

/** The message writers of pg's Connection that TimedQuery uses (pg 8.23's lib/connection.js). */
interface PipelineWire {
  parse(config: { text: string; name: string; types: unknown[] }): void;
  bind(config: { portal: string; statement: string; values: unknown[] }): void;
  execute(config: { portal: string; rows: number }): void;
}

/**
 * The pg Client of the request and system pools: every statement runs under the statement timeout
 * (`requestStatementTimeoutMs`) without a session setting or a startup parameter (TimedQuery), so that
 * DATABASE_URL may be a transaction-mode pooler: PgBouncer refuses a `statement_timeout` startup parameter, and
 * a session SET would stay on a server connection that other clients get next. Callbacks, Submittables (but
 * TimedQuery's own) and the statements that cannot run in a transaction block (UNBOUNDED) go as they are. The
 * value is a checked integer, written into the text.
 */
export class StatementTimeoutClient extends Client {
  protected readonly statementTimeoutMs: number;

  constructor(config?: string | StatementTimeoutConfig) {
    super(config);
    this.statementTimeoutMs = typeof config === 'object' ? Math.max(0, Math.trunc(config.requestStatementTimeoutMs ?? 0)) : 0;
  }

  // Patched onto the prototype in the class body so that pg's many overloads of query() keep their types; every
  // form passes through unchanged but a text with a promise.
  static {
    const plain = Client.prototype.query as (...args: unknown[]) => unknown;
    StatementTimeoutClient.prototype.query = function (this: StatementTimeoutClient, ...args: unknown[]) {
      const [text, values, callback] = args;
      if (
        this.statementTimeoutMs === 0 ||
        typeof text !== 'string' ||
        typeof values === 'function' ||
        callback !== undefined ||
        UNBOUNDED.test(text)
      ) {
        return plain.apply(this, args);
      }
      return this.submitted(new TimedQuery(text, values as unknown[] | undefined, this.statementTimeoutMs, this));
    } as Client['query'];
  }

  /** Sends `query` and resolves with its result, as pg's promise form does (the caller's stack on failure). */
  protected submitted(query: Query & { callback?: (error: Error | undefined, result: QueryResult) => void }): Promise<QueryResult> {
    return new Promise<QueryResult>((resolve, reject) => {
      query.callback = (error, result) => (error ? reject(error) : resolve(result));
      (Client.prototype.query as (query: Query) => unknown).call(this, query);
    }).catch((error: Error) => {
      Error.captureStackTrace(error);
      throw error;
    });
  }
}
