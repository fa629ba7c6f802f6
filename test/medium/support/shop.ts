import { AuthPrincipal, RequestContext, TenantSite } from '../../../src/common/request-context';
import { PaidIntent } from '../../../src/orders/checkout/payment-match';
import { siteFixture } from '../../support/test-app';
import { Medium } from './medium';

/**
 * A shop tenant for medium tests: published products (master ids, each its own first version), a token
 * template linked to the e-book, a customer and an admin. Book 2500 (GST 227); e-book 1500 (digital,
 * template: 5 activations, 30 days); tent 10000 with a 5000 bond; voucher 4000 (digital, sold as a gift).
 */
export interface Shop {
  site: TenantSite;
  book: number;
  ebook: number;
  tent: number;
  voucher: number;
  templateId: number;
  customerId: number;
  adminId: number;
}

const product = (title: string, extra: Record<string, unknown>) => ({
  title,
  tax: 0,
  bond: 0,
  IsDigital: 0,
  IsEvent: 0,
  meta_status: 'Published',
  ...extra,
});

export async function seedShop(medium: Medium): Promise<Shop> {
  const tag = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const { site, ids } = await medium.seed({
    site: siteFixture(),
    tables: {
      core_products: [
        product('Book', { price: 2500, tax: 227 }),
        product('E-book', { price: 1500, tax: 136, IsDigital: 1 }),
        product('Tent hire', { price: 10000, tax: 909, bond: 5000, IsEvent: 1 }),
        product('Gift voucher', { price: 4000, tax: 364, IsDigital: 1 }),
      ],
      core_users: [{ user_email: `admin-${tag}@example.test`, password: 'Admin@1234', primary_role: 'admin', firstname: 'Ada' }],
      core_customers: [{ email: `cust-${tag}@example.test`, password: 'Cust@1234', firstname: 'Cy' }],
      core_token_template: [{ name: 'E-book access', expiry_days: 30, maximum_activations: 5 }],
    },
  });
  const [book, ebook, tent, voucher] = ids.core_products;
  const [templateId] = ids.core_token_template;
  // The link /addrelated makes from the product to its template (a fixture row names its parent by parent_id).
  await medium.sql(
    `INSERT INTO core_related (app_id, parent_table, parent_id, name, linked) VALUES ($1, 'core_products', $2, 'core_token_template', $3)`,
    [site.id, ebook, templateId],
  );
  return { site, book, ebook, tent, voucher, templateId, customerId: ids.core_customers[0], adminId: ids.core_users[0] };
}

/** An order line: a product's master id (its first version), units, unit price and bond in cents. */
export interface Line {
  product: number;
  qty?: number;
  price: number;
  bond?: number;
  digital?: boolean;
  gift?: boolean;
  status?: 'Pending' | 'Cancelled';
}

/**
 * A New order of the shop's customer, as checkout leaves it: its items, its total (the counted items' sum),
 * cart version 1 and the billing email the mails go to (buyer-<order id>@example.test).
 */
export async function placeOrder(medium: Medium, shop: Shop, lines: Line[], currency = 'aud'): Promise<{ id: number; total: number }> {
  const counted = lines.filter((line) => line.status !== 'Cancelled');
  const total = counted.reduce((sum, line) => sum + (line.qty ?? 1) * (line.price + (line.bond ?? 0)), 0);
  const [{ id }] = await medium.sql(
    `INSERT INTO core_orders (app_id, customer_id, currency, total, cart_version) VALUES ($1, $2, $3, $4, 1) RETURNING id`,
    [shop.site.id, shop.customerId, currency, total],
  );
  await medium.sql(`UPDATE core_orders SET "BillingEmail" = 'buyer-' || id || '@example.test' WHERE id = $1`, [id]);
  for (const line of lines) {
    await medium.sql(
      `INSERT INTO core_order_items (app_id, "Order_ID", "ItemStatus", "IsDigital", "RedeemStatus", "product_ID", product_mid, "Qty", "Price", bond, title)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, $9, 'Item')`,
      [
        shop.site.id,
        id,
        line.status ?? 'Pending',
        line.digital ? 1 : 0,
        line.gift ? 'gift_pending' : null,
        line.product,
        line.qty ?? 1,
        line.price,
        line.bond ?? 0,
      ],
    );
  }
  return { id, total };
}

/** The provider's succeeded intent for an order as checkout priced it (test mode: the test configuration is not production). */
export function paidIntent(shop: Shop, order: { id: number; total: number }, extra: Partial<PaidIntent> = {}): PaidIntent {
  return {
    id: `pi_${order.id}_${Math.random().toString(36).slice(2, 10)}`,
    amount: order.total,
    currency: 'aud',
    livemode: false,
    metadata: { appID: String(shop.site.id), orderID: String(order.id), cartVersion: '1' },
    ...extra,
  };
}

/** The shop's admin as the authenticated principal of a staff request (the owner's roles). */
export function admin(shop: Shop): AuthPrincipal {
  return { userId: shop.adminId, appId: shop.site.id, authTable: 'core_users', role: 'admin', staffRoles: ['owner'] };
}

/** A context of the shop, as its edge resolves it (optionally as its admin). */
export function shopContext(medium: Medium, shop: Shop, principal: AuthPrincipal | null = null): RequestContext {
  return medium.context(shop.site, principal);
}
