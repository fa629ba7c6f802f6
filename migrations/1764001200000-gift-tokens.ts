import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * core_tokens.gift: a token remembers that it was issued as a gift, so that extendToken turns an expired
 * gift nobody redeemed back into `gift_pending` (redeemable), not into an ownerless `active` token. The
 * check keeps it so for every writer: a token that has not expired is gift_pending exactly when it is a
 * gift without an owner.
 */
export class GiftTokens1764001200000 implements MigrationInterface {
  name = 'GiftTokens1764001200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_tokens ADD COLUMN gift boolean NOT NULL DEFAULT false`);
    // Tokens issued before: the tokens of gift order items, and any token still gift_pending.
    await q.query(`
      UPDATE core_tokens t SET gift = true
      WHERE t.status = 'gift_pending'
         OR EXISTS (SELECT 1 FROM core_order_items i WHERE i.id = t.order_item_id AND i.app_id = t.app_id AND i."RedeemStatus" IN ('gift', 'gift_pending'))`);
    // Unredeemed gifts that extendToken had made ownerless and active (no longer redeemable) become redeemable again.
    await q.query(`UPDATE core_tokens SET status = 'gift_pending' WHERE gift AND customer_id IS NULL AND status IN ('pending', 'active')`);
    await q.query(
      `ALTER TABLE core_tokens ADD CONSTRAINT core_tokens_gift_check CHECK (status = 'expired' OR (status = 'gift_pending') = (gift AND customer_id IS NULL))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_tokens DROP CONSTRAINT core_tokens_gift_check`);
    await q.query(`ALTER TABLE core_tokens DROP COLUMN gift`);
  }
}
