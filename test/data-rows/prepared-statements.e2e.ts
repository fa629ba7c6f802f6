import { Pool } from 'pg';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { MAX_PREPARED_PER_CONNECTION, prepared, preparedForJson, PreparedStatementsClient } from '../../src/database/prepared-statements';
import { startTestApp, TestApp } from '../support/test-app';
import { product, seedTenant, Tenant } from '../versioning/content-helpers';

interface PreparedRow {
  name: string;
  statement: string;
  generic_plans: string;
  custom_plans: string;
}

/** The statements prepared on the connection this query runs on (the request pool has one here). */
async function preparedOn(t: TestApp): Promise<PreparedRow[]> {
  return t.dataSource.query(
    'SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE from_sql = false ORDER BY prepare_time',
  );
}

const pageStatements = (rows: PreparedRow[]) => rows.filter((r) => r.statement.includes('FROM (SELECT * FROM core_data'));

function page(n: number, orderBy = 'title ASC', perPage = 20): Record<string, unknown> {
  return { table: 'core_products', isPaging: true, perPage, page: n, orderBy };
}

/**
 * /getDataRows statements without conditions of the request run as named prepared statements on the
 * request pool's connections (src/database/prepared-statements.ts). One connection in the pool here, so
 * pg_prepared_statements read through the pool sees the statements the requests left on it.
 */
