import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * core_tokens records why and when a token expired (issue 37, a failed refund restores what it took):
 * `expired_reason` (`expiry`: its own expiry date; `admin`: expireToken; `cancel`: cancelOrder; `refund`: a
 * refund in full; `dispute`: a dispute lost), `expired_at`, and the status it had before
 * (`status_before_expiry`), so the tokens a refund in full expired, and only those, get their status back
 * when that refund fails at the provider. Tokens expired before this migration have no reason: none of them
 * is ever restored.
 */
export class TokenExpiryReasons1764001700000 implements MigrationInterface {
  name = 'TokenExpiryReasons1764001700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_tokens ADD expired_reason varchar(20)`);
    await q.query(
      `ALTER TABLE core_tokens ADD CONSTRAINT core_tokens_expired_reason_check CHECK (expired_reason IN ('expiry', 'admin', 'cancel', 'refund', 'dispute'))`,
    );
    await q.query(`ALTER TABLE core_tokens ADD expired_at timestamptz`);
    await q.query(`ALTER TABLE core_tokens ADD status_before_expiry varchar(20)`);
    await q.query(
      `ALTER TABLE core_tokens ADD CONSTRAINT core_tokens_status_before_expiry_check CHECK (status_before_expiry IN ('pending', 'gift_pending', 'active'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE core_tokens DROP CONSTRAINT core_tokens_status_before_expiry_check`);
    await q.query(`ALTER TABLE core_tokens DROP COLUMN status_before_expiry`);
    await q.query(`ALTER TABLE core_tokens DROP COLUMN expired_at`);
    await q.query(`ALTER TABLE core_tokens DROP CONSTRAINT core_tokens_expired_reason_check`);
    await q.query(`ALTER TABLE core_tokens DROP COLUMN expired_reason`);
  }
}
