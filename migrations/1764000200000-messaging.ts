import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Messaging tables: notification templates (core_notifications, one event name per app) and the
 * notification log (core_notification_log). The log row is also the outbox: it carries the mail as merged
 * at request time, and the background sender claims, sends and settles it.
 */
export class Messaging1764000200000 implements MigrationInterface {
  name = 'Messaging1764000200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_notifications (
        id        serial PRIMARY KEY,
        app_id    integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        event     varchar(100) NOT NULL,
        enabled   boolean NOT NULL DEFAULT true,
        subject   varchar(500) NOT NULL DEFAULT '',
        content   text NOT NULL DEFAULT '',
        "from"    varchar(320),
        bcc       varchar(2000),
        created   timestamptz NOT NULL DEFAULT now(),
        updated   timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX core_notifications_event_uq ON core_notifications (app_id, event)`);

    await q.query(`
      CREATE TABLE core_notification_log (
        id              serial PRIMARY KEY,
        app_id          integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        notification_id integer REFERENCES core_notifications(id) ON DELETE SET NULL,
        event           varchar(100) NOT NULL,
        email           varchar(320),
        linked_table    varchar(100),
        master_id       integer,
        status          varchar(10) NOT NULL DEFAULT 'Pending' CHECK (status IN ('Pending', 'Sent', 'Failed')),
        created         timestamptz NOT NULL DEFAULT now(),
        sent            timestamptz,
        email_from      varchar(320) NOT NULL,
        email_cc        text,
        email_bcc       text,
        subject         varchar(1000) NOT NULL,
        body            text NOT NULL,
        attempts        integer NOT NULL DEFAULT 0,
        next_attempt    timestamptz NOT NULL DEFAULT now(),
        claim_token     uuid,
        last_error      text
      )`);
    // The sender's work queue: only Pending rows, in due order.
    await q.query(`CREATE INDEX core_notification_log_due_idx ON core_notification_log (next_attempt, id) WHERE status = 'Pending'`);
    await q.query(`CREATE INDEX core_notification_log_app_idx ON core_notification_log (app_id, created)`);

    // The client-supplied SQL merge source is off unless the tenant turns it on (docs/messaging.md).
    await q.query(`ALTER TABLE core_sites ADD COLUMN notification_sql_enabled boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_sites DROP COLUMN notification_sql_enabled`);
    await q.query(`DROP TABLE core_notification_log`);
    await q.query(`DROP TABLE core_notifications`);
  }
}
