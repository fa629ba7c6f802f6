import { Injectable } from '@nestjs/common';
import { SitesService } from '../app-context';
import { IdCipherService } from '../common/id-cipher.service';
import { RequestContext } from '../common/request-context';
import { CommandError } from './command-errors';
import { Fixture, SeedService } from './seed.service';

/** What `tenants:seed` makes: `count` tenants, each with these many rows. */
export interface TenantsSeedPlan {
  count: number;
  products: number;
  customers: number;
  orders: number;
  /** Domains are `<prefix>-<n>.example.test`, names `<prefix> <n>`. */
  prefix: string;
  /** The accounts' password (one bcrypt hash for all); none: the accounts have no password until user:password sets one. */
  password?: string;
}

/** One seeded tenant, with what a load test needs to address its rows. */
export interface SeededTenant {
  appID: number;
  domain: string;
  /** Its published products' ids (core_products, the Master_ID of each). */
  products: number[];
  /** Its orders' encrypted ids (`_id`, as createOrder answers it: orderStatus, getOrder). */
  orders: string[];
}

export interface TenantsSeedResult {
  tenants: number;
  /** Rows written, by table. */
  rows: Record<string, number>;
  seconds: number;
  apps: SeededTenant[];
}

/** The mail templates every seeded tenant gets (core_notifications, with their first version). */
const TEMPLATES = [
  { event: 'welcome', subject: 'Welcome, [firstname]', content: '<p>Hello [firstname], welcome.</p>' },
  { event: 'order_confirmation', subject: 'Your order', content: '<p>Thank you for your order.</p>' },
  { event: 'password_reset', subject: 'Reset your password', content: '<p>Follow the link to choose a new password.</p>' },
];

/**
 * `tenants:seed`: many tenants in one process and one transaction, for load tests and capacity planning
 * (bench/scenarios/tenants.ts seeds 1,000). Each tenant is a fixture loaded by SeedService exactly as `seed`
 * loads one (site, staff admin, customers, published products with their core_data rows, mail templates),
 * then its orders and their items, which name the customers and products the load answered. The password is
 * hashed once for every account, and the planner's statistics are refreshed once at the end.
 */
@Injectable()
export class TenantsSeedService {
  constructor(
    private readonly seeds: SeedService,
    private readonly sites: SitesService,
    private readonly cipher: IdCipherService,
  ) {}

  /** In the transaction of `ctx`, opened by the command's edge; `ctx.site` becomes each tenant in turn. */
  async seed(ctx: RequestContext, plan: TenantsSeedPlan): Promise<TenantsSeedResult> {
    const started = Date.now();
    const options = { analyze: false, passwordHashes: new Map<string, Promise<string>>() };
    const rows: Record<string, number> = {};
    const count = (ids: Record<string, number[]>) => {
      for (const [table, written] of Object.entries(ids)) rows[table] = (rows[table] ?? 0) + written.length;
    };
    const apps: SeededTenant[] = [];
    for (let n = 1; n <= plan.count; n++) {
      const fixture = tenantFixture(plan, n);
      if (await this.sites.findByDomain(ctx, fixture.site.domain))
        throw new CommandError(`A tenant with domain "${fixture.site.domain}" already exists: choose another --prefix`);
      const { appID, ids } = await this.seeds.load(ctx, fixture, options);
      rows.core_sites = (rows.core_sites ?? 0) + 1;
      count(ids);
      const orders = await this.seeds.addRows(ctx, { core_orders: orderRows(plan, n, ids.core_customers) }, options);
      count(orders);
      count(await this.seeds.addRows(ctx, { core_order_items: itemRows(plan, orders.core_orders, ids.core_products) }, options));
      apps.push({
        appID,
        domain: fixture.site.domain,
        products: ids.core_products,
        orders: orders.core_orders.map((id) => this.cipher.encryptId(appID, id)),
      });
    }
    const tables = Object.keys(rows).filter((table) => table !== 'core_sites');
    await ctx.afterCommit(() => this.seeds.analyze(ctx, tables));
    return { tenants: plan.count, rows, seconds: (Date.now() - started) / 1000, apps };
  }
}

/** Product k's unit price and tax, in cents. */
const priceOf = (k: number) => ({ price: 500 + 100 * (k % 20), tax: 45 + 9 * (k % 20) });

function tenantFixture(plan: TenantsSeedPlan, n: number): Fixture & { site: { domain: string } } {
  const domain = `${plan.prefix}-${n}.example.test`;
  const password = plan.password === undefined ? {} : { password: plan.password };
  return {
    site: { name: `${plan.prefix} ${n}`, domain, email_from: `shop@${domain}`, payment_test_mode: true },
    tables: {
      core_users: [{ user_email: `admin@${domain}`, primary_role: 'admin', firstname: 'Admin', lastname: String(n), ...password }],
      core_customers: Array.from({ length: plan.customers }, (_, c) => ({
        email: `customer${c + 1}@${domain}`,
        firstname: `Customer${c + 1}`,
        lastname: String(n),
        ...password,
      })),
      core_products: Array.from({ length: plan.products }, (_, k) => ({
        title: `Product ${k + 1}`,
        ...priceOf(k),
        bond: 0,
        IsDigital: k % 3 === 0 ? 1 : 0,
        IsEvent: 0,
        meta_status: 'Published',
      })),
      core_notifications: TEMPLATES.map((template) => ({ ...template, enabled: true })),
    },
  };
}

/** Order o of tenant n: a customer's, Paid (3 of 4) or a New cart; its total is its items' (itemRows). */
function orderRows(plan: TenantsSeedPlan, n: number, customers: number[]): Record<string, unknown>[] {
  return Array.from({ length: plan.orders }, (_, o) => {
    const paid = o % 4 !== 3;
    const customer = customers.length ? customers[o % customers.length] : null;
    return {
      customer_id: customer,
      orderstatus: paid ? 'Paid' : 'New',
      orderstatuslabel: paid ? 'Paid' : 'New',
      payment_status: paid ? 'Success' : null,
      paymentMethodRef: 'Card',
      order_date: paid ? new Date(Date.now() - o * 3_600_000).toISOString() : null,
      total: itemsOf(plan, o).reduce((sum, item) => sum + item.Qty * item.Price, 0),
      BillingEmail: customer === null ? null : `customer${(o % customers.length) + 1}@${plan.prefix}-${n}.example.test`,
      BillingFirstName: 'Customer',
      BillingLastName: String(n),
    };
  });
}

/** The items of order o: one or two products (product indexes), with their prices. */
function itemsOf(plan: TenantsSeedPlan, o: number): { k: number; Qty: number; Price: number; tax: number }[] {
  if (plan.products === 0) return [];
  const picks = o % 2 ? [o % plan.products, (o + 1) % plan.products] : [o % plan.products];
  return [...new Set(picks)].map((k) => ({ k, Qty: 1 + (o % 3), Price: priceOf(k).price, tax: priceOf(k).tax }));
}

function itemRows(plan: TenantsSeedPlan, orders: number[], products: number[]): Record<string, unknown>[] {
  return orders.flatMap((orderId, o) =>
    itemsOf(plan, o).map((item) => ({
      Order_ID: orderId,
      ItemStatus: o % 4 !== 3 ? 'Ordered' : 'Pending',
      IsDigital: item.k % 3 === 0 ? 1 : 0,
      IsEvent: 0,
      product_ID: products[item.k],
      product_mid: products[item.k],
      Qty: item.Qty,
      Price: item.Price,
      title: `Product ${item.k + 1}`,
      tax: item.tax,
      bond: 0,
    })),
  );
}
