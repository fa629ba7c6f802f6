import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds, failed payments and the admin's order list (README "Refunds and cancellation"):
 * - core_refunds: one row per refund at the provider, reserved before the provider is asked (so concurrent
 *   refunds never exceed what was paid) and settled by its answer or its webhook, whichever comes first;
 * - core_orders: refunded_total, payment_error (a declined or cancelled payment), payment_livemode (the
 *   mode of the intent that paid: a refund uses that mode's key), payment_status Partially Refunded and
 *   Refunded; indexes for listOrders (newest first, per app, and by billing email, status or payment status) and for finding an
 *   order by the intent that paid it (refund events name only the intent).
 */
export class Refunds1764001300000 implements MigrationInterface {
  name = 'Refunds1764001300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_orders ADD refunded_total integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE core_orders ADD CONSTRAINT core_orders_refunded_total_check CHECK (refunded_total >= 0)`);
    await q.query(`ALTER TABLE core_orders ADD payment_error varchar(500)`);
    await q.query(`ALTER TABLE core_orders ADD payment_livemode boolean`);
    await q.query(`ALTER TABLE core_orders DROP CONSTRAINT core_orders_payment_status_check`);
    await q.query(
      `ALTER TABLE core_orders ADD CONSTRAINT core_orders_payment_status_check
        CHECK (payment_status IN ('Success', 'Failed', 'Partially Refunded', 'Refunded'))`,
    );
    await q.query(`CREATE INDEX core_orders_app_created_idx ON core_orders (app_id, created DESC, id DESC)`);
    await q.query(`CREATE INDEX core_orders_app_email_idx ON core_orders (app_id, "BillingEmail", created DESC, id DESC)`);
    await q.query(`CREATE INDEX core_orders_app_status_idx ON core_orders (app_id, orderstatus, created DESC, id DESC)`);
    await q.query(`CREATE INDEX core_orders_app_payment_status_idx ON core_orders (app_id, payment_status, created DESC, id DESC)`);
    await q.query(`CREATE INDEX "core_orders_AuthCode_idx" ON core_orders ("AuthCode")`);
    await q.query(`
      CREATE TABLE core_refunds (
        id                 SERIAL CONSTRAINT core_refunds_pkey PRIMARY KEY,
        app_id             integer NOT NULL CONSTRAINT core_refunds_app_id_fkey REFERENCES core_sites(id) ON DELETE CASCADE,
        order_id           integer NOT NULL CONSTRAINT core_refunds_order_id_fkey REFERENCES core_orders(id) ON DELETE CASCADE,
        refund_id          varchar(255),
        payment_intent_id  varchar(255) NOT NULL,
        amount             integer NOT NULL CONSTRAINT core_refunds_amount_check CHECK (amount > 0),
        currency           varchar(3) NOT NULL,
        status             varchar(20) NOT NULL CONSTRAINT core_refunds_status_check CHECK (status IN ('reserved', 'unknown', 'succeeded', 'failed')),
        source             varchar(20) NOT NULL CONSTRAINT core_refunds_source_check CHECK (source IN ('api', 'provider')),
        reason             varchar(500),
        request_key        varchar(255),
        created            timestamptz NOT NULL DEFAULT now(),
        updated            timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX core_refunds_refund_id_uq ON core_refunds (app_id, refund_id)`);
    await q.query(`CREATE INDEX core_refunds_order_idx ON core_refunds (order_id)`);
    await q.query(`CREATE UNIQUE INDEX core_refunds_request_key_uq ON core_refunds (app_id, order_id, request_key)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_refunds`);
    await q.query(`DROP INDEX "core_orders_AuthCode_idx"`);
    await q.query(`DROP INDEX core_orders_app_payment_status_idx`);
    await q.query(`DROP INDEX core_orders_app_status_idx`);
    await q.query(`DROP INDEX core_orders_app_email_idx`);
    await q.query(`DROP INDEX core_orders_app_created_idx`);
    await q.query(`ALTER TABLE core_orders DROP CONSTRAINT core_orders_payment_status_check`);
    await q.query(
      `ALTER TABLE core_orders ADD CONSTRAINT core_orders_payment_status_check CHECK (payment_status IN ('Success', 'Failed'))`,
    );
    await q.query(`ALTER TABLE core_orders DROP COLUMN payment_livemode`);
    await q.query(`ALTER TABLE core_orders DROP COLUMN payment_error`);
    await q.query(`ALTER TABLE core_orders DROP CONSTRAINT core_orders_refunded_total_check`);
    await q.query(`ALTER TABLE core_orders DROP COLUMN refunded_total`);
  }
}