describe('prepared statements: getDataRows pages and validateToken', () => {
  let t: TestApp;
  let off: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ DB_POOL_SIZE: '1' });
    off = await startTestApp({ DB_POOL_SIZE: '1', DB_PREPARED_STATEMENTS: 'false' }, t.database);
    a = await seedTenant(
      t,
      Array.from({ length: 130 }, (_, i) =>
        product(`Product ${String(i).padStart(3, '0')}`, { price: 100 + ((i * 37) % 20), sort_order: i % 3, meta_status: 'Published' }),
      ),
    );
  }, 60_000);
  afterAll(async () => {
    await off.close();
    await t.close();
  });

  it('prepares each page once per connection, its values written in, and reuses the plan made at its first execution', async () => {
    for (const n of [1, 2, 3, 7, 2, 2, 2, 2, 2, 2]) {
      const res = await t.post('/getDataRows', page(n), a.headers);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(n === 7 ? 10 : 20);
    }
    const statements = pageStatements(await preparedOn(t));
    // One statement per page: the app, table, LIMIT and OFFSET are literals, so no statement has parameters.
    expect(statements.map((s) => s.statement.match(/LIMIT (\d+) OFFSET (\d+)$/)?.slice(1))).toEqual([
      ['21', '0'],
      ['21', '20'],
      ['21', '40'],
      ['21', '120'],
    ]);
    for (const s of statements) {
      expect(s.statement).toContain(`"Shop_ID" = ${a.appId} AND "Source_Table" = 'core_products'`);
      expect(s.statement).not.toMatch(/\$\d/);
    }
    // Page 2 ran seven times and was planned once: PostgreSQL keeps a parameterless statement's one plan.
    const second = statements[1];
    expect(Number(second.custom_plans)).toBe(0);
    expect(Number(second.generic_plans)).toBe(7);
  });

  it('prepares the same page of another app as its own statement', async () => {
    const other = await seedTenant(t, [product('Other 1', { meta_status: 'Published' })]);
    const res = await t.post('/getDataRows', page(1), other.headers);
    expect(res.body.data.map((r: { title: string }) => r.title)).toEqual(['Other 1']);
    const ofOther = pageStatements(await preparedOn(t)).filter((s) => s.statement.includes(`"Shop_ID" = ${other.appId} `));
    expect(ofOther).toHaveLength(1);
  });

  it('keeps a request with conditions unnamed', async () => {
    const before = pageStatements(await preparedOn(t)).length;
    const res = await t.post(
      '/getDataRows',
      { ...page(1), whereConditions: { conditions: [{ field: 'title', operator: 'starts_with', value: 'Product 01' }] } },
      a.headers,
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(10);
    expect(pageStatements(await preparedOn(t))).toHaveLength(before);
  });

  it("prepares validateToken's read of the token once per connection (its values bound)", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await t.post('/ecommerce/validateToken', { tokenValue: `${i}`.repeat(64), productId: 1 }, a.headers);
      expect(res.body).toMatchObject({ status: 'Failed', message: 'Token not found' });
    }
    const reads = (await preparedOn(t)).filter((s) => s.statement.includes('FROM core_tokens WHERE token_value = $1 AND app_id = $2'));
    expect(reads).toHaveLength(1);
  });

  it('answers what the unprepared path answers, for every order and page', async () => {
    for (const orderBy of ['title ASC', 'price DESC', 'sort_order ASC', 'created DESC', '']) {
      for (const n of [1, 2, 7]) {
        const body = orderBy ? page(n, orderBy, 19) : { table: 'core_products', isPaging: true, perPage: 19, page: n };
        const [on, plain] = [await t.post('/getDataRows', body, a.headers), await off.post('/getDataRows', body, a.headers)];
        expect(on.status).toBe(200);
        expect(on.body.data).toEqual(plain.body.data);
        expect(on.body.paging).toEqual(plain.body.paging);
      }
    }
    const record = { table: 'core_products', record: true, orderBy: 'title DESC' };
    expect((await t.post('/getDataRows', record, a.headers)).body.data).toEqual(
      (await off.post('/getDataRows', record, a.headers)).body.data,
    );
  });

  it('prepares nothing with DB_PREPARED_STATEMENTS=false', async () => {
    expect((off.dataSource.driver as PostgresDriver).master.options.Client).toBeUndefined();
    expect((await off.post('/getDataRows', page(1), a.headers)).status).toBe(200);
    expect(await preparedOn(off)).toEqual([]);
  });

  it('prepares the page again after DISCARD ALL', async () => {
    expect((await t.post('/getDataRows', page(1), a.headers)).status).toBe(200);
    expect(pageStatements(await preparedOn(t)).length).toBeGreaterThan(0);
    await t.dataSource.query('DISCARD ALL');
    expect(await preparedOn(t)).toEqual([]);
    const res = await t.post('/getDataRows', page(2), a.headers);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(20);
    expect(pageStatements(await preparedOn(t))).toHaveLength(1);
  });

  it('prepares the page again after a column it reads changed type', async () => {
    const isFirstPage = (r: PreparedRow) => r.statement.endsWith('ORDER BY c."title" ASC, d."Current_ID" ASC LIMIT 21 OFFSET 0');
    expect((await t.post('/getDataRows', page(1), a.headers)).status).toBe(200);
    const [before] = pageStatements(await preparedOn(t)).filter(isFirstPage);
    await t.dataSource.query('ALTER TABLE core_products ALTER COLUMN sku TYPE text');
    try {
      const res = await t.post('/getDataRows', page(1), a.headers);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(20);
      const after = pageStatements(await preparedOn(t)).filter(isFirstPage);
      // A new name for the same text; the old statement was deallocated when the connection went back to the pool.
      expect(after).toHaveLength(1);
      expect(after[0].name).not.toBe(before.name);
    } finally {
      await t.dataSource.query('ALTER TABLE core_products ALTER COLUMN sku TYPE varchar(100)');
    }
  });

  it('reads each statement’s rows with the parsers of its own description, and of its new one once its result type changed', async () => {
    await t.dataSource.query('CREATE TABLE prepared_probe (n int, at timestamptz)');
    try {
      await t.dataSource.query(`INSERT INTO prepared_probe VALUES (7, '2026-01-02T03:04:05Z')`);
      const at = new Date('2026-01-02T03:04:05Z');
      const read = prepared('SELECT n, at FROM prepared_probe');
      const readForJson = preparedForJson('SELECT n, at FROM prepared_probe');
      // From the second execution on, the first one's description serves (the same connection, the pool has one).
      for (let i = 0; i < 3; i++) {
        expect(await t.dataSource.query(read)).toEqual([{ n: 7, at }]);
        expect(await t.dataSource.query(readForJson)).toEqual([{ n: 7, at: at.toJSON() }]);
      }
      await t.dataSource.query('ALTER TABLE prepared_probe ALTER COLUMN n TYPE text');
      expect(await t.dataSource.query(read)).toEqual([{ n: '7', at }]);
      expect(await t.dataSource.query(readForJson)).toEqual([{ n: '7', at: at.toJSON() }]);
      await t.dataSource.query('ALTER TABLE prepared_probe ADD COLUMN extra int DEFAULT 1');
      const all = prepared('SELECT * FROM prepared_probe');
      expect(await t.dataSource.query(all)).toEqual([{ n: '7', at, extra: 1 }]);
      await t.dataSource.query('ALTER TABLE prepared_probe DROP COLUMN extra');
      expect(await t.dataSource.query(all)).toEqual([{ n: '7', at }]);
    } finally {
      await t.dataSource.query('DROP TABLE prepared_probe');
    }
  });

  it(`keeps at most ${MAX_PREPARED_PER_CONNECTION} statements per connection, deallocating the least recently used once it is idle`, async () => {
    await t.dataSource.query('DEALLOCATE ALL');
    const names = async () => new Set((await preparedOn(t)).map((r) => r.statement));
    const statement = (i: number) => `SELECT ${i}::int AS n`;
    await t.dataSource.transaction(async (em) => {
      for (let i = 0; i < MAX_PREPARED_PER_CONNECTION + 5; i++) {
        // Statement 0 used again halfway: it is then not among the least recently used.
        expect(await em.query(prepared(statement(i)))).toEqual([{ n: i }]);
        if (i === 50) await em.query(prepared(statement(0)));
      }
      // Inside the transaction nothing is deallocated yet.
      expect((await em.query('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE from_sql = false'))[0].n).toBe(
        MAX_PREPARED_PER_CONNECTION + 5,
      );
    });
    const left = await names();
    expect(left.size).toBe(MAX_PREPARED_PER_CONNECTION);
    expect(left.has(prepared(statement(0)))).toBe(true);
    for (const i of [1, 2, 3, 4, 5]) expect(left.has(prepared(statement(i)))).toBe(false);
    expect(left.has(prepared(statement(6)))).toBe(true);
    // An evicted statement comes back prepared under a new name, and answers.
    expect(await t.dataSource.query(prepared(statement(1)))).toEqual([{ n: 1 }]);
    expect((await names()).has(prepared(statement(1)))).toBe(true);
  });
});

