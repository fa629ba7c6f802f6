import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { isIdentifier, quoteIdentifier } from '../../database/identifiers';
import { preparedForJson } from '../../database/prepared-statements';
import { ReplicaReads } from '../../database/replica-reads';
import { TransactionalConnection } from '../../database/transactional-connection';
import { ReadScope, VersionVisibility } from '../../versioning';
import { RowQuery } from '../row-query';

type Row = Record<string, unknown>;

/** Page statement texts kept (pageStatement); the cache starts over beyond it. */
const MAX_PAGE_STATEMENTS = 1000;

/**
 * The rows of the registered tables as /getDataRows and /addrelated read them. Raw SQL: the statements'
 * shape comes from data (the registered table, its columns, the request's conditions); every identifier is
 * allow-listed and quoted, every value a bound parameter, and every statement names the context's app.
 */
@Injectable()
export class DataRowRepository {
  /** The text of recent page statements by everything it is made of (pageStatement). */
  private readonly pageStatements = new Map<string, string>();

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly replicas: ReplicaReads,
  ) {}

  /**
   * The rows of a checked query. A query with conditions of the request's runs unnamed, its values bound.
   * One without (the published page and its like) runs as a named prepared statement with every value
   * written in (pageSql): PostgreSQL plans a statement without parameters once, for those very values, and
   * reuses that plan, where a statement with parameters is planned again at every execution (about half the
   * database CPU of a page) or given a generic plan estimated for no app and page in particular.
   *
   * Published content (the public read, and the one read most) may come from a read replica
   * (ReplicaReads.publishedRows: not while the client's own writes are not replayed there); drafts, stages and raw
   * rows, the admins' reads, always come from the primary.
   */
  rows(ctx: RequestContext, query: RowQuery): Promise<Row[]> {
    if (this.replicas.enabled && query.mode === 'published') return this.publishedRows(ctx, query);
    if (hasConditions(query)) return this.connection.query<Row>(ctx, toSql(query), rowParams(ctx.appId, query));
    return this.connection.query<Row>(ctx, this.pageStatement(ctx.appId, query));
  }

  private publishedRows(ctx: RequestContext, query: RowQuery): Promise<Row[]> {
    const [sql, params] = hasConditions(query)
      ? [toSql(query), rowParams(ctx.appId, query)]
      : [this.pageStatement(ctx.appId, query), undefined];
    return this.replicas.publishedRows(ctx, sql, params, () => this.connection.query<Row>(ctx, sql, params));
  }

  /**
   * The page's statement text, built once per app, table, columns, order and page (a long text made of
   * many pieces) and then the same string each time, whose hash the prepared-statement lookup keeps.
   */
  private pageStatement(appId: number, query: RowQuery): string {
    const { table, mode, columns, order, limit, offset } = query;
    const key = `${appId}\0${table.name}\0${table.tenantColumn}\0${mode}\0${columns.join()}\0${order.join()}\0${limit}\0${offset}`;
    let sql = this.pageStatements.get(key);
    if (sql === undefined) {
      if (this.pageStatements.size >= MAX_PAGE_STATEMENTS) this.pageStatements.clear();
      sql = preparedForJson(pageSql(appId, query));
      this.pageStatements.set(key, sql);
    }
    return sql;
  }

  /** Whether the app has the row `id` in `table` (a table with `id` and `app_id`, checked against the schema catalog). */
  async exists(ctx: RequestContext, table: string, id: number): Promise<boolean> {
    const rows = await this.connection.query(ctx, `SELECT 1 FROM ${quoteIdentifier(table)} WHERE id = $1 AND app_id = $2`, [id, ctx.appId]);
    return rows.length > 0;
  }
}

/** The parameters of toSql(query): the app id, the table name, the query's own, then LIMIT and OFFSET. */
export function rowParams(appId: number, query: RowQuery): unknown[] {
  return [appId, query.table.name, ...query.params, query.limit, query.offset];
}

function hasConditions(query: RowQuery): boolean {
  return query.where.sql.length > 0 || query.params.length > 0;
}

/** How toSql writes the app, the table name, LIMIT and OFFSET: as parameters or as literals. */
interface FixedValues extends ReadScope {
  limit: string;
  offset: string;
}

/**
 * The SQL of a checked query. $1 = app id, $2 = table name, then the query's parameters, then LIMIT and
 * OFFSET (rowParams). Versioned reads take their rows, joins and meta fields from the versioning read model.
 */
