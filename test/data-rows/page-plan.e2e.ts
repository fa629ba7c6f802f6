import { buildRowQuery } from '../../src/data-rows/row-query';
import { DEFERRED_JOIN_OFFSET, pageSql, rowParams, toSql } from '../../src/data-rows/repositories/data-row.repository';
import { prepared } from '../../src/database/prepared-statements';
import { TransactionScope } from '../../src/database/transaction-scope';
import { TableCatalogService } from '../../src/versioning';
import { startTestApp, TestApp } from '../support/test-app';
import { product, seedTenant, Tenant } from '../versioning/content-helpers';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

const PRODUCTS = 10_000;
/** The orders tenants page their products by, and the index that walks each. */
const ORDERED = ['title', 'created', 'updated', 'sort_order', 'price'];

/**
 * A /getDataRows page costs the same whatever the number of rows the tenant has: the plan of the query the
 * service builds walks an index in the requested order and stops after OFFSET + LIMIT rows, with no sort.
 * The seed goes through the seed command's path, which refreshes the planner's statistics.
 */
describe('getDataRows page plans', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    const start = Date.parse('2026-01-01T00:00:00Z');
    // Ties as tenants have them: sort_order mostly 0, created and updated mostly the seed's now(), prices repeated.
    a = await seedTenant(
      t,
      Array.from({ length: PRODUCTS }, (_, i) =>
        product(`Product ${i}`, {
          price: 100 + ((i * 7919) % 3000),
          sort_order: i % 50 === 0 ? i : 0,
          ...(i % 2
            ? { created: new Date(start + i * 60_000).toISOString(), updated: new Date(start + (i % 700) * 60_000).toISOString() }
            : {}),
          meta_status: 'Published',
        }),
      ),
    );
  }, 120_000);
  afterAll(() => t.close());

  async function planOf(orderBy: string | undefined): Promise<{ nodes: PlanNode[]; offset: number; limit: number }> {
    const table = await t.get(TableCatalogService).require(new TransactionScope(), 'core_products');
    const body = { table: 'core_products', isPaging: true, perPage: 20, page: 3, ...(orderBy ? { orderBy } : {}) };
    const query = buildRowQuery(body, table, 'published', { maxPerPage: t.config.content.maxPerPage, maxRows: t.config.content.maxRows });
    const [{ 'QUERY PLAN': plan }] = await t.dataSource.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${toSql(query)}`, rowParams(a.appId, query));
    return { nodes: nodes(plan[0].Plan), offset: query.offset, limit: query.limit };
  }

  const cases = ORDERED.flatMap((column) => (['ASC', 'DESC'] as const).map((direction) => ({ column, direction })));

  it.each(cases)(
    'ordered by $column $direction: walks the index of that column, stops after the page, sorts nothing',
    async ({ column, direction }) => {
      const { nodes, offset, limit } = await planOf(`${column} ${direction}`);
      expect(nodes.filter((n) => n['Node Type'].includes('Sort')).map((n) => n['Node Type'])).toEqual([]);
      const walk = nodes.find((n) => n['Index Name'] === `core_products_app_${column}_idx`);
      expect(walk).toMatchObject({ 'Scan Direction': direction === 'ASC' ? 'Forward' : 'Backward' });
      expect(walk!['Actual Rows']).toBeLessThanOrEqual(offset + limit);
    },
  );

  it.each(cases)(
    'as the prepared statement the service runs (values written in, planned once), ordered by $column $direction: still the index walk',
    async ({ column, direction }) => {
      const table = await t.get(TableCatalogService).require(new TransactionScope(), 'core_products');
      const pageOf = (page: number) =>
        buildRowQuery(
          { table: 'core_products', isPaging: true, perPage: 20, page, orderBy: `${column} ${direction}` },
          table,
          'published',
          {
            maxPerPage: t.config.content.maxPerPage,
            maxRows: t.config.content.maxRows,
          },
        );
      const runner = t.dataSource.createQueryRunner();
      try {
        const query = pageOf(3);
        const sql = prepared(pageSql(a.appId, query));
        for (let i = 0; i < 7; i++) expect(await runner.query(sql)).toHaveLength(21);
        const [statement] = await runner.query(
          'SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1',
          [sql],
        );
        expect([Number(statement.generic_plans), Number(statement.custom_plans)]).toEqual([7, 0]);
        // The plan cached at the first execution, which every later one reuses.
        const [{ 'QUERY PLAN': plan }] = await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE "${statement.name}"`);
        const planNodes = nodes(plan[0].Plan);
        expect(planNodes.filter((n) => n['Node Type'].includes('Sort') || n['Node Type'].includes('Gather'))).toEqual([]);
        const walk = planNodes.find((n) => n['Index Name'] === `core_products_app_${column}_idx`);
        expect(walk).toMatchObject({ 'Scan Direction': direction === 'ASC' ? 'Forward' : 'Backward' });
        expect(walk!['Actual Rows']).toBeLessThanOrEqual(query.offset + query.limit);
      } finally {
        await runner.release();
      }
    },
  );

  it.each([...cases.map(({ column, direction }) => `${column} ${direction}`), undefined])(
    'a deep page (OFFSET from DEFERRED_JOIN_OFFSET on, a deferred join) answers the rows and order of the plain page, ordered by %s',
    async (orderBy) => {
      const table = await t.get(TableCatalogService).require(new TransactionScope(), 'core_products');
      const limits = { maxPerPage: t.config.content.maxPerPage, maxRows: t.config.content.maxRows };
      for (const page of [Math.ceil(DEFERRED_JOIN_OFFSET / 20) + 1, 300, 500]) {
        const body = { table: 'core_products', isPaging: true, perPage: 20, page, ...(orderBy ? { orderBy } : {}) };
        const deep = buildRowQuery(body, table, 'published', limits);
        const sql = pageSql(a.appId, deep);
        expect(sql).toContain(') p JOIN core_data d ON d."ID" = p."did"');
        // The same page with a condition every row meets: the plain statement.
        const plain = buildRowQuery(
          { ...body, whereConditions: { conditions: [{ field: 'id', operator: 'greater_than', value: 0 }] } },
          table,
          'published',
          limits,
        );
        const expected = await t.dataSource.query(toSql(plain), rowParams(a.appId, plain));
        expect(expected.length).toBe(page === 500 ? 20 : 21);
        expect(await t.dataSource.query(sql)).toEqual(expected);
      }
    },
  );

  it.each(['stage', 'live'] as const)('a deep page read %s answers the rows and order of the plain page', async (mode) => {
    const table = await t.get(TableCatalogService).require(new TransactionScope(), 'core_products');
    const limits = { maxPerPage: t.config.content.maxPerPage, maxRows: t.config.content.maxRows };
    const body = { table: 'core_products', isPaging: true, perPage: 20, page: 300, orderBy: 'price DESC' };
    const deep = buildRowQuery(body, table, mode, limits);
    const plain = buildRowQuery(
      { ...body, whereConditions: { conditions: [{ field: 'id', operator: 'greater_than', value: 0 }] } },
      table,
      mode,
      limits,
    );
    const expected = await t.dataSource.query(toSql(plain), rowParams(a.appId, plain));
    expect(expected).toHaveLength(21);
    expect(await t.dataSource.query(pageSql(a.appId, deep))).toEqual(expected);
  });

  it('without orderBy (meta_master_id): walks core_data_published_idx, stops after the page, sorts nothing', async () => {
    const { nodes, offset, limit } = await planOf(undefined);
    expect(nodes.filter((n) => n['Node Type'].includes('Sort')).map((n) => n['Node Type'])).toEqual([]);
    const walk = nodes.find((n) => n['Index Name'] === 'core_data_published_idx');
    expect(walk).toMatchObject({ 'Scan Direction': 'Forward' });
    expect(walk!['Actual Rows']).toBeLessThanOrEqual(offset + limit);
  });

  it('the page is served in order, ties broken by meta_current_id in the direction of the last term', async () => {
    for (const direction of ['ASC', 'DESC']) {
      const res = await t.post(
        '/getDataRows',
        { table: 'core_products', orderBy: `sort_order ${direction}`, isPaging: true, perPage: 20, page: 3 },
        a.headers,
      );
      expect(res.status).toBe(200);
      expect(res.body.paging).toEqual({ page: 3, perPage: 20, hasMore: true });
      const keys = (res.body.data as { sort_order: number; meta_current_id: number }[]).map((r) => [r.sort_order, r.meta_current_id]);
      const sorted = [...keys].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      expect(keys).toEqual(direction === 'ASC' ? sorted : sorted.reverse());
      expect(keys).toHaveLength(20);
    }
  });
});

describe('getDataRows ties', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    a = await seedTenant(
      t,
      ['One', 'Two', 'Three'].map((title) => product(title, { price: 500, meta_status: 'Published' })),
    );
  });
  afterAll(() => t.close());

  it('equal values keep the order of their published versions (meta_current_id), reversed by DESC', async () => {
    // A new published version of One: its meta_current_id is now the highest, its meta_master_id still the lowest.
    const edit = await t.post(
      '/content/edit',
      { table: 'core_products', masterId: a.products[0], data: { title: 'One v2' } },
      a.adminHeaders,
    );
    expect(edit.status).toBe(200);
    expect((await t.post('/content/publish', { table: 'core_products', masterId: a.products[0] }, a.adminHeaders)).status).toBe(200);
    const titles = async (orderBy?: string) =>
      (
        (await t.post('/getDataRows', { table: 'core_products', ...(orderBy ? { orderBy } : {}) }, a.headers)).body.data as {
          title: string;
        }[]
      ).map((r) => r.title);
    expect(await titles()).toEqual(['One v2', 'Two', 'Three']);
    expect(await titles('price ASC')).toEqual(['Two', 'Three', 'One v2']);
    expect(await titles('price DESC')).toEqual(['One v2', 'Three', 'Two']);
  });
});
