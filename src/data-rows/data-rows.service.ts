import { Inject, Injectable } from '@nestjs/common';
import { isAppAdmin, isAuthTable } from '../auth';
import { ApiError } from '../common/api-error';
import { IdCipher } from '../common/id-cipher.service';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { quoteIdentifier } from '../database/identifiers';
import { TransactionalConnection } from '../database/transactional-connection';
import { clientDataError, TableCatalog } from '../versioning';
import { buildRowQuery, ReadMode, readMode, RowQuery } from './row-query';

/** Visible in preview or live (SPEC "Reading by lifecycle stage"): the same date and expiry rules for both. */
const VISIBLE_NOW = `"Publish_Set_Date" <= now() AND ("Publish_Expire_Date" > now() OR "Publish_Expire_Date" IS NULL) AND "IsExpired" <> 1`;

export interface DataRowsResult {
  data: Record<string, unknown>[] | Record<string, unknown> | null;
  paging?: { page: number; perPage: number; hasMore: boolean };
}

/**
 * POST /getDataRows: a generic read of one registered table of the caller's app. Identifiers come only
 * from the table catalog (registered tables, their non-secret columns) and are quoted; every value is a
 * bound parameter; rows always come from the caller's app.
 */
@Injectable()
export class DataRowsService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly catalog: TableCatalog,
    private readonly cipher: IdCipher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async getDataRows(ctx: RequestContext, body: Record<string, unknown>): Promise<DataRowsResult> {
    const table = await this.catalog.require(ctx, body.table);
    const mode = readMode(body);
    // Drafts and raw rows are for the app's admins only, and so are the account tables in every mode:
    // their rows (emails, roles, phone numbers) are never public, whatever a fixture set as meta_status.
    if (mode === 'appGrid' || mode === 'live' || isAuthTable(table.name)) this.requireAdmin(ctx);
    if (mode === 'appGrid' && !table.tenantColumn)
      throw ApiError.field('table', `"${table.name}" has no app column and cannot be read raw`);
    const query = buildRowQuery(body, table, mode, { maxPerPage: this.config.content.maxPerPage, maxRows: this.config.content.maxRows });

    let rows: Record<string, unknown>[];
    try {
      // Raw SQL: the query's shape comes from data (the registered table, its columns, the request's conditions).
      rows = await this.connection.manager(ctx).query(toSql(query), [ctx.appId, table.name, ...query.params]);
    } catch (error) {
      throw clientDataError(error, 'whereConditions') ?? error;
    }
    const hasMore = query.paging !== null && rows.length > query.paging.perPage;
    if (hasMore) rows = rows.slice(0, query.paging!.perPage);
    const data =
      mode === 'appGrid' ? rows : rows.map((row) => ({ _id: this.cipher.encryptId(ctx.appId, row.meta_master_id as number), ...row }));
    if (query.record) return { data: data[0] ?? null };
    return query.paging ? { data, paging: { ...query.paging, hasMore } } : { data };
  }

  /** An admin of this app (the bearer guard read the account's role at this request). */
  private requireAdmin(ctx: RequestContext): void {
    if (!ctx.principal) throw ApiError.unauthorized();
    if (!isAppAdmin(ctx.principal)) throw ApiError.forbidden();
  }
}

/** The SQL of a checked query. $1 = app id, $2 = table name, then the query's parameters. */
export function toSql(query: RowQuery): string {
  const table = quoteIdentifier(query.table.name);
  const columns = query.columns.map((name) => `c.${quoteIdentifier(name)} AS ${quoteIdentifier(name)}`);
  const userWhere = query.where.sql.length ? [`(${query.where.sql.join(` ${query.where.join} `)})`] : [];
  const tail = `ORDER BY ${query.order.join(', ')} LIMIT ${query.limit} OFFSET ${query.offset}`;

  if (query.mode === 'appGrid') {
    const where = ['c."app_id" = $1', '$2::text IS NOT NULL', ...userWhere];
    return `SELECT ${columns.join(', ') || 'c."id"'} FROM ${table} c WHERE ${where.join(' AND ')} ${tail}`;
  }
  const meta = [
    'd."Master_ID" AS meta_master_id',
    'd."Current_ID" AS meta_current_id',
    'd."Title" AS meta_title',
    'd."Status" AS meta_status',
    'd."Updated" AS meta_updated',
  ];
  const join = `JOIN ${table} c ON c."id" = d."Current_ID"${query.table.tenantColumn ? ' AND c."app_id" = $1' : ''}`;
  return `SELECT ${[...meta, ...columns].join(', ')} FROM ${versionsFor(query.mode)} ${join} WHERE ${['TRUE', ...userWhere].join(' AND ')} ${tail}`;
}

/** The core_data rows a mode reads, as relation `d`. */
function versionsFor(mode: Exclude<ReadMode, 'appGrid'>): string {
  const scope = `"Shop_ID" = $1 AND "Source_Table" = $2`;
  switch (mode) {
    case 'live':
      return `(SELECT * FROM core_data WHERE ${scope} AND "IsCurrent" = 1) d`;
    case 'stage':
      // Preview shows one version per record: the newest staged one that is visible now.
      return `(SELECT DISTINCT ON ("Master_ID") * FROM core_data WHERE ${scope} AND "Staged" = 1 AND ${VISIBLE_NOW} ORDER BY "Master_ID", "ID" DESC) d`;
    case 'published':
      return `(SELECT * FROM core_data WHERE ${scope} AND "Published" = 1 AND ${VISIBLE_NOW}) d`;
  }
}
