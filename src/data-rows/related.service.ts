import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { DatabaseLock, lockRecord } from '../database/locks';
import { inTransaction } from '../database/transaction';
import { NEVER_CONTENT_TABLES, quoteIdent, TableCatalog } from '../versioning/table-catalog.service';

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

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * POST /addrelated: a core_related link row of the caller's app. The parent must be a record of the app:
 * for a versioned table its id may be the master id or any version id, and master_id is set to the
 * record's master id (the stable id relationships use).
 */
@Injectable()
export class RelatedService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly catalog: TableCatalog,
  ) {}

  async add(ctx: RequestContext, link: RelatedLink, check: boolean): Promise<{ created: boolean; row: RelatedRow }> {
    if (!IDENTIFIER.test(link.parent_table) || NEVER_CONTENT_TABLES.has(link.parent_table)) throw ApiError.field('data.parent_table', 'data.parent_table must be a table name');
    const table = await this.catalog.find(link.parent_table);
    return inTransaction(this.dataSource, async (em) => {
      let masterId: number | null = null;
      if (table && !table.live) {
        const rows: { Master_ID: number }[] = await em.query(
          `SELECT "Master_ID" FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = $2 AND ("Master_ID" = $3 OR "Current_ID" = $3) ORDER BY ("Master_ID" = $3) DESC LIMIT 1`,
          [ctx.appId, table.name, link.parent_id],
        );
        if (!rows[0]) throw ApiError.field('data.parent_id', `No record ${link.parent_id} in ${table.name}`);
        masterId = rows[0].Master_ID;
      } else {
        const columns: { column_name: string }[] = await em.query(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
          [link.parent_table],
        );
        const names = new Set(columns.map((c) => c.column_name));
        if (!names.has('id') || !names.has('app_id')) throw ApiError.field('data.parent_table', `Unknown table "${link.parent_table}"`);
        const rows = await em.query(`SELECT 1 FROM ${quoteIdent(link.parent_table)} WHERE id = $1 AND app_id = $2`, [link.parent_id, ctx.appId]);
        if (!rows[0]) throw ApiError.field('data.parent_id', `No record ${link.parent_id} in ${link.parent_table}`);
      }

      if (check) {
        // Serializes checked adds of the same link, so two at once cannot both insert it. The two-key form
        // keeps these locks apart from the single-key locks of the migrations and the expiry tick.
        await lockRecord(em, DatabaseLock.RelatedLink, `${ctx.appId}:${link.parent_table}:${link.parent_id}:${link.name}:${link.linked}`);
        const existing: RelatedRow[] = await em.query(
          `SELECT id, parent_table, parent_id, name, linked, master_id, created FROM core_related
            WHERE app_id = $1 AND parent_table = $2 AND parent_id = $3 AND name = $4 AND linked = $5 ORDER BY id LIMIT 1`,
          [ctx.appId, link.parent_table, link.parent_id, link.name, link.linked],
        );
        if (existing[0]) return { created: false, row: existing[0] };
      }
      const [row]: RelatedRow[] = await em.query(
        `INSERT INTO core_related (app_id, parent_table, parent_id, name, linked, master_id) VALUES ($1, $2, $3, $4, $5, $6)
         RETURNING id, parent_table, parent_id, name, linked, master_id, created`,
        [ctx.appId, link.parent_table, link.parent_id, link.name, link.linked, masterId],
      );
      return { created: true, row };
    });
  }
}
