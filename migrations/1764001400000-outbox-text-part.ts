import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * core_notification_log.text_body: the plain-text alternative of an HTML outbox mail. The service's own mails
 * with both parts (the password reset link) leave through the outbox like every other mail, and keep their
 * text part.
 */
export class OutboxTextPart1764001400000 implements MigrationInterface {
  name = 'OutboxTextPart1764001400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_notification_log ADD COLUMN text_body text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_notification_log DROP COLUMN text_body`);
  }
}
