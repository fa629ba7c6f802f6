import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * core_payment_events becomes the inbox of the provider's events (README "Payment events"): a verified
 * event is recorded (with its payload, `pending`) before the provider is answered, and applied afterwards,
 * retried with backoff. Event ids are unique per app, not across apps. Rows already there were applied:
 * `processed`.
 */
export class PaymentInbox1764001500000 implements MigrationInterface {
  name = 'PaymentInbox1764001500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_payment_events DROP CONSTRAINT core_payment_events_pkey`);
    await q.query(`ALTER TABLE core_payment_events ADD CONSTRAINT core_payment_events_pkey PRIMARY KEY (app_id, event_id)`);
    await q.query(`ALTER TABLE core_payment_events ADD payload jsonb`);
    await q.query(`ALTER TABLE core_payment_events ADD status varchar(20) NOT NULL DEFAULT 'processed'`);
    await q.query(`ALTER TABLE core_payment_events ALTER status SET DEFAULT 'pending'`);
    await q.query(
      `ALTER TABLE core_payment_events ADD CONSTRAINT core_payment_events_status_check CHECK (status IN ('pending', 'processed', 'failed'))`,
    );
    await q.query(`ALTER TABLE core_payment_events ADD attempts integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE core_payment_events ADD next_attempt_at timestamptz`);
    await q.query(`ALTER TABLE core_payment_events ADD last_error varchar(500)`);
    await q.query(`ALTER TABLE core_payment_events ADD processed_at timestamptz`);
    await q.query(`UPDATE core_payment_events SET processed_at = received`);
    await q.query(`ALTER TABLE core_payment_events ALTER outcome DROP NOT NULL`);
    await q.query(`CREATE INDEX core_payment_events_open_idx ON core_payment_events (status, next_attempt_at) WHERE status <> 'processed'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX core_payment_events_open_idx`);
    await q.query(`DELETE FROM core_payment_events WHERE status <> 'processed'`);
    await q.query(`ALTER TABLE core_payment_events ALTER outcome SET NOT NULL`);
    await q.query(`ALTER TABLE core_payment_events DROP COLUMN processed_at`);
    await q.query(`ALTER TABLE core_payment_events DROP COLUMN last_error`);
    await q.query(`ALTER TABLE core_payment_events DROP COLUMN next_attempt_at`);
    await q.query(`ALTER TABLE core_payment_events DROP COLUMN attempts`);
    await q.query(`ALTER TABLE core_payment_events DROP CONSTRAINT core_payment_events_status_check`);
    await q.query(`ALTER TABLE core_payment_events DROP COLUMN status`);
    await q.query(`ALTER TABLE core_payment_events DROP COLUMN payload`);
    await q.query(`ALTER TABLE core_payment_events DROP CONSTRAINT core_payment_events_pkey`);
    await q.query(`ALTER TABLE core_payment_events ADD CONSTRAINT core_payment_events_pkey PRIMARY KEY (event_id)`);
  }
}
