import { SessionTokensService } from '../../src/auth';
import { RequestContext, TenantSite } from '../../src/common/request-context';
import { TransactionalConnection } from '../../src/database/transactional-connection';
import { DigitalItem, TokenIssuerService, TokenRow } from '../../src/tokens';
import { product, seedTenant, Tenant, userToken } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

export interface Shop extends Tenant {
  /** Published digital products (master ids): [0] has no template link, [1] and [2] are free for links. */
  digital: number[];
  customers: number[];
  customerHeaders: Record<string, string>[];
  /** A bearer of the tenant's non-admin core_users account. */
  userHeaders: Record<string, string>;
}

/** A tenant with three published digital products, three customers (with bearers) and an admin and a plain user. */
export async function seedShop(t: TestApp, extra: Record<string, Record<string, unknown>[]> = {}): Promise<Shop> {
  const tenant = await seedTenant(
    t,
    [
      product('E-book', { meta_status: 'Published', IsDigital: 1 }),
      product('Course', { meta_status: 'Published', IsDigital: 1 }),
      product('Album', { meta_status: 'Published', IsDigital: 1 }),
    ],
    {
      core_customers: [1, 2, 3].map((n) => ({ email: `c${n}-${Math.random().toString(36).slice(2)}@example.test`, firstname: `C${n}` })),
      ...extra,
    },
  );
  const ids: number[] = (await t.dataSource.query('SELECT id FROM core_customers WHERE app_id = $1 ORDER BY id', [tenant.appId])).map(
    (r: { id: number }) => r.id,
  );
  const [{ id: plainUser }] = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 AND primary_role = 'user'`, [
    tenant.appId,
  ]);
  return {
    ...tenant,
    digital: tenant.products,
    customers: ids,
    customerHeaders: ids.map((id) => ({ ...tenant.headers, authorization: `Bearer ${customerBearer(t, tenant.appId, id)}` })),
    userHeaders: { ...tenant.headers, authorization: `Bearer ${userToken(t, tenant, plainUser)}` },
  };
}

export function customerBearer(t: TestApp, appId: number, customerId: number): string {
  return t.get(SessionTokensService).sign({ userId: customerId, appId, authTable: 'core_customers', role: null }, 'access');
}

let items = 0;
/** A fresh order item id (core_tokens' UNIQUE (order_item_id, item_unit) is global). */
export function nextItemId(): number {
  return 1_000_000 + process.pid * 1000 + ++items;
}

/** One digital item of `product` (a master id whose first version is itself). */
export function item(productId: number, extra: Partial<DigitalItem> = {}): DigitalItem {
  const orderItemId = nextItemId();
  return { orderId: orderItemId, orderItemId, productVersionId: productId, productMasterId: productId, quantity: 1, gift: false, ...extra };
}

/** A context of app `appId` for calling the tokens module's services directly (the app's id is all they read of it). */
export function appContext(appId: number): RequestContext {
  return RequestContext.background('test', false, { id: appId } as TenantSite);
}

/** Order completion's call: TokenIssuerService.issue inside a transaction of its own. */
export function issue(t: TestApp, appId: number, purchaserId: number | null, items: DigitalItem[]): Promise<TokenRow[]> {
  const ctx = appContext(appId);
  return t.get(TransactionalConnection).inTransaction(ctx, () => t.get(TokenIssuerService).issue(ctx, purchaserId, items));
}

/** Issues one token of `productId` and answers it. */
export async function oneToken(
  t: TestApp,
  shop: Shop,
  productId: number,
  purchaser: number | null,
  extra: Partial<DigitalItem> = {},
): Promise<TokenRow> {
  const [token] = await issue(t, shop.appId, purchaser, [item(productId, extra)]);
  return token;
}

/** A token row straight from the table (the state the endpoints left). */
export async function tokenInDb(t: TestApp, id: number): Promise<Record<string, any>> {
  const [row] = await t.dataSource.query('SELECT * FROM core_tokens WHERE id = $1', [id]);
  return row;
}

/** Moves a token's expiry date into the past (arranging a token whose date has passed). */
export async function backdateExpiry(t: TestApp, id: number): Promise<void> {
  await t.dataSource.query(`UPDATE core_tokens SET expiry_date = now() - interval '1 minute' WHERE id = $1`, [id]);
}

/** Links a template to a product through /addrelated as the tenant's admin; answers the template id. */
export async function templateFor(
  t: TestApp,
  shop: Shop,
  productId: number,
  template: { status_default?: string; expiry_days?: number | null; maximum_activations?: number },
): Promise<number> {
  const [{ id }] = await t.dataSource.query(
    `INSERT INTO core_token_template (app_id, name, status_default, expiry_days, maximum_activations) VALUES ($1, 'Template', $2, $3, $4) RETURNING id`,
    [shop.appId, template.status_default ?? 'pending', template.expiry_days ?? null, template.maximum_activations ?? 3],
  );
  const res = await t.post(
    '/addrelated',
    { check: true, data: { parent_table: 'core_products', parent_id: productId, name: 'core_token_template', linked: id } },
    shop.adminHeaders,
  );
  if (res.status !== 200) throw new Error(`addrelated answered ${res.status}: ${JSON.stringify(res.body)}`);
  return id;
}

/** The row fields validateToken and activateToken answer with (no order_item_id). */
export const PUBLIC_ROW_KEYS = [
  'activations',
  'created_date',
  'customer_id',
  'expiry_date',
  'id',
  'last_activated',
  'maximum_activations',
  'order_id',
  'product_id',
  'status',
  'token_value',
];

/** A test app with two shops (A and B) of their own apps, as each token test file starts with. */
export async function startTwoShops(): Promise<{ t: TestApp; a: Shop; b: Shop }> {
  const t = await startTestApp();
  return { t, a: await seedShop(t), b: await seedShop(t) };
}