describe('getDataRows prepared statements on the tenant-shared pool', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    // One connection per tenant of two: the pool is tenant-pool.ts's.
    t = await startTestApp({ DB_POOL_SIZE: '2', DB_TENANT_MAX_CONNECTIONS: '1' });
    a = await seedTenant(
      t,
      Array.from({ length: 30 }, (_, i) => product(`Product ${i}`, { meta_status: 'Published' })),
    );
  }, 60_000);
  afterAll(() => t.close());

  it('prepares the page on the connections of the tenant-shared pool too', async () => {
    const pool = (t.dataSource.driver as PostgresDriver).master as Pool & { _clients: unknown[] };
    expect(pool.constructor.name).toBe('TenantSharedPool');
    for (const n of [1, 2, 1]) expect((await t.post('/getDataRows', page(n, 'title ASC', 10), a.headers)).status).toBe(200);
    const clients = pool._clients as PreparedStatementsClient[];
    expect(clients.every((c) => c instanceof PreparedStatementsClient)).toBe(true);
    // Each page's statement is prepared where it ran: the connections hold each of the two at most once each, and served three pages.
    const held = clients.flatMap((c) => c.preparedNames);
    expect(held.length).toBeGreaterThanOrEqual(2);
    expect(held.length).toBeLessThanOrEqual(2 * clients.length);
    let executions = 0;
    for (const client of clients) {
      const { rows }: { rows: { n: string }[] } = await client.query(
        'SELECT generic_plans + custom_plans AS n FROM pg_prepared_statements WHERE from_sql = false',
      );
      executions += rows.reduce((sum, r) => sum + Number(r.n), 0);
    }
    expect(executions).toBe(3);
  });
});
