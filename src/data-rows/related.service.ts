import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { isIdentifier } from '../database/identifiers';
import { DatabaseLock, lockRecord } from '../database/locks';
import { SchemaCatalogService } from '../database/schema-catalog.service';
import { TablePolicy } from '../database/table-policy';
import { TransactionalConnection } from '../database/transactional-connection';
import { Related, RelatedLinksService } from '../related';
import { ContentService, TableCatalogService } from '../versioning';
import { DataRowRepository } from './repositories/data-row.repository';

export interface RelatedLink {
  parent_table: string;
  parent_id: number;
  name: string;
  linked: number;
}

export interface RelatedRow extends RelatedLink {
  id: number;
  master_id: number | null;
  created: Date;
}

/**
 * POST /addrelated: a core_related link row of the caller's app, in the use case's transaction (the
 * endpoint is @Transactional()). The parent must be a record of the app: for a versioned table its id may
 * be the master id or any version id, and master_id is set to the record's master id (the stable id
 * relationships use).
 */
@Injectable()
export class RelatedService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly rows: DataRowRepository,
    private readonly catalog: TableCatalogService,
    private readonly schema: SchemaCatalogService,
    private readonly content: ContentService,
    private readonly links: RelatedLinksService,
  ) {}

  async add(ctx: RequestContext, link: RelatedLink, check: boolean): Promise<{ created: boolean; row: RelatedRow }> {
    if (!isIdentifier(link.parent_table) || !TablePolicy.isContentTable(link.parent_table))
      throw ApiError.field('data.parent_table', 'data.parent_table must be a table name');
    const table = await this.catalog.find(ctx, link.parent_table);
    let masterId: number | null = null;
    if (table && !table.live) {
      masterId = await this.content.masterIdOf(ctx, table.name, link.parent_id);
      if (masterId === null) throw ApiError.field('data.parent_id', `No record ${link.parent_id} in ${table.name}`);
    } else {
      const names = await this.schema.columnNames(ctx, link.parent_table);
      if (!names.has('id') || !names.has('app_id')) throw ApiError.field('data.parent_table', `Unknown table "${link.parent_table}"`);
      if (!(await this.rows.exists(ctx, link.parent_table, link.parent_id)))
        throw ApiError.field('data.parent_id', `No record ${link.parent_id} in ${link.parent_table}`);
    }

    const key = pick(link);
    if (check) {
      // Serializes checked adds of the same link, so two at once cannot both insert it. The two-key form
      // keeps these locks apart from the single-key locks of the migrations and the expiry tick.
      await lockRecord(
        this.connection.transactionManager(ctx),
        DatabaseLock.RelatedLink,
        `${ctx.appId}:${link.parent_table}:${link.parent_id}:${link.name}:${link.linked}`,
      );
      const existing = await this.links.first(ctx, key);
      if (existing) return { created: false, row: shown(existing) };
    }
    return { created: true, row: shown(await this.links.insert(ctx, { ...key, master_id: masterId })) };
  }
}

function pick(link: RelatedLink): RelatedLink {
  return { parent_table: link.parent_table, parent_id: link.parent_id, name: link.name, linked: link.linked };
}

/** A link as /addrelated answers it. */
function shown(row: Related): RelatedRow {
  return {
    id: row.id,
    parent_table: row.parent_table,
    parent_id: row.parent_id,
    name: row.name,
    linked: row.linked,
    master_id: row.master_id,
    created: row.created,
  };
}
