import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexesConcurrently, dropIndexes, IndexDefinition } from './concurrent-indexes';

/** listTokens' indexes: name and definition. */
const INDEXES = [
  ['core_tokens_app_id_idx', 'core_tokens', '(app_id, id DESC)'],
  ['core_tokens_app_order_idx', 'core_tokens', '(app_id, order_id, id DESC)'],
  ['core_tokens_app_product_idx', 'core_tokens', '(app_id, product_id, id DESC)'],
] as const satisfies readonly IndexDefinition[];

/**
 * POST /ecommerce/listTokens (the staff console's access tokens): the app's tokens newest first, by order or by
 * product version, each through an index that starts with app_id (by customer: core_tokens_app_customer_idx,
 * since the tokens migration), instead of the whole table. The order's index also serves the expiry of an
 * order's tokens (a refund in full, a cancel, a dispute lost).
 *
 * Built CONCURRENTLY, outside a transaction, as migrations 1764002100000 and 1764002200000 build theirs: order
 * completion writes core_tokens and must not wait for the build. A build that failed half way leaves an
 * INVALID index: it is dropped and built again when the migration runs again.
 */
export class TokenListIndexes1764002370000 implements MigrationInterface {
  name = 'TokenListIndexes1764002370000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await createIndexesConcurrently(q, INDEXES);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndexes(q, INDEXES);
  }
}
