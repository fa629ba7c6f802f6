import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One-time SMS codes (/auth/user-sms-code, /auth/verify-sms-code): only the bcrypt hash of a code is kept,
 * with its expiry, the attempts made and when it was used. A new code voids the account's earlier ones.
 */
export class AuthSmsCodes1764000110000 implements MigrationInterface {
  name = 'AuthSmsCodes1764000110000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_sms_codes (
        id          serial PRIMARY KEY,
        app_id      integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        auth_table  varchar(50) NOT NULL,
        user_id     integer NOT NULL,
        code_hash   varchar(100) NOT NULL,
        expires     timestamptz NOT NULL,
        attempts    integer NOT NULL DEFAULT 0,
        used_at     timestamptz,
        created     timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX core_sms_codes_user_idx ON core_sms_codes (app_id, auth_table, user_id, created DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_sms_codes`);
  }
}
