import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Digital access tokens (README "Digital access tokens"): the templates products link to
 * through core_related, and the tokens order completion issues, one per unit of an IsDigital item
 * (UNIQUE (order_item_id, item_unit): a repeated completion cannot issue twice). No foreign key to the
 * orders tables: the tokens module does not depend on orders.
 */
export class Tokens1764000500000 implements MigrationInterface {
  name = 'Tokens1764000500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_token_template (
        id                  serial PRIMARY KEY,
        app_id              integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        name                varchar(100) NOT NULL,
        status_default      varchar(20) NOT NULL DEFAULT 'pending'
                              CONSTRAINT core_token_template_status_default_check CHECK (status_default IN ('pending', 'active')),
        expiry_days         integer,
        maximum_activations integer NOT NULL DEFAULT 3,
        created             timestamptz NOT NULL DEFAULT now(),
        updated             timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE core_tokens (
        id                  serial PRIMARY KEY,
        app_id              integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        token_value         varchar(100) NOT NULL CONSTRAINT core_tokens_token_value_key UNIQUE,
        product_id          integer NOT NULL,
        customer_id         integer,
        order_id            integer NOT NULL,
        order_item_id       integer NOT NULL,
        item_unit           integer NOT NULL CONSTRAINT core_tokens_item_unit_check CHECK (item_unit >= 1),
        status              varchar(20) NOT NULL DEFAULT 'pending'
                              CONSTRAINT core_tokens_status_check CHECK (status IN ('pending', 'gift_pending', 'active', 'expired')),
        expiry_date         timestamptz,
        activations         integer NOT NULL DEFAULT 0,
        maximum_activations integer NOT NULL DEFAULT 3,
        created_date        timestamptz NOT NULL DEFAULT now(),
        last_activated      timestamptz,
        CONSTRAINT core_tokens_order_item_id_item_unit_key UNIQUE (order_item_id, item_unit)
      )`);
    // A customer's tokens (getCustomerTokens, validateToken mode 2).
    await q.query(`CREATE INDEX core_tokens_app_customer_idx ON core_tokens (app_id, customer_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_tokens`);
    await q.query(`DROP TABLE core_token_template`);
  }
}
