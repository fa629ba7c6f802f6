import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { IdCipherService } from '../common/id-cipher.service';
import { pageAnswer, pageOf } from '../common/list-fields';
import { RequestContext } from '../common/request-context';
import { TablePolicy } from '../database/table-policy';
import { ContentStage } from './content-stages';
import { NOT_WRITABLE } from './content.service';
import { ContentStageRepository, StageCounts } from './repositories/content-stage.repository';
import { CatalogColumn, ColumnKind, RegisteredTable, TableCatalogService } from './table-catalog.service';

/** A column a form can edit (/content/create and /content/edit take it). */
export interface EditableColumn {
  name: string;
  kind: ColumnKind;
  nullable: boolean;
  maxLength: number | null;
}

export interface ContentTableView {
  table: string;
  live: boolean;
  titleField: string | null;
  stages: StageCounts;
  columns: EditableColumn[];
}

/**
 * The app's content tables for its staff (README "Staff API: content tables"): the tables /getDataRows and
 * /content/* reach (registered in core_tables, content by the table policy), without the account tables, which
 * change through the account routes; each with its records by stage and the columns a form can edit.
 */
@Injectable()
export class ContentTablesService {
  constructor(
    private readonly catalog: TableCatalogService,
    private readonly stages: ContentStageRepository,
    private readonly cipher: IdCipherService,
  ) {}

  async tables(ctx: RequestContext): Promise<ContentTableView[]> {
    const tables = (await this.catalog.list(ctx)).filter((table) => !TablePolicy.isAccountTable(table.name));
    const counts = await this.stages.counts(
      ctx,
      tables.map((table) => table.name),
    );
    return tables.map((table) => ({
      table: table.name,
      live: table.live,
      titleField: table.titleField,
      stages: counts.get(table.name)!,
      columns: [...table.columns.values()].filter(editable).map(columnView),
    }));
  }

  /** One page of the app's records of `tableName` in `stage`, each with its encrypted record id `_id` first. */
  async rows(ctx: RequestContext, tableName: string, stage: ContentStage, paging: { page?: number; perPage?: number }) {
    const table = await this.contentTable(ctx, tableName);
    const page = pageOf(paging);
    const rows = await this.stages.rows(ctx, table, stage, page.offset, page.limit);
    return pageAnswer(
      rows.map((row) => ({ _id: this.cipher.encryptId(ctx.appId, row.meta_master_id as number), ...row })),
      page,
    );
  }

  /** A registered content table that is not an account table, or 400 naming `table`. */
  private async contentTable(ctx: RequestContext, name: string): Promise<RegisteredTable> {
    const table = await this.catalog.require(ctx, name);
    if (TablePolicy.isAccountTable(table.name))
      throw ApiError.field('table', `"${table.name}" is an account table: its rows are reached through the account routes`);
    return table;
  }
}

function editable(column: CatalogColumn): boolean {
  return !column.secret && !NOT_WRITABLE.has(column.name);
}

function columnView(column: CatalogColumn): EditableColumn {
  return { name: column.name, kind: column.kind, nullable: column.nullable, maxLength: column.maxLength ?? null };
}
