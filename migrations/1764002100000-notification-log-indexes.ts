import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The send log's indexes (README "Staff API: the send log"): every filter of POST /message/log is a column of an
 * index that starts with app_id and ends with (created DESC, id DESC), so a page walks about perPage index
 * entries from the cursor whatever the number of rows. The recipient filter is case-insensitive: its index is on
 * lower(email). core_notification_log_app_idx (app_id, created) is replaced by the newest-first index, which
 * covers what it served.
 */
export class NotificationLogIndexes1764002100000 implements MigrationInterface {
  name = 'NotificationLogIndexes1764002100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX core_notification_log_app_created_idx ON core_notification_log (app_id, created DESC, id DESC)`);
    await q.query(`CREATE INDEX core_notification_log_app_status_idx ON core_notification_log (app_id, status, created DESC, id DESC)`);
    await q.query(
      `CREATE INDEX core_notification_log_app_email_idx ON core_notification_log (app_id, lower(email), created DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX core_notification_log_app_event_idx ON core_notification_log (app_id, event, created DESC, id DESC)`);
    await q.query(`DROP INDEX core_notification_log_app_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX core_notification_log_app_idx ON core_notification_log (app_id, created)`);
    await q.query(`DROP INDEX core_notification_log_app_event_idx`);
    await q.query(`DROP INDEX core_notification_log_app_email_idx`);
    await q.query(`DROP INDEX core_notification_log_app_status_idx`);
    await q.query(`DROP INDEX core_notification_log_app_created_idx`);
  }
}
