import { TransactionalConnection } from '../../src/database/transactional-connection';
import { TokenIssuerService } from '../../src/tokens';
import { siteFixture, TestApp } from '../support/test-app';
import { appContext, issue, item, Shop, startTwoShops, templateFor } from './token-helpers';

const HEX64 = /^[0-9a-f]{64}$/;

describe('token issuance (TokenIssuerService, called by order completion)', () => {
  let t: TestApp;
  let a: Shop;
  let b: Shop;

  beforeAll(async () => ({ t, a, b } = await startTwoShops()));
  afterAll(() => t.close());

  const links = (appId: number, tokenIds: number[]) =>
    t.dataSource.query(
      `SELECT parent_table, parent_id, name, linked, master_id FROM core_related WHERE app_id = $1 AND name = 'core_tokens' AND linked = ANY($2) ORDER BY linked`,
      [appId, tokenIds],
    );

  it('without a template: one pending token per unit, 3 activations, no expiry, owned by the purchaser and linked to them', async () => {
    const customer = a.customers[0];
    const digital = item(a.digital[0], { quantity: 3 });
    const tokens = await issue(t, a.appId, customer, [digital]);
    expect(tokens).toHaveLength(3);
    for (const token of tokens) {
      expect(token).toMatchObject({
        product_id: a.digital[0],
        customer_id: customer,
        order_id: digital.orderId,
        order_item_id: digital.orderItemId,
        status: 'pending',
        expiry_date: null,
        activations: 0,
        maximum_activations: 3,
        last_activated: null,
      });
      expect(token.token_value).toMatch(HEX64);
      expect(token.created_date).toBeInstanceOf(Date);
    }
    expect(new Set(tokens.map((x) => x.token_value)).size).toBe(3);
    const units = await t.dataSource.query('SELECT item_unit FROM core_tokens WHERE order_item_id = $1 ORDER BY item_unit', [
      digital.orderItemId,
    ]);
    expect(units.map((r: any) => r.item_unit)).toEqual([1, 2, 3]);
    expect(
      await links(
        a.appId,
        tokens.map((x) => x.id),
      ),
    ).toEqual(
      tokens.map((x) => ({ parent_table: 'core_customers', parent_id: customer, name: 'core_tokens', linked: x.id, master_id: customer })),
    );
  });

  it('product_id is the version row of the order item; the template is found through the product master id', async () => {
    const master = a.digital[1];
    await templateFor(t, a, master, { status_default: 'active', expiry_days: 30, maximum_activations: 5 });
    const edit = await t.post('/content/edit', { table: 'core_products', masterId: master, data: { price: 1200 } }, a.adminHeaders);
    expect(edit.status).toBe(200);
    const version = edit.body.data.Current_ID;
    expect(version).not.toBe(master);
    const [token] = await issue(t, a.appId, a.customers[0], [item(master, { productVersionId: version })]);
    expect(token).toMatchObject({ product_id: version, status: 'active', maximum_activations: 5, activations: 0 });
    const days = (token.expiry_date!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
  });

  it('the newest template link wins, and a link to another app’s template is ignored', async () => {
    const master = a.digital[2];
    await templateFor(t, a, master, { maximum_activations: 7 });
    await templateFor(t, a, master, { maximum_activations: 9 });
    expect((await issue(t, a.appId, null, [item(master)]))[0].maximum_activations).toBe(9);
    // A link row naming another app's template (written straight, as no endpoint would) gives the defaults.
    const [{ id: foreign }] = await t.dataSource.query(
      `INSERT INTO core_token_template (app_id, name, maximum_activations) VALUES ($1, 'B', 11) RETURNING id`,
      [b.appId],
    );
    await t.dataSource.query(
      `INSERT INTO core_related (app_id, parent_table, parent_id, name, linked) VALUES ($1, 'core_products', $2, 'core_token_template', $3)`,
      [a.appId, a.digital[0], foreign],
    );
    expect((await issue(t, a.appId, null, [item(a.digital[0])]))[0].maximum_activations).toBe(3);
    // ... and a link row of another app to this app's product is not this app's link.
    const [{ id: own }] = await t.dataSource.query(
      `INSERT INTO core_token_template (app_id, name, maximum_activations) VALUES ($1, 'A', 12) RETURNING id`,
      [a.appId],
    );
    await t.dataSource.query(
      `INSERT INTO core_related (app_id, parent_table, parent_id, name, linked) VALUES ($1, 'core_products', $2, 'core_token_template', $3)`,
      [b.appId, a.digital[0], own],
    );
    expect((await issue(t, a.appId, null, [item(a.digital[0])]))[0].maximum_activations).toBe(3);
  });

  it('a fixture link (parent_id only, master_id null) counts like one made by /addrelated', async () => {
    const productId = 800_000 + (process.pid % 10_000) * 10;
    const seeded = await t.seed({
      site: siteFixture(),
      tables: {
        core_products: [{ id: productId, title: 'Seeded e-book', price: 100, tax: 9, IsDigital: 1, meta_status: 'Published' }],
        core_token_template: [{ name: 'Seeded', status_default: 'active', expiry_days: null, maximum_activations: 2 }],
      },
    });
    const templateId = seeded.ids.core_token_template[0];
    await t.seed({ site: siteFixture(), tables: {} }); // another tenant in between: ids are not assumed
    await t.dataSource.query(
      `INSERT INTO core_related (app_id, parent_table, parent_id, name, linked) VALUES ($1, 'core_products', $2, 'core_token_template', $3)`,
      [seeded.appID, productId, templateId],
    );
    const [token] = await issue(t, seeded.appID, null, [item(productId)]);
    expect(token).toMatchObject({ status: 'active', maximum_activations: 2, expiry_date: null });
  });

  it('gift items get gift_pending tokens with no customer and no link, whatever the template says', async () => {
    const tokens = await issue(t, a.appId, a.customers[1], [item(a.digital[1], { gift: true, quantity: 2 })]);
    expect(tokens.map((x) => [x.status, x.customer_id])).toEqual([
      ['gift_pending', null],
      ['gift_pending', null],
    ]);
    expect(tokens[0].maximum_activations).toBe(5); // the template's limit and expiry still apply
    expect(tokens[0].expiry_date).not.toBeNull();
    expect(
      await links(
        a.appId,
        tokens.map((x) => x.id),
      ),
    ).toEqual([]);
  });

  it('a repeated issue for the same items issues nothing new and answers the same tokens', async () => {
    const items = [item(a.digital[0], { quantity: 2 }), item(a.digital[0], { gift: true })];
    const first = await issue(t, a.appId, a.customers[0], items);
    const again = await issue(t, a.appId, a.customers[0], items);
    expect(again).toEqual(first);
    const count = await t.dataSource.query('SELECT count(*)::int AS n FROM core_tokens WHERE order_item_id = ANY($1)', [
      items.map((i) => i.orderItemId),
    ]);
    expect(count[0].n).toBe(3);
    expect(
      await links(
        a.appId,
        first.map((x) => x.id),
      ),
    ).toHaveLength(2);
  });

  it('concurrent completions of one order issue one token set', async () => {
    const items = [item(a.digital[0], { quantity: 4 })];
    const results = await Promise.all(Array.from({ length: 5 }, () => issue(t, a.appId, a.customers[0], items)));
    for (const result of results) expect(result.map((x) => x.id)).toEqual(results[0].map((x) => x.id));
    const count = await t.dataSource.query('SELECT count(*)::int AS n FROM core_tokens WHERE order_item_id = $1', [items[0].orderItemId]);
    expect(count[0].n).toBe(4);
    expect(
      await links(
        a.appId,
        results[0].map((x) => x.id),
      ),
    ).toHaveLength(4);
  });

  it('runs in the caller’s transaction: a rollback leaves no token and no link', async () => {
    const items = [item(a.digital[0])];
    const scope = appContext(a.appId);
    await expect(
      t.get(TransactionalConnection).inTransaction(scope, async () => {
        await t.get(TokenIssuerService).issue(scope, a.customers[0], items);
        throw new Error('completion failed later');
      }),
    ).rejects.toThrow('completion failed later');
    const rows = await t.dataSource.query('SELECT id FROM core_tokens WHERE order_item_id = $1', [items[0].orderItemId]);
    expect(rows).toEqual([]);
  });

  it('ofOrderItems answers only the app’s tokens', async () => {
    const items = [item(a.digital[0], { gift: true })];
    const [token] = await issue(t, a.appId, null, items);
    const issuer = t.get(TokenIssuerService);
    expect((await issuer.ofOrderItems(appContext(a.appId), [items[0].orderItemId])).map((x) => x.id)).toEqual([token.id]);
    expect(await issuer.ofOrderItems(appContext(b.appId), [items[0].orderItemId])).toEqual([]);
    expect(await issuer.ofOrderItems(appContext(a.appId), [])).toEqual([]);
  });
});
