import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Disputes (chargebacks) of an order's card payment (README "Refunds and cancellation", issue 37):
 * payment_status `Disputed`, and the provider's dispute of the payment with its last known status
 * (`dispute_id`, `dispute_status`), so each dispute event applies once and a late event about a closed
 * dispute changes nothing.
 */
export class Disputes1764001710000 implements MigrationInterface {
  name = 'Disputes1764001710000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_orders DROP CONSTRAINT core_orders_payment_status_check`);
    await q.query(
      `ALTER TABLE core_orders ADD CONSTRAINT core_orders_payment_status_check
        CHECK (payment_status IN ('Success', 'Failed', 'Partially Refunded', 'Refunded', 'Disputed'))`,
    );
    await q.query(`ALTER TABLE core_orders ADD dispute_id varchar(255)`);
    await q.query(`ALTER TABLE core_orders ADD dispute_status varchar(30)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_orders DROP COLUMN dispute_status`);
    await q.query(`ALTER TABLE core_orders DROP COLUMN dispute_id`);
    // A Disputed order goes back to the status its refunds give it.
    await q.query(
      `UPDATE core_orders
        SET payment_status = CASE WHEN refunded_total <= 0 THEN 'Success' WHEN refunded_total >= total THEN 'Refunded' ELSE 'Partially Refunded' END
        WHERE payment_status = 'Disputed'`,
    );
    await q.query(`ALTER TABLE core_orders DROP CONSTRAINT core_orders_payment_status_check`);
    await q.query(
      `ALTER TABLE core_orders ADD CONSTRAINT core_orders_payment_status_check
        CHECK (payment_status IN ('Success', 'Failed', 'Partially Refunded', 'Refunded'))`,
    );
  }
}
