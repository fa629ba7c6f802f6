import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Account tables. Accounts are scoped by (app, table): one email may exist in two apps. `password` holds
 * the hash (bcrypt, or a legacy format until the next login upgrades it), never plain text.
 */
export class Accounts1764000100000 implements MigrationInterface {
  name = 'Accounts1764000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_users (
        id               serial PRIMARY KEY,
        app_id           integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        user_email       varchar(320) NOT NULL,
        password         varchar(255),
        primary_role     varchar(50) NOT NULL DEFAULT 'user',
        mobile           varchar(30),
        firstname        varchar(50),
        lastname         varchar(50),
        password_changed timestamptz NOT NULL DEFAULT now(),
        created          timestamptz NOT NULL DEFAULT now(),
        updated          timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX core_users_email_uq ON core_users (app_id, lower(user_email))`);

    for (const table of ['core_customers', 'core_app_users']) {
      await q.query(`
        CREATE TABLE ${table} (
          id               serial PRIMARY KEY,
          app_id           integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
          email            varchar(320),
          password         varchar(255),
          firstname        varchar(50),
          lastname         varchar(50),
          displayname      varchar(100),
          description      text,
          photourl         varchar(1000),
          emailverified    boolean NOT NULL DEFAULT false,
          mobile           varchar(30),
          password_changed timestamptz NOT NULL DEFAULT now(),
          created          timestamptz NOT NULL DEFAULT now(),
          updated          timestamptz NOT NULL DEFAULT now()
        )`);
      await q.query(`CREATE UNIQUE INDEX ${table}_email_uq ON ${table} (app_id, lower(email)) WHERE email IS NOT NULL`);
    }
    // Web push subscription of a customer (the columns /message/sendPush reads).
    await q.query(
      `ALTER TABLE core_customers ADD COLUMN pushsubscription text, ADD COLUMN p256dh varchar(255), ADD COLUMN auth varchar(255)`,
    );

    // Account tables are live (no history), but each account has its version-tracking core_data row.
    await q.query(`
      INSERT INTO core_tables (table_name, "Live", title_field, description) VALUES
        ('core_users', true, 'user_email', 'Administrative accounts'),
        ('core_customers', true, 'email', 'Shop and app customers'),
        ('core_app_users', true, 'email', 'App users')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM core_tables WHERE table_name IN ('core_users', 'core_customers', 'core_app_users')`);
    await q.query(`DROP TABLE core_app_users`);
    await q.query(`DROP TABLE core_customers`);
    await q.query(`DROP TABLE core_users`);
  }
}
