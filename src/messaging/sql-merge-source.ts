import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import type { Statement } from 'pgsql-ast-parser';
import { ApiError } from '../common/api-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { quoteIdentifier as quote } from '../database/identifiers';
import { SchemaCatalog } from '../database/schema-catalog.service';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { messagingError } from './messaging.errors';
import { MergeData } from './placeholders';
import { TenantGate } from '../database/tenant-gate';

/** The SQL parser, loaded at the first merge query (only admins send one), not at start (~2 MB, ~30 ms). */
function sqlParser(): typeof import('pgsql-ast-parser') {
  return require('pgsql-ast-parser') as typeof import('pgsql-ast-parser');
}

/** application_name of the merge pool's connections (visible in pg_stat_activity). */
export const MERGE_APPLICATION_NAME = 'notification-sql-merge';

/** One connection to run a merge on: a client of the merge pool, or (embedded database) of the main pool. */
interface MergeConnection {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  release(broken: boolean): Promise<void>;
}

/**
 * The `SQL` merge source of /message/notification: query text written by a client, so it runs confined
 * (threat model in docs/messaging.md):
 * - off unless the tenant's core_sites.notification_sql_enabled is true (and the caller is an admin of
 *   the app: NotificationService checks that);
 * - parsed: exactly one plain SELECT (no WITH, no data-changing or utility statement), tables only from
 *   MERGE_TABLES, unqualified, functions and casts only from allow-lists, no bind parameters;
 * - what runs is the parsed tree printed back (never the client's text), with every allowed table
 *   shadowed by a CTE of the same name that holds only this tenant's rows and only non-secret columns;
 * - in a READ ONLY transaction with a statement timeout, rolled back, first row only;
 * - on its own small pool (NOTIFY_SQL_POOL_SIZE), never the main pool every other request uses, and at
 *   most NOTIFY_SQL_PER_APP merges of one app at once (TenantGate), so slow merges of one tenant cannot
 *   hold the connections of others.
 * Raw SQL by nature: the query's shape comes from the client's text and the tables it names.
 */
