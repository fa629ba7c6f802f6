import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Foundation tables: tenants (core_sites), generic links (core_related), folders, the system table of
 * tables (core_tables, with its Live flag) and the version metadata (core_data). Column names follow
 * the API contract exactly, case included, because clients name them in queries.
 */
export class Foundation1764000000000 implements MigrationInterface {
  name = 'Foundation1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_sites (
        id                        serial PRIMARY KEY,
        name                      varchar(200) NOT NULL,
        domain                    varchar(253) NOT NULL,
        logo                      varchar(500),
        splash_logo               varchar(500),
        background                varchar(50),
        colour1                   varchar(50),
        colour2                   varchar(50),
        disable_email             boolean NOT NULL DEFAULT false,
        email_from                varchar(320),
        email_cc                  integer,
        email_bcc                 integer,
        payment_test_private_key  varchar(255),
        payment_live_private_key  varchar(255),
        payment_webhook_secret    varchar(255),
        payment_test_public_key   varchar(255),
        payment_live_public_key   varchar(255),
        idp_app_callback_url      varchar(500),
        oauth_callback_url        varchar(500),
        auth_callback_url         varchar(500),
        idp_app_logout_url        varchar(500),
        oauth_logout_url          varchar(500),
        auth_logout_url           varchar(500),
        vapid_public_key          varchar(255),
        vapid_private_key         varchar(255),
        vapid_subject             varchar(255),
        created                   timestamptz NOT NULL DEFAULT now(),
        updated                   timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX core_sites_domain_uq ON core_sites (lower(domain))`);

    await q.query(`
      CREATE TABLE core_folders (
        id          serial PRIMARY KEY,
        app_id      integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        name        varchar(200) NOT NULL,
        description text,
        created     timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX core_folders_app_idx ON core_folders (app_id)`);

    await q.query(`
      CREATE TABLE core_related (
        id           serial PRIMARY KEY,
        app_id       integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        parent_table varchar(100) NOT NULL,
        parent_id    integer NOT NULL,
        name         varchar(100) NOT NULL,
        linked       integer NOT NULL,
        master_id    integer,
        expires      timestamptz,
        created      timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX core_related_parent_idx ON core_related (app_id, parent_table, parent_id, name)`);
    await q.query(`CREATE INDEX core_related_master_idx ON core_related (app_id, master_id)`);

    await q.query(`
      CREATE TABLE core_tables (
        id          serial PRIMARY KEY,
        table_name  varchar(100) NOT NULL UNIQUE,
        "Live"      boolean NOT NULL DEFAULT true,
        title_field varchar(100),
        description varchar(500)
      )`);

    await q.query(`
      CREATE TABLE core_data (
        "ID"                  serial PRIMARY KEY,
        "Shop_ID"             integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        "Source_Table"        varchar(100) NOT NULL,
        "Current_ID"          integer NOT NULL,
        "Master_ID"           integer NOT NULL,
        "IsCurrent"           smallint NOT NULL DEFAULT 1 CHECK ("IsCurrent" IN (0, 1)),
        "Status"              varchar(20) NOT NULL DEFAULT 'New'
                              CHECK ("Status" IN ('New', 'Editing', 'Staged', 'Published', 'Deleted', 'Expired', 'Rolled Back')),
        "Published"           smallint NOT NULL DEFAULT 0 CHECK ("Published" IN (0, 1)),
        "Staged"              smallint NOT NULL DEFAULT 0 CHECK ("Staged" IN (0, 1)),
        "IsExpired"           smallint NOT NULL DEFAULT 0 CHECK ("IsExpired" IN (0, 1)),
        "Title"               varchar(500),
        "Created"             timestamptz NOT NULL DEFAULT now(),
        "Updated"             timestamptz NOT NULL DEFAULT now(),
        "Created_By"          integer,
        "Updated_By"          integer,
        "Publish_By"          integer,
        "Publish_Set_Date"    timestamptz,
        "Publish_Expire_Date" timestamptz,
        "Last_ID"             integer REFERENCES core_data("ID"),
        "Next_ID"             integer REFERENCES core_data("ID"),
        "Lock"                smallint NOT NULL DEFAULT 0 CHECK ("Lock" IN (0, 1))
      )`);
    await q.query(`CREATE UNIQUE INDEX core_data_version_uq ON core_data ("Source_Table", "Current_ID")`);
    await q.query(`CREATE INDEX core_data_master_idx ON core_data ("Shop_ID", "Source_Table", "Master_ID")`);
    // At most one current version per record: concurrent saves of one record cannot both win.
    await q.query(`CREATE UNIQUE INDEX core_data_one_current_uq ON core_data ("Source_Table", "Master_ID") WHERE "IsCurrent" = 1`);
    await q.query(`CREATE INDEX core_data_expiry_idx ON core_data ("Publish_Expire_Date") WHERE "Published" = 1`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_data`);
    await q.query(`DROP TABLE core_tables`);
    await q.query(`DROP TABLE core_related`);
    await q.query(`DROP TABLE core_folders`);
    await q.query(`DROP TABLE core_sites`);
  }
}
