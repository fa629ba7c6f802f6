import { Inject, Injectable } from '@nestjs/common';
import type { Statement } from 'pgsql-ast-parser';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SchemaCatalogService } from '../database/schema-catalog.service';
import { TenantGate } from '../database/tenant-gate';
import { messagingError } from './messaging.errors';
import { MergeData } from './placeholders';
import { MAX_ROW_BYTES, MergePoolBusy, shadowCte, SqlMergeRepository } from './repositories/sql-merge.repository';

/** The SQL parser, loaded at the first merge query (only admins send one), not at start (its heap and load time). */
function sqlParser(): typeof import('pgsql-ast-parser') {
  return require('pgsql-ast-parser') as typeof import('pgsql-ast-parser');
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
 * - on its own small pool (SqlMergeRepository), and at most NOTIFY_SQL_PER_APP merges of one app at once
 *   (TenantGate), so slow merges of one tenant cannot hold the connections of others.
 */
@Injectable()
export class SqlMergeSource {
  private readonly gate: TenantGate;

  constructor(
    private readonly merges: SqlMergeRepository,
    private readonly catalog: SchemaCatalogService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const n = config.notifications;
    this.gate = new TenantGate({ perApp: n.sqlPerApp, queue: n.sqlQueue, waitMs: n.sqlQueueWaitMs }, () => this.busy());
  }

  /** The first row of the client's SELECT, run as `ctx`'s app; 400 (field `SQL`) when it is refused or fails, 429 when the app's merges are busy. */
  async firstRow(ctx: RequestContext, sql: string): Promise<MergeData | null> {
    const { statement, tables } = checkMergeQuery(sql);
    // The shadow CTEs are built before taking a connection: their column reads go through the context (the
    // embedded database's one connection must not be held by the merge meanwhile).
    const ctes: string[] = [];
    try {
      for (const table of tables) ctes.push(await this.shadow(ctx, table));
    } catch (error) {
      throw mergeFailure(error);
    }
    return this.gate.run(ctx.appId, async () => {
      const session = await this.merges.open().catch((error: unknown) => {
        throw error instanceof MergePoolBusy ? this.busy() : error;
      });
      try {
        const json = await session.firstRowJson(ctx, ctes, sqlParser().toSql.statement(statement));
        if (json === undefined) return null;
        if (json === null) throw refused(`SQL result is larger than ${MAX_ROW_BYTES} bytes`);
        const row = JSON.parse(json) as unknown;
        return row !== null && typeof row === 'object' && !Array.isArray(row) ? (row as MergeData) : null;
      } catch (error) {
        throw mergeFailure(error);
      } finally {
        await session.close();
      }
    });
  }

  /** 429: the app's queue of merges is full, or a merge waited NOTIFY_SQL_QUEUE_WAIT_MS for its turn or for a connection. */
  private busy(): ApiError {
    return messagingError('SQL_MERGES_BUSY', {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(this.config.notifications.sqlTimeoutMs / 1000))) },
    });
  }

  /** The CTE shadowing `table`: its readable columns, only the tenant's rows. */
  private async shadow(ctx: RequestContext, table: string): Promise<string> {
    const spec = MERGE_TABLES[table];
    const columns = spec.columns === 'discover' ? await this.discover(ctx, table) : spec.columns;
    if (!columns || columns.length === 0) throw ApiError.field('SQL', `Table ${table} cannot be used as a merge source`);
    return shadowCte(table, columns, spec.tenantColumn);
  }

  /** Columns of another module's table (from the schema catalog): all but those whose names look secret; null when the table is absent. */
  private async discover(ctx: RequestContext, table: string): Promise<string[] | null> {
    const names = [...(await this.catalog.columnNames(ctx, table))];
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
