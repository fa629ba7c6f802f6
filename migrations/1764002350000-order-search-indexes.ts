import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexesConcurrently, dropIndexes, IndexDefinition } from './concurrent-indexes';

/** listOrders' search indexes: name and definition (the expressions of ORDER_SEARCH_COLUMNS in src/orders/repositories/order.repository.ts). */
const INDEXES = [
  ['core_orders_app_email_search_idx', 'core_orders', `(app_id, lower("BillingEmail") text_pattern_ops)`],
  ['core_orders_app_last_name_search_idx', 'core_orders', `(app_id, lower("BillingLastName") text_pattern_ops)`],
  [
    'core_orders_app_name_search_idx',
    'core_orders',
    `(app_id, lower(COALESCE("BillingFirstName", '') || ' ' || COALESCE("BillingLastName", '')) text_pattern_ops)`,
  ],
] as const satisfies readonly IndexDefinition[];

/**
 * POST /ecommerce/listOrders `search` (the staff console's order search): the start of the billing email, of
 * the last name, or of "first last", without regard to case. A btree on the lower-cased text with
 * text_pattern_ops makes `LIKE 'term%'` an index range whatever the database's collation; app_id first keeps
 * one tenant's search inside its own orders. (pg_trgm would also find substrings, but it is an extension the
 * database role may not create, and the embedded database would have to load it.)
 *
 * Built CONCURRENTLY, outside a transaction, as migrations 1764002100000 and 1764002200000 build theirs:
 * core_orders takes the writes of checkout and the payment inbox, which must not wait for the build. A build
 * that failed half way leaves an INVALID index: it is dropped and built again when the migration runs again.
 */
export class OrderSearchIndexes1764002350000 implements MigrationInterface {
  name = 'OrderSearchIndexes1764002350000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await createIndexesConcurrently(q, INDEXES);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndexes(q, INDEXES);
  }
}