export function toSql(query: RowQuery, fixed: FixedValues = boundValues(query)): string {
  const table = quoteIdentifier(query.table.name);
  const columns = query.columns.map((name) => `c.${quoteIdentifier(name)} AS ${quoteIdentifier(name)}`);
  const userWhere = query.where.sql.length ? [`(${query.where.sql.join(` ${query.where.join} `)})`] : [];
  const tail = `ORDER BY ${query.order.join(', ')} LIMIT ${fixed.limit} OFFSET ${fixed.offset}`;

  if (query.mode === 'appGrid') {
    const where = [`c."app_id" = ${fixed.appId}`, `${fixed.table}::text IS NOT NULL`, ...userWhere];
    return `SELECT ${columns.join(', ') || 'c."id"'} FROM ${table} c WHERE ${where.join(' AND ')} ${tail}`;
  }
  const from = VersionVisibility.from(query.mode, table, query.table.tenantColumn, fixed);
  const select = [...(hasIdSlot(query) ? [`NULL::text AS "_id"`] : []), ...VersionVisibility.metaSelect, ...columns].join(', ');
  const where = ['TRUE', ...userWhere].join(' AND ');
  if (!userWhere.length && query.offset >= DEFERRED_JOIN_OFFSET) return deferredJoin(query, fixed, table, select, from, where);
  return `SELECT ${select} FROM ${from} WHERE ${where} ${tail}`;
}

/**
 * From this OFFSET on, a versioned page finds its rows first by their ids and order keys alone, and only then
 * reads those rows whole (deferredJoin): deep pages cost PostgreSQL less CPU that way, shallow ones slightly
 * more (docs/performance.md "Figures that explain code choices").
 */
export const DEFERRED_JOIN_OFFSET = 400;

/**
 * A deep page as a deferred join: deep in a tenant's rows PostgreSQL joins all of them and sorts them to skip
 * OFFSET, and sorting ids and order keys instead of whole rows costs about a third less. The inner query is the
 * page itself (same FROM, filter, order, LIMIT and OFFSET); the outer one reads its rows by primary key (and app)
 * and puts them back in that order.
 */
function deferredJoin(query: RowQuery, fixed: FixedValues, table: string, select: string, from: string, where: string): string {
  const terms = query.order.map((term) => {
    const at = term.lastIndexOf(' ');
    return { sql: term.slice(0, at), direction: term.slice(at + 1) };
  });
  const keys = terms.map((term, i) => `${term.sql} AS "k${i}"`).join(', ');
  const page =
    `SELECT d."ID" AS "did", c."id" AS "cid", ${keys} FROM ${from} WHERE ${where} ` +
    `ORDER BY ${query.order.join(', ')} LIMIT ${fixed.limit} OFFSET ${fixed.offset}`;
  const byApp = query.table.tenantColumn ? ` AND c."app_id" = ${fixed.appId}` : '';
  const order = terms.map((term, i) => `p."k${i}" ${term.direction}`).join(', ');
  return `SELECT ${select} FROM (${page}) p JOIN core_data d ON d."ID" = p."did" JOIN ${table} c ON c."id" = p."cid"${byApp} ORDER BY ${order}`;
}

/**
 * Whether a versioned read's rows come with an `_id` column, null, first: the caller writes the encrypted id
 * into it, and the row keeps `_id` as its first key without being copied. Not when the table has its own `_id`.
 */
export function hasIdSlot(query: RowQuery): boolean {
  return query.mode !== 'appGrid' && !query.columns.includes('_id');
}

function boundValues(query: RowQuery): FixedValues {
  const limit = query.params.length + 3;
  return { appId: '$1', table: '$2', limit: `$${limit}`, offset: `$${limit + 1}` };
}

/**
 * The SQL of a checked query without parameters of its own, with the app id, table name, LIMIT and OFFSET
 * written in: one statement per app, shape and page. Integers checked as integers; the table name is a
 * catalog identifier (letters, digits, underscores), so it needs no escaping inside quotes.
 */
export function pageSql(appId: number, query: RowQuery): string {
  if (hasConditions(query)) throw new Error('pageSql takes a query without conditions');
  return toSql(query, {
    appId: integerLiteral(appId),
    table: identifierLiteral(query.table.name),
    limit: integerLiteral(query.limit),
    offset: integerLiteral(query.offset),
  });
}

function identifierLiteral(name: string): string {
  if (!isIdentifier(name)) throw new Error(`Unsafe identifier ${name}`);
  return `'${name}'`;
}

function integerLiteral(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`Not an integer: ${value}`);
  return String(value);
}
