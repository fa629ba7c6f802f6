import { createHash } from 'node:crypto';
import { Client, CustomTypesConfig, FieldDef, Query, QueryResult } from 'pg';
import { TIMESTAMPTZ_OID, timestamptzJson } from './json-timestamps';
import { StatementTimeoutClient, TimedQuery } from './statement-timeout';

/**
 * The comment that asks the request pool's connections to run a statement as a named prepared statement
 * (`prepared(sql)`). A connection without PreparedStatementsClient (DB_PREPARED_STATEMENTS=false, the
 * embedded database) sends the text as it is, an unnamed statement like every other.
 */
const MARK = '/* prepared */ ';
/** prepared(), for rows that go into a JSON answer as they are (`preparedForJson(sql)`). */
const JSON_MARK = '/* prepared for JSON */ ';

/** Most statements one connection keeps prepared; the least recently used beyond it is deallocated. */
export const MAX_PREPARED_PER_CONNECTION = 100;

/**
 * SQLSTATEs after which a prepared statement is prepared again: 26000 (it no longer exists: DISCARD ALL,
 * DEALLOCATE ALL) and 0A000 (`cached plan must not change result type`: a column it reads changed type).
 */
const STALE = new Set(['26000', '0A000']);

/**
 * `sql` marked to run as a named prepared statement on the request pool: parsed and analyzed once per
 * connection instead of once per execution. Only for statements that repeat often and whose text holds no
 * request text: request values are bound parameters; checked integers and catalog identifiers may be
 * written in (the page: then PostgreSQL also plans it once, for those values).
 */
export function prepared(sql: string): string {
  return MARK + sql;
}

/**
 * As prepared(), for rows that go into a JSON answer unchanged: a timestamptz value comes as the JSON text
 * its Date would be written as (json-timestamps.ts), without the Date (a page of 20 rows parses about 80).
 * Without PreparedStatementsClient the rows come as pg parses them, and their JSON is the same.
 */
export function preparedForJson(sql: string): string {
  return JSON_MARK + sql;
}

function isMarked(sql: string): boolean {
  return sql.startsWith(MARK) || sql.startsWith(JSON_MARK);
}

interface PreparedStatement {
  name: string;
  /** How pg reads its rows, kept from its first execution on this connection (NamedQuery). */
  rows?: RowsReader;
}

/** What pg's Result builds from a RowDescription: the fields, a parser per field and the empty row it copies per row. */
interface RowsReader {
  fields: FieldDef[];
  parsers: unknown[];
  emptyRow: object;
}

/** The parts of pg's Query and Result that NamedQuery sets (pg 8.23's lib/query.js and lib/result.js). */
interface QueryInternals {
  _accumulateRows: boolean;
  _result: { fields: FieldDef[]; _parsers: unknown[]; _prebuiltEmptyResultObject: object; _types?: CustomTypesConfig };
  handleRowDescription(message: { fields: FieldDef[] }): void;
}

/**
 * One execution of a named statement. pg copies a query config object property descriptor by descriptor on
 * every query (pg 8.23's normalizeQueryConfig, far slower than its text form), so the query is
 * made from the text and given its name and type parsers afterwards, as the config object would have.
 *
 * pg reads every RowDescription afresh (Result#addFields: a parser lookup per field, a null-prototype row
 * copied into the row template), a visible share of validateToken's main thread in a CPU profile
 * (docs/performance.md "Figures that explain code choices"). A prepared
 * statement's description cannot change while it exists (PostgreSQL fails an execution whose result type
 * changed with 0A000, and the statement is prepared again under a new name), so the first execution's reader
 * serves every later one on the connection.
 */
class NamedQuery extends TimedQuery {
  callback?: (error: Error | undefined, result: QueryResult) => void;

  constructor(
    private readonly statement: PreparedStatement,
    text: string,
    values: unknown[] | undefined,
    types: CustomTypesConfig | undefined,
    timeoutMs: number,
    client: Client,
  ) {
    super(text, values, timeoutMs, client);
    const self = this as unknown as { name: string; types?: CustomTypesConfig } & QueryInternals;
    self.name = statement.name;
    // The result's parsers are chosen in the constructor (`new Result(rowMode, config.types)`); without types,
    // Client#query gives it the connection's own, as to any query.
    if (types) self._result._types = self.types = types;
  }

  handleRowDescription(message: { fields: FieldDef[] }): void {
    const self = this as unknown as QueryInternals;
    const result = self._result;
    const known = this.statement.rows;
    // The column count costs nothing to compare: a description that disagrees is read afresh rather than trusted.
    if (known && known.fields.length === message.fields.length) {
      result.fields = known.fields;
      result._parsers = known.parsers;
      result._prebuiltEmptyResultObject = known.emptyRow;
      self._accumulateRows = true; // as pg's own: a query with a callback keeps its rows
      return;
    }
    (Query.prototype as unknown as QueryInternals).handleRowDescription.call(this, message);
    this.statement.rows = { fields: result.fields, parsers: result._parsers, emptyRow: result._prebuiltEmptyResultObject };
  }
}

/**
 * The pg Client of the request pool (its `Client` option, given through TypeORM's `extra`; tenant-pool.ts's
 * pool honours it as pg's own does). A statement marked with `prepared()` runs as a named prepared
 * statement: the first use on this connection sends Parse, every later one only Bind and Execute, so
 * PostgreSQL skips parse analysis and rewriting. Names are a hash of the text and this connection's count
 * of preparations, so a name is never reused for another statement nor after its deallocation. The
 * connection keeps at most MAX_PREPARED_PER_CONNECTION statements; beyond that the least recently used are
 * deallocated when the connection goes back to the pool idle (never inside a request's transaction). A
 * new connection (a reconnect) starts with none. A statement PostgreSQL no longer has (26000) or whose
 * result type changed (0A000) is prepared again, once, outside a transaction (inside one the error has
 * already aborted it, and the caller sees it as any other).
 */
