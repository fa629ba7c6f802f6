import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { IdCipherService } from '../common/id-cipher.service';
import { RequestContext } from '../common/request-context';
import { requireAdmin } from '../common/require-admin';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { TablePolicy } from '../database/table-policy';
import { clientDataError, TableCatalogService } from '../versioning';
import { DataRowRepository, hasIdSlot } from './repositories/data-row.repository';
import { buildRowQuery, readMode, RowQuery, RowRequest } from './row-query';

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
    private readonly repository: DataRowRepository,
    private readonly catalog: TableCatalogService,
    private readonly cipher: IdCipherService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async getDataRows(ctx: RequestContext, request: RowRequest): Promise<DataRowsResult> {
    const table = await this.catalog.require(ctx, request.table);
    const mode = readMode(request);
    // Drafts and raw rows are for the app's admins only, and so are the account tables in every mode:
    // their rows (emails, roles, phone numbers) are never public, whatever a fixture set as meta_status.
    if (mode === 'appGrid' || mode === 'live' || TablePolicy.isAccountTable(table.name)) requireAdmin(ctx, 'content.view');
    if (mode === 'appGrid' && !table.tenantColumn)
      throw ApiError.field('table', `"${table.name}" has no app column and cannot be read raw`);
    const query = buildRowQuery(request, table, mode, { maxPerPage: this.config.content.maxPerPage, maxRows: this.config.content.maxRows });

    let rows: Record<string, unknown>[];
    try {
      rows = await this.repository.rows(ctx, query);
    } catch (error) {
      throw clientDataError(error, 'whereConditions') ?? error;
    }
    const hasMore = query.paging !== null && rows.length > query.paging.perPage;
    if (hasMore) rows = rows.slice(0, query.paging!.perPage);
    const data = mode === 'appGrid' ? rows : this.withIds(ctx, query, rows);
    if (query.record) return { data: data[0] ?? null };
    return query.paging ? { data, paging: { ...query.paging, hasMore } } : { data };
  }

  /** Versioned rows with their encrypted record id as `_id`, the first key. */
  private withIds(ctx: RequestContext, query: RowQuery, rows: Record<string, unknown>[]): Record<string, unknown>[] {
    const encrypted = (row: Record<string, unknown>) => this.cipher.encryptId(ctx.appId, row.meta_master_id as number);
    if (!hasIdSlot(query)) return rows.map((row) => ({ _id: encrypted(row), ...row }));
    for (const row of rows) row._id = encrypted(row);
    return rows;
  }
}
