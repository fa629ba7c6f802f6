import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Content tables registered as versioned (core_tables.Live = false). Every version of a product is its own
 * row here; core_data links the versions of one record (Master_ID) into a chain. Money is integer cents.
 */
export class Content1764000300000 implements MigrationInterface {
  name = 'Content1764000300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_products (
        id          serial PRIMARY KEY,
        app_id      integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        title       varchar(500) NOT NULL DEFAULT '',
        description text,
        sku         varchar(100),
        image       varchar(1000),
        price       integer NOT NULL DEFAULT 0 CHECK (price >= 0),
        tax         integer NOT NULL DEFAULT 0 CHECK (tax >= 0),
        bond        integer NOT NULL DEFAULT 0 CHECK (bond >= 0),
        "IsDigital" smallint NOT NULL DEFAULT 0 CHECK ("IsDigital" IN (0, 1)),
        "IsEvent"   smallint NOT NULL DEFAULT 0 CHECK ("IsEvent" IN (0, 1)),
        event_date  timestamptz,
        sort_order  integer NOT NULL DEFAULT 0,
        created     timestamptz NOT NULL DEFAULT now(),
        updated     timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX core_products_app_idx ON core_products (app_id)`);
    // The public read path (/getDataRows isPublished) filters core_data by tenant, table and Published.
    await q.query(`CREATE INDEX core_data_published_idx ON core_data ("Shop_ID", "Source_Table", "Master_ID") WHERE "Published" = 1`);
    await q.query(
      `INSERT INTO core_tables (table_name, "Live", title_field, description) VALUES ('core_products', false, 'title', 'Products (versioned)')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM core_data WHERE "Source_Table" = 'core_products'`);
    await q.query(`DELETE FROM core_tables WHERE table_name = 'core_products'`);
    await q.query(`DROP INDEX IF EXISTS core_data_published_idx`);
    await q.query(`DROP TABLE core_products`);
  }
}
