import { product, seedTenant, Tenant, userToken } from './content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The staff's content tables (README "Staff API: content tables"): POST /content/tables (each table with its
 * records by stage and the columns a form can edit) and /content/rows (a stage's records, drafts and staged ones
 * too); only the caller's app; 400 naming the field; 403 naming content.view.
 */
describe('staff: content tables and rows by stage', () => {
  let t: TestApp;
  let shop: Tenant;
  let other: Tenant;
  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const tables = (headers = shop.adminHeaders) => t.post('/content/tables', {}, headers);
  const rows = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/content/rows', body, headers);
  const content = (action: string, body: Record<string, unknown>) =>
    t.post(`/content/${action}`, { table: 'core_products', ...body }, shop.adminHeaders);
  const staffHeaders = async (roles: string[]): Promise<Record<string, string>> => {
    const [{ id }] = await sql(
      `INSERT INTO core_users (app_id, user_email, primary_role, staff_roles) VALUES ($1, $2, 'user', $3::varchar[]) RETURNING id`,
      [shop.appId, `staff-${roles.join('-')}-${Math.random().toString(36).slice(2)}@example.test`, roles],
    );
    return { ...shop.headers, authorization: `Bearer ${userToken(t, shop, id)}` };
  };

  // Master ids of the shop's products, by what happens to them below.
  let draft: number, staged: number, published: number, expired: number, lapsed: number, republishing: number, restaged: number;

  beforeAll(async () => {
    t = await startTestApp();
    shop = await seedTenant(t, [
      product('Draft'),
      product('Staged', { meta_status: 'Staged' }),
      product('Published', { meta_status: 'Published' }),
      product('Expired', { meta_status: 'Expired' }),
      product('Lapsed'),
      product('Republishing', { meta_status: 'Published' }),
      product('Restaged'),
    ]);
    [draft, staged, published, expired, lapsed, republishing, restaged] = shop.products;
    other = await seedTenant(t, [product('Theirs', { meta_status: 'Published' }), product('Their draft')]);
    // Published with an expiry date that has passed (the expiry job has not run): expired.
    expect(
      (await content('publish', { masterId: lapsed, publishSetDate: '2020-01-01T00:00:00Z', publishExpireDate: '2020-01-02T00:00:00Z' }))
        .status,
    ).toBe(200);
    // Published, then edited: the published version stays published, the new one is a draft.
    expect((await content('edit', { masterId: republishing, data: { price: 1500 } })).status).toBe(200);
    // Staged twice (an edit in between): one staged record, the newest version.
    expect((await content('stage', { masterId: restaged })).status).toBe(200);
    expect((await content('edit', { masterId: restaged, data: { title: 'Restaged v2' } })).status).toBe(200);
    expect((await content('stage', { masterId: restaged })).status).toBe(200);
  }, 60_000);
  afterAll(() => t?.close());

  it('lists the content tables with their records by stage and the columns a form can edit', async () => {
    const res = await tables();
    expect(res.status).toBe(200);
    const names = res.body.data.map((table: { table: string }) => table.table);
    expect(names).toContain('core_products');
    for (const account of ['core_users', 'core_customers', 'core_app_users']) expect(names).not.toContain(account);
    const products = res.body.data.find((table: { table: string }) => table.table === 'core_products');
    expect(products).toMatchObject({ live: false, titleField: 'title', stages: { draft: 2, staged: 2, published: 2, expired: 2 } });
    const columns = products.columns.map((column: { name: string }) => column.name);
    expect(columns).toEqual(expect.arrayContaining(['title', 'price', 'tax', 'bond', 'IsDigital', 'IsEvent', 'description']));
    for (const service of ['id', 'app_id', 'created', 'updated']) expect(columns).not.toContain(service);
    expect(products.columns.find((column: { name: string }) => column.name === 'price')).toEqual({
      name: 'price',
      kind: 'integer',
      nullable: expect.any(Boolean),
      maxLength: null,
    });
    expect(products.columns.find((column: { name: string }) => column.name === 'sku')).toMatchObject({ kind: 'text', maxLength: 100 });

    // Another app counts its own records only.
    const theirs = (await tables(other.adminHeaders)).body.data.find((table: { table: string }) => table.table === 'core_products');
    expect(theirs.stages).toEqual({ draft: 1, staged: 0, published: 1, expired: 0 });
  });

  it('lists the records of a stage, drafts and staged ones included, with their ids and meta fields', async () => {
    const masters = async (stage: string, headers = shop.adminHeaders) => {
      const res = await rows({ table: 'core_products', stage, perPage: 100 }, headers);
      expect(res.status).toBe(200);
      return res.body.data.map((row: { meta_master_id: number }) => row.meta_master_id).sort((a: number, b: number) => a - b);
    };
    expect(await masters('draft')).toEqual([draft, republishing].sort((a, b) => a - b));
    expect(await masters('staged')).toEqual([staged, restaged].sort((a, b) => a - b));
    expect(await masters('published')).toEqual([published, republishing].sort((a, b) => a - b));
    expect(await masters('expired')).toEqual([expired, lapsed].sort((a, b) => a - b));

    const drafts = (await rows({ table: 'core_products', stage: 'draft' })).body;
    const edited = drafts.data.find((row: { meta_master_id: number }) => row.meta_master_id === republishing);
    expect(edited).toMatchObject({ _id: expect.any(String), title: 'Republishing', price: 1500, meta_status: 'Editing' });
    expect(edited.meta_current_id).not.toBe(republishing);
    expect(drafts.paging).toEqual({ page: 1, perPage: 20, hasMore: false });
    const live = (await rows({ table: 'core_products', stage: 'published' })).body.data.find(
      (row: { meta_master_id: number }) => row.meta_master_id === republishing,
    );
    expect(live).toMatchObject({ price: 1000, meta_status: 'Published', meta_current_id: republishing });
    const newest = (await rows({ table: 'core_products', stage: 'staged' })).body.data.find(
      (row: { meta_master_id: number }) => row.meta_master_id === restaged,
    );
    expect(newest).toMatchObject({ title: 'Restaged v2', meta_status: 'Staged' });

    // The `_id` is the one /content/* takes.
    const history = await t.post('/content/history', { table: 'core_products', _id: edited._id }, shop.adminHeaders);
    expect(history.status).toBe(200);
    expect(history.body.data).toHaveLength(2);

    // Paging, and another app's records never.
    const first = await rows({ table: 'core_products', stage: 'draft', perPage: 1 });
    expect(first.body.data).toHaveLength(1);
    expect(first.body.paging).toEqual({ page: 1, perPage: 1, hasMore: true });
    const [theirDraft] = other.products.slice(1);
    expect(await masters('draft', other.adminHeaders)).toEqual([theirDraft]);
  });

  it('400 naming the field; 403 naming content.view; 401 without a bearer', async () => {
    for (const [body, field] of [
      [{ stage: 'draft' }, 'table'],
      [{ table: 'nope', stage: 'draft' }, 'table'],
      [{ table: 'core_customers', stage: 'draft' }, 'table'],
      [{ table: 'core_sites', stage: 'draft' }, 'table'],
      [{ table: 'core_products' }, 'stage'],
      [{ table: 'core_products', stage: 'live' }, 'stage'],
      [{ table: 'core_products', stage: 'draft', perPage: 0 }, 'perPage'],
      [{ table: 'core_products', stage: 'draft', page: 1.5 }, 'page'],
    ] as const) {
      const bad = await rows(body);
      expect({ body, status: bad.status, message: bad.body.message, field: bad.body.errors?.[0]?.field }).toEqual({
        body,
        status: 400,
        message: 'Validation error',
        field,
      });
    }
    const orders = await staffHeaders(['orders']);
    for (const refused of [await tables(orders), await rows({ table: 'core_products', stage: 'draft' }, orders)]) {
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ message: 'Insufficient permissions', permission: 'content.view' });
    }
    const viewer = await staffHeaders(['viewer']);
    expect((await tables(viewer)).status).toBe(200);
    expect((await rows({ table: 'core_products', stage: 'staged' }, viewer)).status).toBe(200);
    expect((await tables(shop.headers)).status).toBe(401);
  });
});
