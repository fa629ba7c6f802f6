import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The notification log also carries the service's own mails (the shop's order mails), some of them plain
 * text: content_type says whether `body` is sent as HTML or as text.
 */
export class MailOutboxText1764000400000 implements MigrationInterface {
  name = 'MailOutboxText1764000400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE core_notification_log ADD COLUMN content_type varchar(10) NOT NULL DEFAULT 'html'
        CONSTRAINT core_notification_log_content_type_check CHECK (content_type IN ('html', 'text'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_notification_log DROP COLUMN content_type`);
  }
}
