import { MigrationInterface, QueryRunner } from 'typeorm';

/** The orders tenants page their products by; each index serves ASC (walked forwards) and DESC (backwards). */
const ORDERED_COLUMNS = ['title', 'created', 'updated', 'sort_order', 'price'];

/**
 * A /getDataRows page ordered by one of these columns walks the tenant's content rows in order on
 * (app_id, column, id) — id being the tie-breaker the query builder appends (meta_current_id) — and
 * joins each to its core_data row through core_data_version_uq, stopping after OFFSET + LIMIT rows:
 * its cost no longer grows with the number of rows the tenant has.
 */
export class ContentPageIndexes1764000900000 implements MigrationInterface {
  name = 'ContentPageIndexes1764000900000';

  async up(q: QueryRunner): Promise<void> {
    for (const column of ORDERED_COLUMNS)
      await q.query(`CREATE INDEX core_products_app_${column}_idx ON core_products (app_id, ${column}, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const column of ORDERED_COLUMNS) await q.query(`DROP INDEX core_products_app_${column}_idx`);
  }
}
