import { IdCipherService } from '../../src/common/id-cipher.service';
import { TableCatalogService } from '../../src/versioning';
import { product, seedTenant, Tenant, userToken } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

describe('POST /getDataRows', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let echoDraftId: number;

  beforeAll(async () => {
    t = await startTestApp({ DATA_ROWS_MAX_PER_PAGE: '50' });
    a = await seedTenant(t, [
      product('Alpha', { price: 1000, meta_status: 'Published' }),
      product('Bravo', { price: 2000, meta_status: 'Published', IsDigital: 1 }),
      product('Charlie', { price: 3000, meta_status: 'Staged' }),
      product('Delta', { price: 4000 }),
      product('Echo 50%_off', { price: 5000, meta_status: 'Published', description: null }),
    ]);
    b = await seedTenant(t, [product('Foreign', { price: 1000, meta_status: 'Published' })]);
    const edit = await t.post(
      '/content/edit',
      { table: 'core_products', masterId: a.products[4], data: { title: 'Echo draft', price: 5500 } },
      a.adminHeaders,
    );
    expect(edit.status).toBe(200);
    echoDraftId = edit.body.data.Current_ID;
  });
  afterAll(() => t.close());

  const rows = (body: Record<string, unknown>, headers: Record<string, string> = a.headers) => t.post('/getDataRows', body, headers);
  const titles = (res: { body: any }) => (res.body.data as any[]).map((r) => r.title);

  it("answers published rows by default with _id and the meta fields, only from the caller's app", async () => {
    const res = await rows({ table: 'core_products' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Success');
    expect(titles(res)).toEqual(['Alpha', 'Bravo', 'Echo 50%_off']);
    const echo = res.body.data[2];
    expect(echo).toMatchObject({
      meta_master_id: a.products[4],
      meta_current_id: a.products[4],
      meta_title: 'Echo 50%_off',
      meta_status: 'Published',
      price: 5000,
    });
    expect(typeof echo.meta_updated).toBe('string');
    expect(t.get(IdCipherService).decryptId(a.appId, echo._id)).toBe(a.products[4]);
    expect(echo).not.toHaveProperty('password');
    // isPublished and production name the same default.
    expect(titles(await rows({ table: 'core_products', isPublished: true }))).toEqual(titles(res));
    expect(titles(await rows({ table: 'core_products', production: 'true' }))).toEqual(titles(res));
    // B's rows: only B's product.
    expect(titles(await rows({ table: 'core_products' }, b.headers))).toEqual(['Foreign']);
  });

  it('isStage answers staged rows visible now (and the published ones, which are staged too)', async () => {
    const res = await rows({ table: 'core_products', isStage: true });
    expect(res.status).toBe(200);
    expect(titles(res)).toEqual(['Alpha', 'Bravo', 'Charlie', 'Echo 50%_off']);
    expect(res.body.data[2].meta_status).toBe('Staged');
  });

  it('isLive / isAdmin answer the current version of every record for an admin, and need one', async () => {
    const live = await rows({ table: 'core_products', isLive: true }, a.adminHeaders);
    expect(live.status).toBe(200);
    expect(titles(live)).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo draft']);
    expect(live.body.data[4]).toMatchObject({
      meta_current_id: echoDraftId,
      meta_master_id: a.products[4],
      meta_status: 'Editing',
      price: 5500,
    });
    expect(titles(await rows({ table: 'core_products', isAdmin: 1 }, a.adminHeaders))).toEqual(titles(live));
    // The two names are aliases: either one set is enough, and each one given must be a boolean.
    expect(titles(await rows({ table: 'core_products', isLive: false, isAdmin: true }, a.adminHeaders))).toEqual(titles(live));
    expect((await rows({ table: 'core_products', isLive: true, isAdmin: 'maybe' }, a.adminHeaders)).body.errors[0].field).toBe('isAdmin');
    expect((await rows({ table: 'core_products', isPublished: false, production: 'yes' })).body.errors[0].field).toBe('production');

    expect((await rows({ table: 'core_products', isLive: true })).status).toBe(401);
    const [user] = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 AND primary_role = 'user'`, [a.appId]);
    const asUser = await rows(
      { table: 'core_products', isLive: true },
      { ...a.headers, authorization: `Bearer ${userToken(t, a, user.id)}` },
    );
    expect(asUser.status).toBe(403);
    expect(
      (await rows({ table: 'core_products', isAppGrid: true }, { ...a.headers, authorization: `Bearer ${userToken(t, a, user.id)}` }))
        .status,
    ).toBe(403);
    // An admin token of A is worthless in B.
    expect(
      (await rows({ table: 'core_products', isLive: true }, { ...b.headers, authorization: a.adminHeaders.authorization })).status,
    ).toBe(401);
  });

  it('isAppGrid answers raw rows of the app without metadata, and wins over the other options', async () => {
    const res = await rows({ table: 'core_products', isAppGrid: true, isLive: true, isStage: true, fields: 'id,title' }, a.adminHeaders);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(6); // five records plus Echo's draft version row
    expect(Object.keys(res.body.data[0]).sort()).toEqual(['id', 'title']);
    expect(titles(res)).not.toContain('Foreign');
    // isLive wins over isStage.
    expect(titles(await rows({ table: 'core_products', isLive: true, isStage: true }, a.adminHeaders))).toContain('Delta');
  });

  it('fields picks columns; unknown and secret columns are refused', async () => {
    const res = await rows({ table: 'core_products', fields: ' title , price ' });
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      ['_id', 'meta_current_id', 'meta_master_id', 'meta_status', 'meta_title', 'meta_updated', 'price', 'title'].sort(),
    );
    const star = await rows({ table: 'core_products', fields: '*' });
    expect(star.body.data[0]).toHaveProperty('IsDigital');
    for (const fields of ['nope', 'title,nope', 'title;price', 'pg_sleep(1)']) {
      const bad = await rows({ table: 'core_products', fields });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].field).toBe('fields');
    }
  });

  it('never reads, filters or sorts on secret columns, in any mode', async () => {
    for (const mode of [{}, { isLive: true }, { isAppGrid: true }]) {
      const star = await rows({ table: 'core_users', fields: '*', ...mode }, a.adminHeaders);
      expect(star.status).toBe(200);
      for (const row of star.body.data) expect(row).not.toHaveProperty('password');
      const read = await rows({ table: 'core_users', fields: 'user_email,password', ...mode }, a.adminHeaders);
      expect([read.status, read.body.errors?.[0].field]).toEqual([400, 'fields']);
      const filter = await rows(
        {
          table: 'core_users',
          whereConditions: { operator: 'AND', conditions: [{ field: 'password', operator: 'starts_with', value: '$2' }] },
          ...mode,
        },
        a.adminHeaders,
      );
      expect([filter.status, filter.body.errors?.[0].field]).toEqual([400, 'whereConditions.conditions[0].field']);
      const sort = await rows({ table: 'core_users', orderBy: 'password ASC', ...mode }, a.adminHeaders);
      expect([sort.status, sort.body.errors?.[0].field]).toEqual([400, 'orderBy']);
    }
    const raw = await rows({ table: 'core_users', isAppGrid: true }, a.adminHeaders);
    expect(raw.body.data.map((u: any) => u.user_email).sort()).toHaveLength(2);
  });

  it("account tables are for the app's admins in every mode, and never show secret columns", async () => {
    expect(
      (await t.post('/customers/signup', { email: 'reader@example.test', password: 'Reader@1234', firstname: 'Rea' }, a.headers)).status,
    ).toBe(200);
    // A push subscription gives the customer values in its secret columns.
    await t.dataSource.query(
      `UPDATE core_customers SET pushsubscription = 'https://push.example/x', p256dh = 'k', auth = 'a' WHERE app_id = $1`,
      [a.appId],
    );
    // Even a fixture that marks accounts Published does not make them public.
    await t.dataSource.query(
      `UPDATE core_data SET "Status" = 'Published', "Published" = 1, "Staged" = 1, "Publish_Set_Date" = now() - interval '1 minute' WHERE "Shop_ID" = $1 AND "Source_Table" IN ('core_users', 'core_customers')`,
      [a.appId],
    );
    for (const table of ['core_users', 'core_customers', 'core_app_users']) {
      for (const mode of [{}, { isPublished: true }, { production: true }, { isStage: true }]) {
        const res = await rows({ table, ...mode });
        expect({ table, mode, status: res.status }).toEqual({ table, mode, status: 401 });
      }
    }
    for (const mode of [{}, { isLive: true }, { isAppGrid: true }]) {
      const res = await rows({ table: 'core_customers', fields: '*', ...mode }, a.adminHeaders);
      expect(res.status).toBe(200);
      expect(res.body.data.map((r: any) => r.email)).toContain('reader@example.test');
      for (const row of res.body.data)
        for (const secret of ['password', 'password_changed', 'pushsubscription', 'p256dh', 'auth']) expect(row).not.toHaveProperty(secret);
      for (const secret of ['p256dh', 'auth', 'pushsubscription']) {
        expect((await rows({ table: 'core_customers', fields: secret, ...mode }, a.adminHeaders)).status).toBe(400);
      }
    }
    // B's admin never sees A's customers.
    const foreign = await rows({ table: 'core_customers', isAppGrid: true }, b.adminHeaders);
    expect(foreign.body.data.map((r: any) => r.email)).not.toContain('reader@example.test');
  });

  it('core_sites (private payment keys) and the other system tables stay out even if someone registers them', async () => {
    await t.dataSource.query(
      `INSERT INTO core_tables (table_name, "Live") VALUES ('core_sites', true), ('core_data', true), ('core_sms_codes', true) ON CONFLICT DO NOTHING`,
    );
    t.get(TableCatalogService).invalidate();
    try {
      for (const table of ['core_sites', 'core_data', 'core_sms_codes']) {
        for (const mode of [
          {},
          { isLive: true },
          { isAppGrid: true, fields: '*' },
          { isAppGrid: true, fields: 'payment_live_private_key' },
        ]) {
          const res = await rows({ table, ...mode }, a.adminHeaders);
          expect({ table, mode, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({
            table,
            mode,
            status: 400,
            field: 'table',
          });
        }
      }
    } finally {
      await t.dataSource.query(`DELETE FROM core_tables WHERE table_name IN ('core_sites', 'core_data', 'core_sms_codes')`);
      t.get(TableCatalogService).invalidate();
    }
  });

  it('refuses unregistered tables and system catalogs', async () => {
    for (const table of [
      'core_sites',
      'core_data',
      'core_tables',
      'core_related',
      'typeorm_migrations',
      'pg_user',
      'pg_shadow',
      'pg_catalog.pg_authid',
      'information_schema.tables',
      'pg_authid',
      '',
      42,
      null,
    ]) {
      for (const mode of [{}, { isAppGrid: true }]) {
        const res = await rows({ table, ...mode }, a.adminHeaders);
        expect({ table, status: res.status }).toEqual({ table, status: 400 });
        expect(res.body).toMatchObject({ status: 'Failed', message: 'Validation error' });
        expect(res.body.errors[0].field).toBe('table');
      }
    }
  });

  it('whereConditions: equals, less_than and the further operators, with AND and OR', async () => {
    const where = async (conditions: unknown[], operator = 'AND', extra: Record<string, unknown> = {}) => {
      const res = await rows({ table: 'core_products', isLive: true, whereConditions: { operator, conditions }, ...extra }, a.adminHeaders);
      expect(res.status).toBe(200);
      return titles(res);
    };
    expect(await where([{ field: 'title', operator: 'equals', value: 'Bravo' }])).toEqual(['Bravo']);
    expect(await where([{ field: 'price', operator: 'less_than', value: '3000' }])).toEqual(['Alpha', 'Bravo']);
    expect(await where([{ field: 'price', operator: 'less_than_or_equal', value: 3000 }])).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(await where([{ field: 'price', operator: 'greater_than', value: '4000' }])).toEqual(['Echo draft']);
    expect(await where([{ field: 'price', operator: 'greater_than_or_equal', value: '4000' }])).toEqual(['Delta', 'Echo draft']);
    expect(await where([{ field: 'title', operator: 'not_equals', value: 'Alpha' }])).toHaveLength(4);
    expect(await where([{ field: 'title', operator: 'contains', value: 'ELT' }])).toEqual(['Delta']);
    expect(await where([{ field: 'title', operator: 'starts_with', value: 'ch' }])).toEqual(['Charlie']);
    expect(await where([{ field: 'title', operator: 'in', value: 'Alpha, Delta' }])).toEqual(['Alpha', 'Delta']);
    expect(await where([{ field: 'price', operator: 'in', value: [1000, '2000'] }])).toEqual(['Alpha', 'Bravo']);
    expect(await where([{ field: 'event_date', operator: 'is_null' }])).toHaveLength(5);
    expect(await where([{ field: 'event_date', operator: 'is_not_null' }])).toEqual([]);
    expect(await where([{ field: 'IsDigital', operator: 'equals', value: '1' }])).toEqual(['Bravo']);
    expect(
      await where(
        [
          { field: 'title', operator: 'equals', value: 'Alpha' },
          { field: 'price', operator: 'equals', value: '4000' },
        ],
        'OR',
      ),
    ).toEqual(['Alpha', 'Delta']);
    expect(
      await where(
        [
          { field: 'title', operator: 'equals', value: 'Alpha' },
          { field: 'price', operator: 'equals', value: '4000' },
        ],
        'AND',
      ),
    ).toEqual([]);
    expect(await where([{ field: 'meta_status', operator: 'equals', value: 'Editing' }])).toEqual(['Echo draft']);
    expect(await where([{ field: 'meta_master_id', operator: 'equals', value: String(a.products[0]) }])).toEqual(['Alpha']);
    // LIKE wildcards in values are literal.
    expect(await where([{ field: 'title', operator: 'contains', value: '%' }])).toEqual([]);
    const published = await rows({
      table: 'core_products',
      whereConditions: { conditions: [{ field: 'title', operator: 'contains', value: '50%_' }] },
    });
    expect(titles(published)).toEqual(['Echo 50%_off']);
  });

  it('whereConditions: values that do not fit the column, unknown operators and fields are a 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ conditions: [{ field: 'price', operator: 'less_than', value: 'cheap' }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: [{ field: 'price', operator: 'equals', value: '99999999999999999999' }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: [{ field: 'price', operator: 'equals', value: '9999999999999' }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: [{ field: 'created', operator: 'less_than', value: 'yesterday' }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: [{ field: 'created', operator: 'less_than', value: '2024-13-45' }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: [{ field: 'title', operator: 'regex', value: '.*' }] }, 'whereConditions.conditions[0].operator'],
      [{ conditions: [{ field: 'price', operator: 'contains', value: '1' }] }, 'whereConditions.conditions[0].operator'],
      [{ conditions: [{ field: 'nope', operator: 'equals', value: '1' }] }, 'whereConditions.conditions[0].field'],
      [{ conditions: [{ operator: 'equals', value: '1' }] }, 'whereConditions.conditions[0].field'],
      [{ conditions: [{ field: 'title', operator: 'equals' }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: [{ field: 'title', operator: 'in', value: [] }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: ['title = 1'] }, 'whereConditions.conditions[0]'],
      [{ operator: 'XOR', conditions: [] }, 'whereConditions.operator'],
      [{ conditions: 'title = 1' }, 'whereConditions.conditions'],
      ['title = 1', 'whereConditions'],
      [
        { conditions: Array.from({ length: 21 }, () => ({ field: 'title', operator: 'equals', value: 'x' })) },
        'whereConditions.conditions',
      ],
      // Not silently read as `equals`.
      [{ conditions: [{ field: 'title', operator: { x: 1 }, value: 'Alpha' }] }, 'whereConditions.conditions[0].operator'],
      [{ conditions: [{ field: 'title', operator: ['equals'], value: 'Alpha' }] }, 'whereConditions.conditions[0].operator'],
      [{ conditions: [{ field: 'title', operator: 1, value: 'Alpha' }] }, 'whereConditions.conditions[0].operator'],
      // Values outside the column's type are named before PostgreSQL sees them (they were a 400 on `whereConditions`).
      [{ conditions: [{ field: 'IsDigital', operator: 'equals', value: '99999' }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: [{ field: 'IsDigital', operator: 'in', value: '1,99999' }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: [{ field: 'event_date', operator: 'less_than', value: '2024-02-30' }] }, 'whereConditions.conditions[0].value'],
      [{ conditions: [{ field: 'event_date', operator: 'less_than', value: '0000-01-01' }] }, 'whereConditions.conditions[0].value'],
      [
        { conditions: [{ field: 'title', operator: 'equals', value: { nested: { deeper: ['x'] } } }] },
        'whereConditions.conditions[0].value',
      ],
      [{ conditions: [{ field: 'title', operator: 'in', value: [['Alpha']] }] }, 'whereConditions.conditions[0].value'],
    ];
    for (const [whereConditions, field] of cases) {
      const res = await rows({ table: 'core_products', whereConditions });
      expect({ whereConditions, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ whereConditions, status: 400, field });
    }
  });

  it('orderBy sorts ASC or DESC on one or more columns, meta fields included, and refuses anything else', async () => {
    expect(titles(await rows({ table: 'core_products', orderBy: 'price DESC' }))).toEqual(['Echo 50%_off', 'Bravo', 'Alpha']);
    expect(titles(await rows({ table: 'core_products', orderBy: 'IsDigital desc, title asc' }))).toEqual([
      'Bravo',
      'Alpha',
      'Echo 50%_off',
    ]);
    expect(titles(await rows({ table: 'core_products', orderBy: 'meta_title DESC' }))).toEqual(['Echo 50%_off', 'Bravo', 'Alpha']);
    for (const orderBy of [
      'price DOWN',
      'price; DROP TABLE core_products',
      'nope ASC',
      '1',
      'price ASC NULLS FIRST',
      'random()',
      'a,b,c,d,e,f',
      42,
    ]) {
      const res = await rows({ table: 'core_products', orderBy });
      expect({ orderBy, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ orderBy, status: 400, field: 'orderBy' });
    }
  });

  it('isPaging, perPage and page page through the rows; perPage has a maximum', async () => {
    const page1 = await rows({ table: 'core_products', isLive: true, isPaging: true, perPage: 2, page: 1 }, a.adminHeaders);
    const page3 = await rows({ table: 'core_products', isLive: true, isPaging: true, perPage: 2, page: '3' }, a.adminHeaders);
    expect(titles(page1)).toEqual(['Alpha', 'Bravo']);
    expect(page1.body.paging).toEqual({ page: 1, perPage: 2, hasMore: true });
    expect(titles(page3)).toEqual(['Echo draft']);
    expect(page3.body.paging).toEqual({ page: 3, perPage: 2, hasMore: false });
    for (const [body, field] of [
      [{ perPage: 51 }, 'perPage'],
      [{ perPage: 0 }, 'perPage'],
      [{ perPage: 'ten' }, 'perPage'],
      [{ page: 0 }, 'page'],
      [{ page: -1 }, 'page'],
      [{ page: 1.5 }, 'page'],
    ] as [Record<string, unknown>, string][]) {
      const res = await rows({ table: 'core_products', isPaging: true, ...body });
      expect({ body, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ body, status: 400, field });
    }
    expect((await rows({ table: 'core_products', isPaging: 'maybe' })).body.errors[0].field).toBe('isPaging');
  });

  it('record answers the single first row as data, or null', async () => {
    const one = await rows({
      table: 'core_products',
      record: true,
      whereConditions: { conditions: [{ field: 'title', operator: 'equals', value: 'Bravo' }] },
    });
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ title: 'Bravo', meta_master_id: a.products[1] });
    const none = await rows({
      table: 'core_products',
      record: true,
      whereConditions: { conditions: [{ field: 'title', operator: 'equals', value: 'Zulu' }] },
    });
    expect(none.body.data).toBeNull();
  });

  it('survives a battery of injection strings in every field of the request: 200 or 400, never 500, nothing changed', async () => {
    const payloads = [
      "'; DROP TABLE core_products; --",
      '" OR 1=1 --',
      'title"; DROP TABLE core_data; --',
      'price) OR (1=1',
      '1; SELECT pg_sleep(3)',
      '1 OR 1=1',
      "' OR '1'='1",
      'core_products c, core_users u',
      'pg_catalog.pg_authid',
      'information_schema.columns',
      'title ASC; DELETE FROM core_data',
      '$1',
      '\\',
      'title\u0000',
      "ti'tle",
      '*/ OR 1=1 /*',
      'core_users UNION SELECT password FROM core_users',
      '(SELECT password FROM core_users LIMIT 1)',
      'title COLLATE "C"',
      '"title"',
      'x'.repeat(5000),
      '__proto__',
      'constructor',
      'title; DROP',
      '1',
      '(select 1)',
      'title ASC, password DESC',
      '"core_products"',
      'core_pr\u00f6ducts',
      'c\u043ere_products',
      'pg_user',
      'public.core_products',
      '-1',
      '99999999999',
      '1e3',
    ];
    const before = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM core_products)::int AS p, (SELECT count(*) FROM core_data)::int AS d, (SELECT count(*) FROM core_users)::int AS u`,
    );
    const statuses = new Set<number>();
    for (const s of payloads) {
      const cond = (over: Record<string, unknown>) => ({
        table: 'core_products',
        whereConditions: { operator: 'AND', conditions: [{ field: 'title', operator: 'equals', value: 'x', ...over }] },
      });
      const bodies: Record<string, unknown>[] = [
        { table: s },
        { table: s, isAppGrid: true },
        { table: 'core_products', fields: s },
        { table: 'core_products', fields: `title,${s}` },
        { table: 'core_products', orderBy: s },
        { table: 'core_products', orderBy: `title ${s}` },
        { table: 'core_products', isPaging: true, perPage: s, page: s },
        { table: 'core_products', isStage: s, isLive: s, isAppGrid: s, record: s },
        { table: 'core_products', whereConditions: { operator: s, conditions: [] } },
        cond({ field: s }),
        cond({ operator: s }),
        cond({ value: s }),
        cond({ operator: 'contains', value: s }),
        cond({ operator: 'in', value: [s, s] }),
        cond({ field: 'price', value: s }),
        cond({ field: 'created', operator: 'less_than', value: s }),
        cond({ field: 'meta_status', value: s }),
      ];
      for (const body of bodies) {
        for (const headers of [a.headers, a.adminHeaders]) {
          const res = await rows({ ...body, ...(headers === a.adminHeaders ? { isLive: true } : {}) }, headers);
          statuses.add(res.status);
          // 401: a payload read as a true isLive/isAppGrid flag on the public request (drafts need an admin).
          const refused = res.status === 401 && headers === a.headers ? 401 : 400;
          expect({ body, status: res.status }).toEqual({ body, status: res.status === 200 ? 200 : refused });
          if (res.status === 200) {
            // A payload used as a value matches nothing; it never widens the result.
            const data = Array.isArray(res.body.data) ? res.body.data : [res.body.data].filter(Boolean);
            for (const row of data) expect(row).not.toHaveProperty('password');
            if (body.whereConditions && data.length) expect(data.every((r: any) => r.title !== undefined)).toBe(true);
          }
        }
      }
    }
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 400]));
    expect([...statuses].every((status) => [200, 400, 401].includes(status))).toBe(true);
    const after = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM core_products)::int AS p, (SELECT count(*) FROM core_data)::int AS d, (SELECT count(*) FROM core_users)::int AS u`,
    );
    expect(after).toEqual(before);
  });

  it('a value payload is bound, not spliced: a title that looks like SQL is found literally', async () => {
    const sneaky = "Robert'); DROP TABLE core_products;--";
    const created = await t.post('/content/create', { table: 'core_products', data: { title: sneaky, price: 1 } }, a.adminHeaders);
    expect(created.status).toBe(200);
    const res = await rows(
      { table: 'core_products', isLive: true, whereConditions: { conditions: [{ field: 'title', operator: 'equals', value: sneaky }] } },
      a.adminHeaders,
    );
    expect(titles(res)).toEqual([sneaky]);
  });
});