export class PreparedStatementsClient extends StatementTimeoutClient {
  /** Text → statement, least recently used first (a Map keeps insertion order; a use moves it to the end). */
  private readonly statements = new Map<string, PreparedStatement>();
  private readonly evicted: string[] = [];
  private preparations = 0;
  /** This connection's type parsers, but timestamptz's as JSON text (preparedForJson). */
  private readonly jsonTypes = {
    getTypeParser: (oid: number, format?: string) =>
      oid === TIMESTAMPTZ_OID && format !== 'binary' ? timestamptzJson : this.getTypeParser(oid, format as 'text'),
  };
  private releaseToPool?: (error?: Error | boolean) => void;

  /** Names of the statements this connection holds prepared, least recently used first (for tests). */
  get preparedNames(): string[] {
    return [...this.statements.values()].map((s) => s.name);
  }

  // pg's query() has many overloads (text, config object, Submittable, with or without a callback): every call
  // passes through unchanged but a marked text with a promise, which runs prepared. Patched onto the prototype
  // in the class body (private access) so that the overloads keep their types.
  static {
    const plain = StatementTimeoutClient.prototype.query as (...args: unknown[]) => unknown;
    PreparedStatementsClient.prototype.query = function (this: PreparedStatementsClient, ...args: unknown[]) {
      const [config, values, callback] = args;
      if (typeof config === 'string' && isMarked(config) && typeof values !== 'function' && callback === undefined) {
        return this.execute(config, values as unknown[] | undefined);
      }
      return plain.apply(this, args);
    } as Client['query'];
  }

  // pg-pool hands a checked-out connection its `release` by assignment (tenant-pool.ts wraps it again):
  // the moment the connection is given back is when it is idle, so evicted statements are deallocated then.
  get release(): ((error?: Error | boolean) => void) | undefined {
    return this.releaseToPool;
  }

  set release(giveBack: ((error?: Error | boolean) => void) | undefined) {
    this.releaseToPool =
      giveBack &&
      ((error?: Error | boolean) => {
        if (!error) this.deallocateEvicted();
        return giveBack(error);
      });
  }

  private async execute(text: string, values: unknown[] | undefined): Promise<QueryResult> {
    // Raw SQL: the caller's own marked statement (its repository says why), run under this connection's name for it.
    const types = text.startsWith(JSON_MARK) ? this.jsonTypes : undefined;
    const run = () =>
      new Promise<QueryResult>((resolve, reject) => {
        // Outside a transaction the statement timeout is set in the same round trip (statement-timeout.ts).
        const query = new NamedQuery(this.statementOf(text), text, values, types, this.statementTimeoutMs, this);
        query.callback = (error, result) => (error ? reject(error) : resolve(result));
        (Client.prototype.query as (query: Query) => unknown).call(this, query);
      });
    try {
      return await run();
    } catch (error) {
      Error.captureStackTrace(error as Error); // as pg's own promise does: the stack of the caller, not of the socket's read
      const code = (error as { code?: string }).code;
      if (!code || !STALE.has(code)) throw error;
      if (code === '26000') this.forgetAll();
      else this.forget(text);
      if (this.getTransactionStatus() !== 'I') throw error;
      return run();
    }
  }

  /** The statement of `text` on this connection, marked as the most recently used; evicts the least used beyond the limit. */
  private statementOf(text: string): PreparedStatement {
    let statement = this.statements.get(text);
    if (statement) {
      this.statements.delete(text);
    } else {
      const hash = createHash('sha1').update(text).digest('hex').slice(0, 16);
      statement = { name: `p_${hash}_${++this.preparations}` };
    }
    this.statements.set(text, statement);
    while (this.statements.size > MAX_PREPARED_PER_CONNECTION) {
      const [oldest, { name }] = this.statements.entries().next().value!;
      this.statements.delete(oldest);
      this.evicted.push(name);
    }
    return statement;
  }

  /** After 0A000: the statement exists but cannot serve its text any more; a new name prepares it again. */
  private forget(text: string): void {
    const statement = this.statements.get(text);
    if (!statement) return;
    this.statements.delete(text);
    this.evicted.push(statement.name);
  }

  /** After 26000: the session's statements are gone (DISCARD ALL, DEALLOCATE ALL); none is left to deallocate. */
  private forgetAll(): void {
    for (const { name } of this.statements.values()) this.forgetParsed(name);
    for (const name of this.evicted) this.forgetParsed(name);
    this.statements.clear();
    this.evicted.length = 0;
  }

  private deallocateEvicted(): void {
    if (!this.evicted.length || this.getTransactionStatus() !== 'I') return;
    const names = this.evicted.splice(0);
    for (const name of names) this.forgetParsed(name);
    // Raw SQL: DEALLOCATE has no TypeORM counterpart; the names are ours (`p_`, hex digits, a count). One statement
    // each (in one multi-statement query a name already gone would stop the rest), queued on this connection
    // before anything its next user sends; one that fails (the statement already gone) is harmless.
    // Sent as it is (no statement timeout around it: it is instant, and it must not open a transaction).
    const plain = Client.prototype.query as (text: string) => Promise<unknown>;
    for (const name of names) plain.call(this, `DEALLOCATE "${name}"`).catch(() => undefined);
  }

  /** pg's own record of the statements it parsed on this connection (it sends Parse only for names it lacks). */
  private forgetParsed(name: string): void {
    const connection = (this as unknown as { connection: { parsedStatements: Record<string, string> } }).connection;
    delete connection.parsedStatements[name];
  }
}
