import { product, seedTenant, Tenant } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

describe('POST /addrelated', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    a = await seedTenant(t, [product('E-book', { meta_status: 'Published', IsDigital: 1 })]);
    b = await seedTenant(t, [product('Other', { meta_status: 'Published' })]);
  });
  afterAll(() => t.close());

  const link = (data: Record<string, unknown>, check = true, headers = a.adminHeaders) =>
    t.post(
      '/addrelated',
      { check, data: { parent_table: 'core_products', parent_id: a.products[0], name: 'core_token_template', linked: 1, ...data } },
      headers,
    );

  it('links a token template to a product, and check prevents a duplicate link', async () => {
    const first = await link({});
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: 'Success',
      message: 'Link added',
      data: { parent_table: 'core_products', parent_id: a.products[0], name: 'core_token_template', linked: 1, master_id: a.products[0] },
    });
    const again = await link({});
    expect(again.body).toMatchObject({ message: 'Link already exists', data: { id: first.body.data.id } });
    const concurrent = await Promise.all([link({ linked: 2 }), link({ linked: 2 }), link({ linked: 2 })]);
    expect(new Set(concurrent.map((r) => r.body.data.id)).size).toBe(1);
    const unchecked = await link({}, false);
    expect(unchecked.body.message).toBe('Link added');
    const rows = await t.dataSource.query(
      `SELECT linked FROM core_related WHERE app_id = $1 AND name = 'core_token_template' ORDER BY id`,
      [a.appId],
    );
    expect(rows.map((r: any) => r.linked)).toEqual([1, 2, 1]);
  });

  it('maps a version id of a versioned parent to its master id', async () => {
    const edit = await t.post('/content/edit', { table: 'core_products', masterId: a.products[0], data: { price: 999 } }, a.adminHeaders);
    const res = await link({ parent_id: edit.body.data.Current_ID, name: 'gallery', linked: 5 });
    expect(res.body.data).toMatchObject({ parent_id: edit.body.data.Current_ID, master_id: a.products[0] });
  });

  it("needs an admin, stays in the caller's app and names bad fields", async () => {
    expect((await link({}, true, a.headers)).status).toBe(401);
    const foreign = await link({ parent_id: b.products[0] });
    expect([foreign.status, foreign.body.errors[0].field]).toEqual([400, 'data.parent_id']);
    for (const [data, field] of [
      [{ parent_table: 'pg_authid' }, 'data.parent_table'],
      [{ parent_table: 'core_products"; --' }, 'data.parent_table'],
      [{ parent_id: 'x' }, 'data.parent_id'],
      [{ linked: 'x' }, 'data.linked'],
      [{ name: "a'; DROP TABLE core_related; --" }, 'data.name'],
      [{ parent_id: 99999999999 }, 'data.parent_id'],
      [{ linked: 99999999999 }, 'data.linked'],
      [{ parent_table: 'core_sms_codes' }, 'data.parent_table'],
      [{ parent_table: 'core_sites', parent_id: a.appId }, 'data.parent_table'],
    ] as [Record<string, unknown>, string][]) {
      const res = await link(data);
      expect({ data, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ data, status: 400, field });
    }
    const missing = await t.post('/addrelated', { check: true }, a.adminHeaders);
    expect([missing.status, missing.body.errors]).toEqual([400, [{ field: 'data', message: 'data is required' }]]);
    // An array is not a link: one message for it (it was validated element by element, or reached the service empty).
    for (const data of [[], [{}], 'x', null]) {
      const res = await t.post('/addrelated', { data }, a.adminHeaders);
      expect({ data, status: res.status, errors: res.body.errors }).toEqual({
        data,
        status: 400,
        errors: [
          {
            field: 'data',
            message: data === null ? 'data is required' : 'data must be an object: { parent_table, parent_id, name, linked }',
          },
        ],
      });
    }
    // A folder of the app (a live table with app_id) can be a parent too.
    const [folder] = await t.dataSource.query(`INSERT INTO core_folders (app_id, name) VALUES ($1, 'Members') RETURNING id`, [a.appId]);
    expect((await link({ parent_table: 'core_folders', parent_id: folder.id, name: 'core_users', linked: a.adminId })).status).toBe(200);
  });
});
