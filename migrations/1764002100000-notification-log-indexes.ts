import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexesConcurrently, dropIndexes, IndexDefinition } from './concurrent-indexes';

/** The send log's indexes: name and definition. */
const INDEXES = [
  ['core_notification_log_app_created_idx', 'core_notification_log', '(app_id, created DESC, id DESC)'],
  ['core_notification_log_app_status_idx', 'core_notification_log', '(app_id, status, created DESC, id DESC)'],
  ['core_notification_log_app_email_idx', 'core_notification_log', '(app_id, lower(email), created DESC, id DESC)'],
  ['core_notification_log_app_event_idx', 'core_notification_log', '(app_id, event, created DESC, id DESC)'],
] as const satisfies readonly IndexDefinition[];

/**
 * The send log's indexes (README "Staff API: the send log"): every filter of POST /message/log is a column of an
 * index that starts with app_id and ends with (created DESC, id DESC), so a page walks about perPage index
 * entries from the cursor whatever the number of rows. The recipient filter is case-insensitive: its index is on
 * lower(email). core_notification_log_app_idx (app_id, created) is replaced by the newest-first index, which
 * covers what it served.
 *
 * Built CONCURRENTLY, outside a transaction: core_notification_log is the outbox every request that mails
 * writes to, and a plain CREATE INDEX would hold its writes for the whole build (seconds per million rows).
 * A build that failed half way leaves an INVALID index: it is dropped and built again when the migration runs again.
 */
export class NotificationLogIndexes1764002100000 implements MigrationInterface {
  name = 'NotificationLogIndexes1764002100000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await createIndexesConcurrently(q, INDEXES);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS core_notification_log_app_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS core_notification_log_app_idx ON core_notification_log (app_id, created)`);
    await dropIndexes(q, INDEXES);
  }
}
