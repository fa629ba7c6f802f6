import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * core_products_app_idx (app_id) repeats the leading column of the five page indexes (app_id, column, id)
 * of ContentPageIndexes, which serve every lookup by app, the foreign key's checks included: it only cost
 * each product write one more index to maintain.
 */
export class DropProductAppIndex1764001000000 implements MigrationInterface {
  name = 'DropProductAppIndex1764001000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX core_products_app_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX core_products_app_idx ON core_products (app_id)`);
  }
}
