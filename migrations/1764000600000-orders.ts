import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The shop's tables: orders, their items (a snapshot of the product version added) and the payment
 * provider events already acted on (keyed by the provider's event id, so each is processed once).
 * Money is integer cents. Column names are part of the API (clients name them), case included.
 */
export class Orders1764000600000 implements MigrationInterface {
  name = 'Orders1764000600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE core_orders (
        id                      serial PRIMARY KEY,
        app_id                  integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        customer_id             integer,
        customer_is_placeholder boolean NOT NULL DEFAULT false,
        orderstatus             varchar(20) NOT NULL DEFAULT 'New' CONSTRAINT core_orders_orderstatus_check CHECK (orderstatus IN ('New', 'Paid', 'Ordered')),
        orderstatuslabel        varchar(50) NOT NULL DEFAULT 'New',
        payment_status          varchar(20) CONSTRAINT core_orders_payment_status_check CHECK (payment_status IN ('Success', 'Failed')),
        "paymentMethodRef"      varchar(30),
        "AuthCode"              varchar(255),
        "TrxnReference"         varchar(255),
        payment_intent_id       varchar(255),
        order_date              timestamptz,
        currency                varchar(3) NOT NULL DEFAULT 'aud',
        total                   integer NOT NULL DEFAULT 0 CONSTRAINT core_orders_total_check CHECK (total >= 0),
        "BillingEmail"          varchar(320),
        "BillingFirstName"      varchar(100),
        "BillingLastName"       varchar(100),
        "BillingAddress"        varchar(500),
        "BillingSuburb"         varchar(100),
        "BillingPostCode"       varchar(20),
        shipping_address        jsonb,
        billing_address         jsonb,
        notes                   text,
        created                 timestamptz NOT NULL DEFAULT now(),
        updated                 timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX core_orders_app_customer_idx ON core_orders (app_id, customer_id)`);

    await q.query(`
      CREATE TABLE core_order_items (
        id             serial PRIMARY KEY,
        app_id         integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        "Order_ID"     integer NOT NULL CONSTRAINT "core_order_items_Order_ID_fkey" REFERENCES core_orders(id) ON DELETE CASCADE,
        "ItemStatus"   varchar(20) NOT NULL DEFAULT 'Pending' CONSTRAINT "core_order_items_ItemStatus_check"
                         CHECK ("ItemStatus" IN ('Pending', 'Ordered', 'Cancelled', 'Gift Voucher')),
        "IsDigital"    smallint NOT NULL DEFAULT 0 CONSTRAINT "core_order_items_IsDigital_check" CHECK ("IsDigital" IN (0, 1)),
        "IsEvent"      smallint NOT NULL DEFAULT 0 CONSTRAINT "core_order_items_IsEvent_check" CHECK ("IsEvent" IN (0, 1)),
        "RedeemStatus" varchar(20) CONSTRAINT "core_order_items_RedeemStatus_check" CHECK ("RedeemStatus" IN ('gift', 'gift_pending')),
        "product_ID"   integer NOT NULL,
        product_mid    integer NOT NULL,
        "Qty"          integer NOT NULL CONSTRAINT "core_order_items_Qty_check" CHECK ("Qty" > 0),
        "Price"        integer NOT NULL CONSTRAINT "core_order_items_Price_check" CHECK ("Price" >= 0),
        title          varchar(500) NOT NULL DEFAULT '',
        tax            integer NOT NULL DEFAULT 0,
        bond           integer NOT NULL DEFAULT 0,
        created        timestamptz NOT NULL DEFAULT now(),
        updated        timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX core_order_items_order_idx ON core_order_items ("Order_ID")`);

    await q.query(`
      CREATE TABLE core_payment_events (
        event_id          varchar(255) CONSTRAINT core_payment_events_pkey PRIMARY KEY,
        app_id            integer NOT NULL REFERENCES core_sites(id) ON DELETE CASCADE,
        type              varchar(100) NOT NULL,
        order_id          integer,
        payment_intent_id varchar(255),
        outcome           varchar(30) NOT NULL,
        received          timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE core_payment_events`);
    await q.query(`DROP TABLE core_order_items`);
    await q.query(`DROP TABLE core_orders`);
  }
}
