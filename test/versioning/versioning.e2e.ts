import { TableCatalogService } from '../../src/versioning';
import { IdCipherService } from '../../src/common/id-cipher.service';
import { product, seedTenant, Tenant, userToken } from './content-helpers';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

describe('versioned content: version chains and admin edits', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    a = await seedTenant(t, [product('E-book', { meta_status: 'Published', IsDigital: 1 }), product('Draft thing')]);
    b = await seedTenant(t, [product('Other tenant product', { meta_status: 'Published' })]);
  });
  afterAll(() => t.close());

  const versions = async (tenant: Tenant, masterId: number) => {
    const res = await t.post('/content/history', { table: 'core_products', masterId }, tenant.adminHeaders);
    expect(res.status).toBe(200);
    return res.body.data as Record<string, any>[];
  };

  it('loads the seed fixture rows of core_products with core_data flags from meta_status', async () => {
    const rows = await t.dataSource.query(
      `SELECT p.*, d.* FROM core_products p JOIN core_data d ON d."Current_ID" = p.id AND d."Source_Table" = 'core_products' WHERE p.app_id = $1 ORDER BY p.id`,
      [a.appId],
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      title: 'E-book',
      price: 1000,
      IsDigital: 1,
      Status: 'Published',
      Published: 1,
      Staged: 1,
      IsCurrent: 1,
      Title: 'E-book',
    });
    expect(rows[0].Master_ID).toBe(rows[0].Current_ID);
    expect(rows[1]).toMatchObject({ title: 'Draft thing', Status: 'New', Published: 0, Staged: 0 });
  });

  it('loads the seed fixture core_products row (explicit id, Published) and its core_related link', async () => {
    const seeded = await t.seed({
      site: siteFixture(),
      tables: {
        core_products: [{ id: 101, title: 'E-book', price: 2500, tax: 227, bond: 0, IsDigital: 1, IsEvent: 0, meta_status: 'Published' }],
        core_related: [{ parent_table: 'core_products', parent_id: 101, name: 'core_token_template', linked: 1 }],
      },
    });
    expect(seeded.ids.core_products).toEqual([101]);
    const res = await t.post('/getDataRows', { table: 'core_products' }, { 'site-id': String(seeded.appID) });
    expect(res.body.data).toEqual([
      expect.objectContaining({
        id: 101,
        title: 'E-book',
        price: 2500,
        tax: 227,
        bond: 0,
        IsDigital: 1,
        IsEvent: 0,
        meta_master_id: 101,
        meta_status: 'Published',
      }),
    ]);
  });

  it('documents the content endpoints and /getDataRows in the OpenAPI document', async () => {
    const res = await t.request('GET', '/docs/openapi.json');
    expect(res.status).toBe(200);
    for (const path of [
      '/content/create',
      '/content/edit',
      '/content/stage',
      '/content/publish',
      '/content/promote',
      '/content/expire',
      '/content/delete',
      '/content/rollback',
      '/content/history',
      '/content/diff',
      '/getDataRows',
      '/addrelated',
    ]) {
      expect(Object.keys(res.body.paths)).toContain(path);
    }
  });

  it('builds the version chain through several edits: new content row and core_data row each time, relinked', async () => {
    const created = await t.post(
      '/content/create',
      { table: 'core_products', data: { title: 'Mug', price: 1500, tax: 150, IsEvent: 0 } },
      a.adminHeaders,
    );
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      status: 'Success',
      message: 'Record created',
      data: { Status: 'New', IsCurrent: 1, Published: 0, Staged: 0 },
    });
    const masterId = created.body.data.Master_ID;
    expect(t.get(IdCipherService).decryptId(a.appId, created.body.data._id)).toBe(masterId);

    let expectedCurrentId = masterId;
    for (const price of [1600, 1700, 1800]) {
      const res = await t.post(
        '/content/edit',
        { table: 'core_products', _id: created.body.data._id, data: { price }, expectedCurrentId },
        a.adminHeaders,
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        Status: 'Editing',
        IsCurrent: 1,
        Published: 0,
        Staged: 0,
        Lock: 1,
        Master_ID: masterId,
        Updated_By: a.adminId,
      });
      expect(Math.abs(new Date(res.body.data.Updated).getTime() - Date.now())).toBeLessThan(60_000);
      expectedCurrentId = res.body.data.Current_ID;
    }

    const chain = await versions(a, masterId);
    expect(chain.map((v) => v.Status)).toEqual(['New', 'Editing', 'Editing', 'Editing']);
    expect(chain.map((v) => v.IsCurrent)).toEqual([0, 0, 0, 1]);
    expect(chain.map((v) => v.Lock)).toEqual([0, 0, 0, 1]);
    for (let i = 0; i < chain.length; i++) {
      expect(chain[i].Last_ID).toBe(i === 0 ? null : chain[i - 1].ID);
      expect(chain[i].Next_ID).toBe(i === chain.length - 1 ? null : chain[i + 1].ID);
    }
    expect(new Set(chain.map((v) => v.Current_ID)).size).toBe(4);
    const rows = await t.dataSource.query('SELECT id, title, price, tax FROM core_products WHERE id = ANY($1) ORDER BY id', [
      chain.map((v) => v.Current_ID),
    ]);
    expect(rows.map((r: any) => r.price)).toEqual([1500, 1600, 1700, 1800]);
    // Columns the edit did not name are copied from the version it started from.
    expect(rows.every((r: any) => r.title === 'Mug' && r.tax === 150)).toBe(true);

    const diff = await t.post('/content/diff', { table: 'core_products', masterId }, a.adminHeaders);
    expect(diff.status).toBe(200);
    expect(diff.body.data.changes).toEqual([{ field: 'price', from: 1700, to: 1800 }]);
    const wide = await t.post('/content/diff', { table: 'core_products', masterId, fromCurrentId: masterId }, a.adminHeaders);
    expect(wide.body.data.changes).toEqual([{ field: 'price', from: 1500, to: 1800 }]);
  });

  it('keeps the published version live while a new draft is edited, and the title follows the title field', async () => {
    const masterId = a.products[0];
    const res = await t.post(
      '/content/edit',
      { table: 'core_products', masterId, data: { title: 'E-book (2nd edition)' } },
      a.adminHeaders,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.Title).toBe('E-book (2nd edition)');
    const chain = await versions(a, masterId);
    expect(chain[0]).toMatchObject({ Status: 'Published', Published: 1, IsCurrent: 0, Next_ID: chain[1].ID });
    expect(chain[1]).toMatchObject({ Status: 'Editing', Published: 0, IsCurrent: 1, Last_ID: chain[0].ID });
  });

  it('two admins saving the same record at once: one wins, the other gets 409, and the retry keeps both edits', async () => {
    const created = await t.post('/content/create', { table: 'core_products', data: { title: 'Contended', price: 100 } }, a.adminHeaders);
    const masterId = created.body.data.Master_ID;
    const base = created.body.data.Current_ID;
    const [first, second] = await Promise.all([
      t.post('/content/edit', { table: 'core_products', masterId, data: { price: 200 }, expectedCurrentId: base }, a.adminHeaders),
      t.post(
        '/content/edit',
        { table: 'core_products', masterId, data: { title: 'Contended (renamed)' }, expectedCurrentId: base },
        a.adminHeaders,
      ),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const loser = first.status === 409 ? first : second;
    expect(loser.body).toMatchObject({ status: 'Failed', message: 'The record was changed by someone else; reload it and try again' });
    expect(await versions(a, masterId)).toHaveLength(2);

    // The loser reloads and saves again on top of the winner: nothing is lost.
    const winnerCurrent = (await versions(a, masterId))[1].Current_ID;
    const loserData = first.status === 409 ? { price: 200 } : { title: 'Contended (renamed)' };
    const retry = await t.post(
      '/content/edit',
      { table: 'core_products', masterId, data: loserData, expectedCurrentId: winnerCurrent },
      a.adminHeaders,
    );
    expect(retry.status).toBe(200);
    const [row] = await t.dataSource.query('SELECT title, price FROM core_products WHERE id = $1', [retry.body.data.Current_ID]);
    expect(row).toEqual({ title: 'Contended (renamed)', price: 200 });
  });

  it('saves without expectedCurrentId racing on one record never make two current versions', async () => {
    const created = await t.post('/content/create', { table: 'core_products', data: { title: 'Race', price: 1 } }, a.adminHeaders);
    const masterId = created.body.data.Master_ID;
    const results = await Promise.all(
      [2, 3, 4, 5].map((price) => t.post('/content/edit', { table: 'core_products', masterId, data: { price } }, a.adminHeaders)),
    );
    for (const r of results) expect([200, 409]).toContain(r.status);
    const chain = await versions(a, masterId);
    expect(chain.filter((v) => v.IsCurrent === 1)).toHaveLength(1);
    expect(chain).toHaveLength(1 + results.filter((r) => r.status === 200).length);
  });

  it("needs an admin bearer of the app, and never reaches another tenant's records", async () => {
    const masterId = a.products[1];
    expect((await t.post('/content/history', { table: 'core_products', masterId }, a.headers)).status).toBe(401);
    const [userId] = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 AND primary_role = 'user'`, [a.appId]);
    const asUser = await t.post(
      '/content/history',
      { table: 'core_products', masterId },
      { ...a.headers, authorization: `Bearer ${userToken(t, a, userId.id)}` },
    );
    expect(asUser.status).toBe(403);
    // A's admin token is not valid in B's app, and B's record is not found from A.
    expect(
      (
        await t.post(
          '/content/history',
          { table: 'core_products', masterId: b.products[0] },
          { ...b.headers, authorization: a.adminHeaders.authorization },
        )
      ).status,
    ).toBe(401);
    const foreign = await t.post('/content/edit', { table: 'core_products', masterId: b.products[0], data: { price: 1 } }, a.adminHeaders);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ status: 'Failed', message: 'Record not found' });
    // An encrypted id that does not decrypt answers exactly like an unknown id.
    const bogus = await t.post('/content/edit', { table: 'core_products', _id: 'not-an-id', data: { price: 1 } }, a.adminHeaders);
    expect(bogus.status).toBe(404);
    expect(bogus.body).toEqual(foreign.body);
  });

  it('refuses unknown tables and columns, secret and service columns and bad values with a 400 naming the field', async () => {
    const masterId = a.products[1];
    const cases: [Record<string, unknown>, string][] = [
      [{ table: 'core_nope', masterId, data: {} }, 'table'],
      [{ table: 'pg_catalog.pg_authid', masterId, data: {} }, 'table'],
      [{ table: 'core_products', masterId, data: { nope: 1 } }, 'data.nope'],
      [{ table: 'core_products', masterId, data: { app_id: b.appId } }, 'data.app_id'],
      [{ table: 'core_products', masterId, data: { id: 1 } }, 'data.id'],
      [{ table: 'core_products', masterId, data: { price: 'ten' } }, 'data.price'],
      [{ table: 'core_products', masterId, data: { price: -5 } }, 'data'],
      [{ table: 'core_products', masterId, data: { IsDigital: 7 } }, 'data'],
      [{ table: 'core_products', masterId, data: { title: null } }, 'data.title'],
      [{ table: 'core_products', masterId, data: 'x' }, 'data'],
      [{ table: 'core_products', data: {} }, '_id'],
      [{ table: 'core_users', masterId: a.adminId, data: { password: 'Hacked@123' } }, 'data.password'],
    ];
    for (const [body, field] of cases) {
      const res = await t.post('/content/edit', body, a.adminHeaders);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.message).toBe('Validation error');
      expect(res.body.errors[0].field).toBe(field);
    }
    const live = await t.post('/content/publish', { table: 'core_users', masterId: a.adminId }, a.adminHeaders);
    expect(live.status).toBe(400);
    expect(live.body.errors[0].field).toBe('table');
  });

  it('refuses ids beyond the integer columns and values the column cannot hold with a 400 naming the field, never a 500', async () => {
    const masterId = a.products[1];
    const huge = 99999999999;
    const cases: [string, Record<string, unknown>, string][] = [
      ['history', { table: 'core_products', masterId: huge }, 'masterId'],
      ['edit', { table: 'core_products', masterId: huge, data: { price: 1 } }, 'masterId'],
      ['edit', { table: 'core_products', masterId, expectedCurrentId: huge, data: { price: 1 } }, 'expectedCurrentId'],
      ['rollback', { table: 'core_products', masterId, toCurrentId: huge }, 'toCurrentId'],
      ['diff', { table: 'core_products', masterId, fromCurrentId: -1 }, 'fromCurrentId'],
      ['edit', { table: 'core_products', masterId, data: { event_date: '2024-02-30' } }, 'data.event_date'],
      ['edit', { table: 'core_products', masterId, data: { event_date: '2024-01-01T24:00:00Z' } }, 'data.event_date'],
      ['edit', { table: 'core_products', masterId, data: { sku: 'x'.repeat(101) } }, 'data.sku'],
      ['edit', { table: 'core_products', masterId, data: { IsDigital: 99999 } }, 'data.IsDigital'],
      ['edit', { table: 'core_products', masterId, data: { price: '2147483648' } }, 'data.price'],
    ];
    for (const [action, body, field] of cases) {
      const res = await t.post(`/content/${action}`, body, a.adminHeaders);
      expect({ action, body, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ action, body, status: 400, field });
    }
    // Characters, not UTF-16 units, count against a varchar length.
    const emoji = await t.post(
      '/content/edit',
      { table: 'core_products', masterId, data: { sku: '\u{1F600}'.repeat(100) } },
      a.adminHeaders,
    );
    expect(emoji.status).toBe(200);
  });

  it('edits a live table in place without history, and never shows its secret columns', async () => {
    await t.dataSource.query(
      `INSERT INTO core_tables (table_name, "Live", title_field) VALUES ('core_folders', true, 'name') ON CONFLICT DO NOTHING`,
    );
    t.get(TableCatalogService).invalidate();
    const [folder] = await t.dataSource.query(`INSERT INTO core_folders (app_id, name) VALUES ($1, 'Members') RETURNING id`, [a.appId]);
    const res = await t.post('/content/edit', { table: 'core_folders', masterId: folder.id, data: { name: 'Patrons' } }, a.adminHeaders);
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe('Patrons');
    const meta = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM core_data WHERE "Source_Table" = 'core_folders' AND "Master_ID" = $1`,
      [folder.id],
    );
    expect(meta[0].n).toBe(0);
  });

  it('refuses account tables: accounts change through the account endpoints', async () => {
    const res = await t.post(
      '/content/edit',
      { table: 'core_users', masterId: a.adminId, data: { primary_role: 'admin', firstname: 'Adaline' } },
      a.adminHeaders,
    );
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'table', message: '"core_users" is an account table: use the account endpoints' }]);
  });
});