@Injectable()
export class SqlMergeSource implements OnApplicationShutdown {
  private readonly logger = new Logger(SqlMergeSource.name);
  private readonly gate: TenantGate;
  /** Null with the embedded database (PGlite serves one connection): merges then use the main pool's, still gated. */
  private readonly pool: Pool | null;

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly catalog: SchemaCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const n = config.notifications;
    this.gate = new TenantGate({ perApp: n.sqlPerApp, queue: n.sqlQueue, waitMs: n.sqlQueueWaitMs }, () => this.busy());
    this.pool = config.databaseUrl
      ? new Pool({
          connectionString: config.databaseUrl,
          max: n.sqlPoolSize,
          application_name: MERGE_APPLICATION_NAME,
          connectionTimeoutMillis: n.sqlQueueWaitMs,
          idleTimeoutMillis: 30_000,
        })
      : null;
    // An idle client that loses its connection emits here; without a listener that would end the process.
    this.pool?.on('error', (error) => this.logger.warn(`SQL merge pool connection lost: ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.end();
  }

  /** The first row of the client's SELECT, run as `appId`; 400 (field `SQL`) when it is refused or fails, 429 when the app's merges are busy. */
  async firstRow(scope: TransactionScope, appId: number, sql: string): Promise<MergeData | null> {
    const { statement, tables } = checkMergeQuery(sql);
    // The shadow CTEs are built before taking a connection: their column reads go through the scope (the
    // embedded database's one connection must not be held by the merge meanwhile).
    const ctes: string[] = [];
    try {
      for (const table of tables) ctes.push(`${quote(table)} AS (${await this.scopedSelect(scope, table)})`);
    } catch (error) {
      throw mergeFailure(error);
    }
    return this.gate.run(appId, async () => {
      const connection = await this.connect();
      let broken = false;
      try {
        // The row comes back as one JSON text, and only when it is at most MAX_ROW_BYTES: a value blown up with
        // lpad/format/replace stays inside PostgreSQL instead of travelling into this process and the mail.
        const query =
          `${ctes.length ? `WITH ${ctes.join(',\n')}\n` : ''}` +
          `SELECT CASE WHEN octet_length(merge_row) <= ${MAX_ROW_BYTES} THEN merge_row END AS merge_row FROM (` +
          `SELECT row_to_json(merge_source)::text AS merge_row FROM (\n${sqlParser().toSql.statement(statement)}\n) AS merge_source LIMIT 1) AS merge_first`;

        await connection.query('BEGIN TRANSACTION READ ONLY');
        await connection.query(`SET LOCAL statement_timeout = ${Math.trunc(this.config.notifications.sqlTimeoutMs)}`);
        // Unqualified names then find only the shadow CTEs (which name public.* themselves) and pg_catalog: a
        // table the check missed would be "does not exist" rather than the unscoped table.
        await connection.query('SET LOCAL search_path TO pg_catalog');
        const rows = (await connection.query(query, ctes.length ? [appId] : [])) as { merge_row: string | null }[]; // $1 appears only in the CTEs
        if (!rows[0]) return null;
        if (rows[0].merge_row === null) throw refused(`SQL result is larger than ${MAX_ROW_BYTES} bytes`);
        const row = JSON.parse(rows[0].merge_row) as unknown;
        return row !== null && typeof row === 'object' && !Array.isArray(row) ? (row as MergeData) : null;
      } catch (error) {
        throw mergeFailure(error);
      } finally {
        await connection.query('ROLLBACK').catch(() => (broken = true));
        await connection.release(broken);
      }
    });
  }

  private async connect(): Promise<MergeConnection> {
    if (!this.pool) {
      const runner = this.connection.dataSource.createQueryRunner();
      await runner.connect();
      return { query: (sql, params) => runner.query(sql, params), release: () => runner.release() };
    }
    const client = await this.pool.connect().catch((error: Error) => {
      // Every connection of the merge pool is busy with other apps' merges for as long as an app may wait.
      if (/timeout exceeded when trying to connect/i.test(error.message)) throw this.busy();
      throw error;
    });
    return {
      query: async (sql, params) => (await client.query(sql, params)).rows,
      release: async (broken) => client.release(broken),
    };
  }

  /** 429: the app's queue of merges is full, or a merge waited NOTIFY_SQL_QUEUE_WAIT_MS for its turn or for a connection. */
  private busy(): ApiError {
    return messagingError('SQL_MERGES_BUSY', {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(this.config.notifications.sqlTimeoutMs / 1000))) },
    });
  }

  /** SELECT of the readable columns of `table`, only the tenant's rows ($1 is the app id). */
  private async scopedSelect(scope: TransactionScope, table: string): Promise<string> {
    const spec = MERGE_TABLES[table];
    const columns = spec.columns === 'discover' ? await this.discover(scope, table) : spec.columns;
    if (!columns || columns.length === 0) throw ApiError.field('SQL', `Table ${table} cannot be used as a merge source`);
    return `SELECT ${columns.map(quote).join(', ')} FROM public.${quote(table)} WHERE ${quote(spec.tenantColumn)} = $1`;
  }

  /** Columns of another module's table (from the schema catalog): all but those whose names look secret; null when the table is absent. */
  private async discover(scope: TransactionScope, table: string): Promise<string[] | null> {
    const names = [...(await this.catalog.columnNames(scope, table))];
    if (!names.includes(MERGE_TABLES[table].tenantColumn)) return null;
    return names.filter((n) => !SECRET_COLUMN.test(n));
  }
}

interface MergeTable {
  tenantColumn: string;
  /** Readable columns, or 'discover': every column of the table except SECRET_COLUMN names. */
  columns: string[] | 'discover';
}

const ACCOUNT_COLUMNS = [
  'id',
  'email',
  'firstname',
  'lastname',
  'displayname',
  'description',
  'photourl',
  'emailverified',
  'mobile',
  'created',
  'updated',
];

/** The tables a merge query may read. Anything not here (other schemas, catalogs, log tables) is refused. */
export const MERGE_TABLES: Record<string, MergeTable> = {
  core_sites: {
    tenantColumn: 'id',
    columns: ['id', 'name', 'domain', 'logo', 'splash_logo', 'background', 'colour1', 'colour2', 'email_from'],
  },
  core_users: {
    tenantColumn: 'app_id',
    columns: ['id', 'user_email', 'primary_role', 'firstname', 'lastname', 'mobile', 'created', 'updated'],
  },
  core_customers: { tenantColumn: 'app_id', columns: ACCOUNT_COLUMNS },
  core_app_users: { tenantColumn: 'app_id', columns: ACCOUNT_COLUMNS },
  core_related: {
    tenantColumn: 'app_id',
    columns: ['id', 'parent_table', 'parent_id', 'name', 'linked', 'master_id', 'expires', 'created'],
  },
  core_folders: { tenantColumn: 'app_id', columns: ['id', 'name', 'description', 'created'] },
  core_orders: { tenantColumn: 'app_id', columns: 'discover' },
  core_order_items: { tenantColumn: 'app_id', columns: 'discover' },
  core_products: { tenantColumn: 'app_id', columns: 'discover' },
  core_tokens: { tenantColumn: 'app_id', columns: 'discover' },
};

const SECRET_COLUMN = /password|secret|private|key|token|hash|auth|p256dh|pushsubscription|sms_code/i;

/** Largest merge row (as JSON text) the SQL source hands back. */
const MAX_ROW_BYTES = 65_536;

/** Pure functions without side effects or access to anything but their arguments. */
const ALLOWED_FUNCTIONS = new Set([
  'lower',
  'upper',
  'initcap',
  'trim',
  'btrim',
  'ltrim',
  'rtrim',
  'length',
  'char_length',
  'substr',
  'substring',
  'replace',
  'left',
  'right',
  'lpad',
  'rpad',
  'concat',
  'concat_ws',
  'split_part',
  'position',
  'strpos',
  'format',
  'coalesce',
  'nullif',
  'greatest',
  'least',
  'round',
  'floor',
  'ceil',
  'ceiling',
  'abs',
  'trunc',
  'mod',
  'to_char',
  'to_date',
  'to_timestamp',
  'to_number',
  'date_trunc',
  'date_part',
  'extract',
  'age',
  'now',
  'current_date',
  'count',
  'sum',
  'min',
  'max',
  'avg',
  'string_agg',
  'array_agg',
  'bool_and',
  'bool_or',
  'json_build_object',
  'jsonb_build_object',
  'json_agg',
  'jsonb_agg',
]);

const ALLOWED_CASTS = new Set([
  'text',
  'varchar',
  'character varying',
  'char',
  'character',
  'int',
  'int2',
  'int4',
  'int8',
  'integer',
  'smallint',
  'bigint',
  'numeric',
  'decimal',
  'real',
  'float',
  'float4',
  'float8',
  'double precision',
  'boolean',
  'bool',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'timestamp with time zone',
  'timestamp without time zone',
  'interval',
  'json',
  'jsonb',
]);

/** AST node types a merge query may contain; anything else (including node types a newer parser adds) is refused. */
const ALLOWED_NODES = new Set([
  'select',
  'union',
  'union all',
  'values',
  'table',
  'statement',
  'ref',
  'list',
  'array',
  'array select',
  'null',
  'extract',
  'integer',
  'numeric',
  'string',
  'boolean',
  'case',
  'binary',
  'unary',
  'cast',
  'call',
  'ternary',
  'overlay',
  'substring',
  'member',
  'arrayIndex',
  'keyword',
  'INNER JOIN',
  'LEFT JOIN',
  'RIGHT JOIN',
  'FULL JOIN',
  'CROSS JOIN',
]);

/** Value keywords that name the time; current_user, current_schema and the like would describe the server. */
const ALLOWED_KEYWORDS = new Set(['current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp']);

/** Deeper trees are refused rather than walked (a stack overflow must not become a 500). */
const MAX_DEPTH = 200;

/**
 * Parses and checks a merge query; the parsed statement and the allowed tables it names.
 *
 * The check walks every property of every node of the parse tree (deny by default), not a visitor with
 * per-node callbacks: a visitor skips the parts it has no callback for (it skipped DISTINCT ON
 * expressions, which let a subquery read unshadowed tables). Every table, function, cast, keyword and
 * operator schema anywhere in the tree is checked, and unknown node types are refused.
 */
export function checkMergeQuery(sql: string): { statement: Statement; tables: Set<string> } {
  const { parse, toSql } = sqlParser();
  let statements: Statement[];
  try {
    statements = parse(sql);
  } catch {
    throw refused('SQL could not be parsed; it must be a single SELECT statement');
  }
  if (statements.length !== 1) throw refused('SQL must be exactly one SELECT statement');
  const [statement] = statements;
  if (statement.type === 'with' || statement.type === 'with recursive') throw refused('WITH is not allowed in SQL');
  if (statement.type !== 'select' && statement.type !== 'union' && statement.type !== 'union all') {
    throw refused('SQL must be a SELECT statement');
  }
  const tables = new Set<string>();
  try {
    inspect(statement, tables, 0);
    toSql.statement(statement); // must print back (it runs printed); a tree it cannot print is refused here
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw refused('SQL could not be parsed; it must be a single SELECT statement');
  }
  return { statement, tables };
}

function inspect(node: unknown, tables: Set<string>, depth: number): void {
  if (depth > MAX_DEPTH) throw refused('SQL is nested too deeply');
  if (Array.isArray(node)) {
    for (const item of node) inspect(item, tables, depth + 1);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const n = node as Record<string, unknown>;
  const type = n.type;
  if (type !== undefined) {
    if (typeof type !== 'string') throw refused('This construct is not allowed in SQL');
    checkNode(type, n, tables);
  }
  for (const [key, value] of Object.entries(n)) {
    if (key === '_location') continue;
    inspect(value, tables, depth + 1);
  }
}

function checkNode(type: string, n: Record<string, unknown>, tables: Set<string>): void {
  if (type === 'with' || type === 'with recursive') throw refused('WITH is not allowed in SQL');
  if (type === 'parameter') throw refused('Bind parameters are not allowed in SQL');
  if (!ALLOWED_NODES.has(type)) throw refused(`${type} is not allowed in SQL`);
  switch (type) {
    case 'select':
      if (n.for || n.skip) throw refused('Locking clauses are not allowed in SQL');
      for (const from of (n.from as { type?: string }[] | null | undefined) ?? []) {
        if (from.type === 'call') throw refused('Functions in FROM are not allowed in SQL');
        if (from.type !== 'table' && from.type !== 'statement') throw refused('This FROM item is not allowed in SQL');
      }
      break;
    case 'table': {
      const name = n.name as { name?: unknown; schema?: unknown };
      if (name.schema) throw refused('Schema-qualified table names are not allowed in SQL');
      if (typeof name.name !== 'string' || !Object.hasOwn(MERGE_TABLES, name.name)) {
        throw refused(`Table ${String(name.name)} is not available to SQL merge queries`);
      }
      tables.add(name.name);
      break;
    }
    case 'ref':
      if ((n.table as { schema?: unknown } | undefined)?.schema) throw refused('Schema-qualified names are not allowed in SQL');
      break;
    case 'call': {
      const fn = n.function as { name?: unknown; schema?: unknown };
      if (fn.schema || typeof fn.name !== 'string' || !ALLOWED_FUNCTIONS.has(fn.name.toLowerCase())) {
        throw refused(`Function ${String(fn.name)} is not allowed in SQL`);
      }
      break;
    }
    case 'cast': {
      const to = n.to as { kind?: unknown; name?: unknown; schema?: unknown };
      if (to.kind !== undefined || to.schema || typeof to.name !== 'string' || !ALLOWED_CASTS.has(to.name.toLowerCase())) {
        throw refused('This cast is not allowed in SQL');
      }
      break;
    }
    case 'keyword':
      if (typeof n.keyword !== 'string' || !ALLOWED_KEYWORDS.has(n.keyword)) throw refused(`${String(n.keyword)} is not allowed in SQL`);
      break;
    case 'binary':
    case 'unary':
      if (n.opSchema) throw refused('Schema-qualified operators are not allowed in SQL');
      break;
  }
}

function refused(message: string): ApiError {
  return ApiError.field('SQL', message);
}

function mergeFailure(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { driverError?: { code?: string }; code?: string }).driverError?.code ?? (error as { code?: string }).code ?? '';
  if (code === '57014') return refused('SQL exceeded its time limit');
  // Class 42 (undefined column, syntax, ...) and 22 (data exceptions) describe the query, not the server.
  if (code.startsWith('42') || code.startsWith('22') || code === '25006') {
    return refused(`SQL failed: ${(error as Error).message}`);
  }
  return refused('SQL failed');
}
