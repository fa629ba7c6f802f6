import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexesConcurrently, dropIndexes, IndexDefinition } from './concurrent-indexes';

/** A customer with something to show (LISTED_CUSTOMER in src/auth/repositories/customer-directory.repository.ts, word for word). */
const LISTED = `(email IS NOT NULL OR mobile IS NOT NULL OR firstname IS NOT NULL OR lastname IS NOT NULL OR displayname IS NOT NULL)`;

/** The staff customer list's indexes: name and definition (the search's are CUSTOMER_SEARCH_COLUMNS' expressions). */
const INDEXES = [
  ['core_customers_app_created_idx', 'core_customers', `(app_id, created DESC, id DESC) WHERE ${LISTED}`],
  ['core_customers_app_email_search_idx', 'core_customers', `(app_id, lower(email) text_pattern_ops)`],
  ['core_customers_app_last_name_search_idx', 'core_customers', `(app_id, lower(lastname) text_pattern_ops)`],
  [
    'core_customers_app_name_search_idx',
    'core_customers',
    `(app_id, lower(COALESCE(firstname, '') || ' ' || COALESCE(lastname, '')) text_pattern_ops)`,
  ],
] as const satisfies readonly IndexDefinition[];

/**
 * POST /staff/customers (the staff console's customers): the app's customers newest first, guest placeholders
 * left out (a partial index of the rows listed: a page reads about perPage entries, however many guests a shop
 * has), and the search by the start of the email, the last name or "first last" (a btree on the lower-cased
 * text with text_pattern_ops, so `LIKE 'term%'` is an index range whatever the collation; app_id first).
 *
 * Built CONCURRENTLY, outside a transaction, as migrations 1764002100000 and 1764002200000 build theirs: every
 * guest order and sign-up writes core_customers and must not wait for the build. A build that failed half way
 * leaves an INVALID index: it is dropped and built again when the migration runs again.
 */
export class CustomerListIndexes1764002360000 implements MigrationInterface {
  name = 'CustomerListIndexes1764002360000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await createIndexesConcurrently(q, INDEXES);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndexes(q, INDEXES);
  }
}
