import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * core_payment_intents: every payment intent a checkout made, so that none stays payable unseen (README
 * "Payment events"): superseded and cancelled orders' intents are cancelled at the provider, open ones are
 * reconciled with it. Orders that already have an intent get its row. core_refunds gains the source `auto`:
 * money the service gave back by itself because the order could not take it.
 */
export class PaymentIntents1764001600000 implements MigrationInterface {
  name = 'PaymentIntents1764001600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_payment_intents (
        app_id           integer NOT NULL CONSTRAINT core_payment_intents_app_id_fkey REFERENCES core_sites(id) ON DELETE CASCADE,
        intent_id        varchar(255) NOT NULL,
        order_id         integer NOT NULL CONSTRAINT core_payment_intents_order_id_fkey REFERENCES core_orders(id) ON DELETE CASCADE,
        amount           integer NOT NULL,
        currency         varchar(3) NOT NULL,
        livemode         boolean NOT NULL,
        status           varchar(20) NOT NULL DEFAULT 'open'
                         CONSTRAINT core_payment_intents_status_check CHECK (status IN ('open', 'succeeded', 'canceled')),
        cancel_requested timestamptz,
        reconcile_at     timestamptz,
        created          timestamptz NOT NULL DEFAULT now(),
        updated          timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT core_payment_intents_pkey PRIMARY KEY (app_id, intent_id)
      )`);
    await q.query(`CREATE INDEX core_payment_intents_order_idx ON core_payment_intents (order_id)`);
    await q.query(`CREATE INDEX core_payment_intents_reconcile_idx ON core_payment_intents (reconcile_at) WHERE status = 'open'`);
    await q.query(`
      INSERT INTO core_payment_intents (app_id, intent_id, order_id, amount, currency, livemode, status, created, updated)
      SELECT app_id, payment_intent_id, id, total, currency, coalesce(payment_livemode, false),
             CASE WHEN "AuthCode" = payment_intent_id THEN 'succeeded' ELSE 'open' END, updated, updated
        FROM core_orders WHERE payment_intent_id IS NOT NULL
      ON CONFLICT DO NOTHING`);
    await q.query(`ALTER TABLE core_refunds DROP CONSTRAINT core_refunds_source_check`);
    await q.query(`ALTER TABLE core_refunds ADD CONSTRAINT core_refunds_source_check CHECK (source IN ('api', 'provider', 'auto'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM core_refunds WHERE source = 'auto'`);
    await q.query(`ALTER TABLE core_refunds DROP CONSTRAINT core_refunds_source_check`);
    await q.query(`ALTER TABLE core_refunds ADD CONSTRAINT core_refunds_source_check CHECK (source IN ('api', 'provider'))`);
    await q.query(`DROP TABLE core_payment_intents`);
  }
}
