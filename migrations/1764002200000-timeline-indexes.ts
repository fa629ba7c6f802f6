import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexesConcurrently, dropIndexes, IndexDefinition } from './concurrent-indexes';

/** The order timeline's indexes: name, table and definition. */
const INDEXES = [
  ['core_payment_events_order_idx', 'core_payment_events', '(order_id)'],
  ['core_notification_log_linked_idx', 'core_notification_log', '(app_id, linked_table, master_id)'],
] as const satisfies readonly IndexDefinition[];

/**
 * The order timeline (POST /ecommerce/orderTimeline) reads an order's payment events and the mails written about
 * it: each through an index on the order, instead of the app's whole inbox or send log.
 *
 * Built CONCURRENTLY, outside a transaction, as migration 1764002100000 builds the send log's: both tables take
 * writes on the paths that must not wait (the payment inbox records provider events, the outbox every mail).
 * A build that failed half way leaves an INVALID index: it is dropped and built again when the migration runs again.
 */
export class TimelineIndexes1764002200000 implements MigrationInterface {
  name = 'TimelineIndexes1764002200000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await createIndexesConcurrently(q, INDEXES);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndexes(q, INDEXES);
  }
}
