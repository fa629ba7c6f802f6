import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every INSERT into core_notification_log is announced on the channel `core_notification_queued` (no
 * payload), so that the sender of every instance wakes at once instead of at its next poll, whoever queued
 * the row (this instance or another, the CLI, an operator's SQL). PostgreSQL delivers a notification at
 * commit, once per transaction and channel: a rolled-back insert wakes nobody, and a transaction that queues
 * several rows (the two order mails) wakes each sender once.
 */
export class NotificationQueued1764001000000 implements MigrationInterface {
  name = 'NotificationQueued1764001000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION core_notification_log_notify_queued() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('core_notification_queued', '');
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER core_notification_queued AFTER INSERT ON core_notification_log FOR EACH STATEMENT EXECUTE FUNCTION core_notification_log_notify_queued()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER core_notification_queued ON core_notification_log`);
    await q.query(`DROP FUNCTION core_notification_log_notify_queued()`);
  }
}
