import { MigrationInterface, QueryRunner } from 'typeorm';

/** Staff notes on orders (issue 38 part 5, README "Staff API: order timeline and notes"): core_order_notes. */
export class OrderNotes1764001910000 implements MigrationInterface {
  name = 'OrderNotes1764001910000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_order_notes (
        id       serial NOT NULL CONSTRAINT core_order_notes_pkey PRIMARY KEY,
        app_id   integer NOT NULL CONSTRAINT core_order_notes_app_id_fkey REFERENCES core_sites(id) ON DELETE CASCADE,
        order_id integer NOT NULL CONSTRAINT core_order_notes_order_id_fkey REFERENCES core_orders(id) ON DELETE CASCADE,
        author   integer NOT NULL,
        text     varchar(2000) NOT NULL,
        created  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX core_order_notes_order_idx ON core_order_notes (order_id, created)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_order_notes`);
  }
}
