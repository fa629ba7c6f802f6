import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { quoteIdentifier } from '../../database/identifiers';
import { prepared } from '../../database/prepared-statements';
import { TransactionalConnection } from '../../database/transactional-connection';
import { VersionVisibility } from '../../versioning';
import { RowQuery } from '../row-query';

type Row = Record<string, unknown>;

/**
 * The rows of the registered tables as /getDataRows and /addrelated read them. Raw SQL: the statements'
 * shape comes from data (the registered table, its columns, the request's conditions); every identifier is
 * allow-listed and quoted, every value a bound parameter, and every statement names the context's app.
 */
@Injectable()
export class DataRowsRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /**
   * The rows of a checked query. A query without conditions of the request's (the published page and its
   * like: one statement per table, columns, order and reading) runs as a named prepared statement, parsed
   * once per connection. Queries with conditions stay unnamed: after five executions PostgreSQL may switch a
   * prepared statement to a generic plan, estimated for an average value rather than the request's own.
   */
  rows(ctx: RequestContext, query: RowQuery): Promise<Row[]> {
    const sql = toSql(query);
    return this.connection.manager(ctx).query(query.where.sql.length ? sql : prepared(sql), rowParams(ctx.appId, query));
  }

  /** Whether the app has the row `id` in `table` (a table with `id` and `app_id`, checked against the schema catalog). */
  async exists(ctx: RequestContext, table: string, id: number): Promise<boolean> {
    const rows: unknown[] = await this.connection
      .manager(ctx)
      .query(`SELECT 1 FROM ${quoteIdentifier(table)} WHERE id = $1 AND app_id = $2`, [id, ctx.appId]);
    return rows.length > 0;
  }
}

/** The parameters of toSql(query): the app id, the table name, the query's own, then LIMIT and OFFSET. */
export function rowParams(appId: number, query: RowQuery): unknown[] {
  return [appId, query.table.name, ...query.params, query.limit, query.offset];
}

/**
 * The SQL of a checked query. $1 = app id, $2 = table name, then the query's parameters, then LIMIT and
 * OFFSET (rowParams), so that every page of one shape is one statement. Versioned reads take their rows,
 * joins and meta fields from the versioning read model.
 */
export function toSql(query: RowQuery): string {
  const table = quoteIdentifier(query.table.name);
  const columns = query.columns.map((name) => `c.${quoteIdentifier(name)} AS ${quoteIdentifier(name)}`);
  const userWhere = query.where.sql.length ? [`(${query.where.sql.join(` ${query.where.join} `)})`] : [];
  const limit = query.params.length + 3;
  const tail = `ORDER BY ${query.order.join(', ')} LIMIT $${limit} OFFSET $${limit + 1}`;

  if (query.mode === 'appGrid') {
    const where = ['c."app_id" = $1', '$2::text IS NOT NULL', ...userWhere];
    return `SELECT ${columns.join(', ') || 'c."id"'} FROM ${table} c WHERE ${where.join(' AND ')} ${tail}`;
  }
  const from = VersionVisibility.from(query.mode, table, query.table.tenantColumn);
  return `SELECT ${[...VersionVisibility.metaSelect, ...columns].join(', ')} FROM ${from} WHERE ${['TRUE', ...userWhere].join(' AND ')} ${tail}`;
}
