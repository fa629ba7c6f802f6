import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { quoteIdentifier } from '../../database/identifiers';
import { TransactionalConnection } from '../../database/transactional-connection';
import { CONTENT_STAGES, ContentStage, STAGE_SQL } from '../content-stages';
import { CoreData } from '../entities/core-data.entity';
import { RegisteredTable } from '../table-catalog.service';

export type StageCounts = Record<ContentStage, number>;

/** The content tables' records by stage (content-stages.ts), for the staff: counts and pages of rows. */
@Injectable()
export class ContentStageRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** How many records of each of `tables` the app has in each stage (one pass over the app's core_data rows of those tables). */
  async counts(ctx: RequestContext, tables: string[]): Promise<Map<string, StageCounts>> {
    const counts = new Map<string, StageCounts>(tables.map((table) => [table, { draft: 0, staged: 0, published: 0, expired: 0 }]));
    if (tables.length === 0) return counts;
    const qb = this.connection
      .repository(ctx, CoreData)
      .createQueryBuilder('d')
      .select('d.Source_Table', 'table')
      .where('d.Shop_ID = :appId AND d.Source_Table IN (:...tables)', { appId: ctx.appId, tables })
      .groupBy('d.Source_Table');
    for (const stage of CONTENT_STAGES)
      qb.addSelect(`count(${stage === 'staged' ? 'DISTINCT d."Master_ID"' : '*'}) FILTER (WHERE ${STAGE_SQL[stage]})`, stage);
    for (const row of await qb.getRawMany<Record<string, string>>())
      counts.set(row.table, Object.fromEntries(CONTENT_STAGES.map((stage) => [stage, Number(row[stage])])) as StageCounts);
    return counts;
  }

  /**
   * One page of the app's records of `table` in `stage`: the version's content row (its non-secret columns) with
   * the version's meta fields, the most recently updated first. Raw SQL: the table and its columns come from the
   * catalog (allow-listed, quoted), as in ContentRowRepository; every value is a bound parameter.
   */
  rows(
    ctx: RequestContext,
    table: RegisteredTable,
    stage: ContentStage,
    offset: number,
    limit: number,
  ): Promise<Record<string, unknown>[]> {
    const columns = [...table.columns.values()].filter((column) => !column.secret).map((column) => `c.${quoteIdentifier(column.name)}`);
    const versions =
      stage === 'staged'
        ? `(SELECT DISTINCT ON ("Master_ID") d.* FROM core_data d ` +
          `WHERE d."Shop_ID" = $1 AND d."Source_Table" = $2 AND ${STAGE_SQL.staged} ORDER BY "Master_ID", "ID" DESC)`
        : `(SELECT d.* FROM core_data d WHERE d."Shop_ID" = $1 AND d."Source_Table" = $2 AND ${STAGE_SQL[stage]})`;
    const sql =
      `SELECT ${columns.join(', ')}, v."Master_ID" AS meta_master_id, v."Current_ID" AS meta_current_id, v."Title" AS meta_title, ` +
      `v."Status" AS meta_status, v."Updated" AS meta_updated, v."Publish_Set_Date" AS meta_publish_set_date, ` +
      `v."Publish_Expire_Date" AS meta_publish_expire_date ` +
      `FROM ${versions} v JOIN ${quoteIdentifier(table.name)} c ON c."id" = v."Current_ID"${table.tenantColumn ? ' AND c."app_id" = $1' : ''} ` +
      `ORDER BY v."Updated" DESC, v."Master_ID" DESC LIMIT $3 OFFSET $4`;
    return this.connection.query(ctx, sql, [ctx.appId, table.name, limit, offset]);
  }
}
