import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SSO identities (README "Single sign-on (OpenID Connect)"): an IdP account linked to a user row, unique per
 * (app, auth table, provider, provider user id). user_id points into the table auth_table names, so it has
 * no foreign key; deleting the app deletes its identities.
 */
export class Identities1764000700000 implements MigrationInterface {
  name = 'Identities1764000700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_identities (
        id               serial PRIMARY KEY,
        app_id           integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        auth_table       varchar(50) NOT NULL,
        provider         varchar(50) NOT NULL,
        provider_user_id varchar(255) NOT NULL,
        user_id          integer NOT NULL,
        email            varchar(320),
        created          timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT core_identities_app_id_auth_table_provider_provider_user_id_key UNIQUE (app_id, auth_table, provider, provider_user_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_identities`);
  }
}
