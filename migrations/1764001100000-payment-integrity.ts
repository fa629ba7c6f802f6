import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Money is an amount, a currency and a mode (docs/security.md "Payments"):
 * - core_sites.currency: the one currency an app charges in (checkout refuses any other);
 * - core_sites.payment_test_mode: an app that takes test-mode payments even on a production instance;
 * - core_orders.cart_version: raised by every change of the cart, written into the payment intent at
 *   checkout, so a completion fulfils exactly the cart that was priced and paid for.
 */
export class PaymentIntegrity1764001100000 implements MigrationInterface {
  name = 'PaymentIntegrity1764001100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_sites ADD currency varchar(3) NOT NULL DEFAULT 'aud'`);
    await q.query(`ALTER TABLE core_sites ADD CONSTRAINT core_sites_currency_check CHECK (currency ~ '^[a-z]{3}$')`);
    await q.query(`ALTER TABLE core_sites ADD payment_test_mode boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE core_orders ADD cart_version integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_orders DROP COLUMN cart_version`);
    await q.query(`ALTER TABLE core_sites DROP COLUMN payment_test_mode`);
    await q.query(`ALTER TABLE core_sites DROP CONSTRAINT core_sites_currency_check`);
    await q.query(`ALTER TABLE core_sites DROP COLUMN currency`);
  }
}
