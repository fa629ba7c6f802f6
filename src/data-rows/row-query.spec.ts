import { ApiError } from '../common/api-error';
import { CatalogColumn, RegisteredTable } from '../versioning';
import { buildRowQuery, orderTerms, readMode, RowRequest } from './row-query';

const INT32 = { min: -2147483648n, max: 2147483647n };
const column = (name: string, kind: CatalogColumn['kind'], extra: Partial<CatalogColumn> = {}): [string, CatalogColumn] => [
  name,
  { name, kind, nullable: true, secret: false, ...extra },
];

const products: RegisteredTable = {
  name: 'core_products',
  live: false,
  titleField: 'title',
  tenantColumn: true,
  columns: new Map([
    column('id', 'integer', { range: INT32 }),
    column('title', 'text', { maxLength: 255 }),
    column('price', 'integer', { range: INT32 }),
    column('created', 'datetime'),
    column('attrs', 'json'),
    column('password', 'text', { secret: true }),
  ]),
};
const limits = { maxPerPage: 50, maxRows: 1000 };
const build = (request: Omit<RowRequest, 'table'>, mode = readMode({ table: 'core_products', ...request })) =>
  buildRowQuery({ table: 'core_products', ...request }, products, mode, limits);

/** The field and message of the 400 `run` throws. */
function refusal(run: () => unknown): { field: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError && error.httpStatus === 400) return error.errors![0];
    throw error;
  }
  throw new Error('not refused');
}

describe('readMode', () => {
  it.each([
    [{}, 'published'],
    [{ isPublished: true, production: false }, 'published'],
    [{ isStage: true }, 'stage'],
    [{ isLive: true, isStage: true }, 'live'],
    [{ isLive: false, isAdmin: true }, 'live'],
    [{ isAppGrid: true, isLive: true, isStage: true }, 'appGrid'],
  ] as [Omit<RowRequest, 'table'>, string][])('%j reads %s', (flags, mode) => {
    expect(readMode({ table: 'core_products', ...flags })).toBe(mode);
  });
});

describe('orderTerms', () => {
  it('reads each term as a name and a direction, ASC by default, in any case', () => {
    expect(orderTerms('price DESC, title')).toEqual([
      { column: 'price', direction: 'DESC' },
      { column: 'title', direction: 'ASC' },
    ]);
    expect(orderTerms(' meta_title  asc ')).toEqual([{ column: 'meta_title', direction: 'ASC' }]);
  });

  it.each(['price DOWN', 'price; DROP TABLE core_products', '1', 'random()', 'price ASC NULLS FIRST', '"title"', 'title,', ''])(
    'refuses %j',
    (orderBy) => expect(orderTerms(orderBy)).toBeNull(),
  );
});

describe('buildRowQuery', () => {
  it('reads every non-secret column by default, and the named ones (meta fields and _id come with every versioned row)', () => {
    expect(build({}).columns).toEqual(['id', 'title', 'price', 'created', 'attrs']);
    expect(build({ fields: '*' }).columns).toEqual(['id', 'title', 'price', 'created', 'attrs']);
    expect(build({ fields: ' title , price, title, meta_title, _id ' }).columns).toEqual(['title', 'price']);
  });

  it('refuses unknown and secret columns in fields, naming the table', () => {
    expect(refusal(() => build({ fields: 'title,nope' }))).toEqual({
      field: 'fields',
      message: 'Unknown column "nope" in table "core_products"',
    });
    expect(refusal(() => build({ fields: 'pg_sleep(1)' }))).toEqual({
      field: 'fields',
      message: 'Unknown column "pg_sleep?1?" in table "core_products"',
    });
    expect(refusal(() => build({ fields: 'password' }))).toEqual({ field: 'fields', message: 'Column "password" cannot be read' });
  });

  it('binds every value after the app id and table name ($1, $2), and quotes every column', () => {
    const query = build({
      whereConditions: {
        operator: 'OR',
        conditions: [
          { field: 'title', operator: 'contains', value: '50%_off' },
          { field: 'price', operator: 'in', value: [1000, '2000'] },
          { field: 'created', operator: 'less_than', value: '2026-01-01' },
          { field: 'title', value: null },
          { field: 'title', operator: 'not_equals', value: null },
          { field: 'created', operator: 'is_null' },
          { field: 'meta_status', operator: 'equals', value: 'Published' },
        ],
      },
    });
    expect(query.where).toEqual({
      join: 'OR',
      sql: [
        'c."title" ILIKE $3',
        'c."price" = ANY($4)',
        'c."created" < $5',
        'c."title" IS NULL',
        'c."title" IS NOT NULL',
        'c."created" IS NULL',
        'd."Status" = $6',
      ],
    });
    expect(query.params).toEqual(['%50\\%\\_off%', [1000, '2000'], '2026-01-01', 'Published']);
  });

  it('refuses what only the table can tell: unknown, secret or non-comparable columns, operators the column does not take, values that do not fit', () => {
    const where = (condition: Record<string, unknown>, mode?: 'appGrid') =>
      refusal(() => build({ whereConditions: { conditions: [{ field: 'title', value: 'x', ...condition }] } }, mode));
    const at = 'whereConditions.conditions[0]';
    expect(where({ field: 'nope' })).toEqual({ field: `${at}.field`, message: 'Unknown column "nope" in table "core_products"' });
    expect(where({ field: 'a b' })).toEqual({ field: `${at}.field`, message: `${at}.field must name a column of table "core_products"` });
    expect(where({ field: undefined })).toEqual({
      field: `${at}.field`,
      message: `${at}.field must name a column of table "core_products"`,
    });
    expect(where({ field: '__proto__' })).toMatchObject({ field: `${at}.field` });
    expect(where({ field: 'password', operator: 'starts_with' })).toEqual({
      field: `${at}.field`,
      message: 'Column "password" cannot be filtered on',
    });
    expect(where({ field: 'meta_status' }, 'appGrid')).toEqual({
      field: `${at}.field`,
      message: 'meta_status is not available with isAppGrid (raw rows have no metadata)',
    });
    expect(where({ field: 'price', operator: 'contains', value: '1' })).toEqual({
      field: `${at}.operator`,
      message: 'contains works on text columns only',
    });
    expect(where({ field: 'attrs', operator: 'in', value: ['{}'] })).toEqual({
      field: `${at}.operator`,
      message: 'in does not work on this column',
    });
    expect(where({ field: 'attrs' })).toEqual({ field: `${at}.field`, message: 'Column "attrs" cannot be compared' });
    expect(where({ field: 'price', value: 'cheap' })).toMatchObject({ field: `${at}.value` });
    expect(where({ field: 'price', operator: 'in', value: ['1', 'x'] })).toMatchObject({ field: `${at}.value` });
    expect(where({ field: 'created', operator: 'greater_than', value: '2024-02-30' })).toMatchObject({ field: `${at}.value` });
  });

  it('orders by the named columns, ties broken by the row id in the direction of the last term', () => {
    expect(build({}).order).toEqual(['d."Master_ID" ASC']);
    expect(build({ isAppGrid: true }).order).toEqual(['c."id" ASC']);
    expect(build({ orderBy: 'price DESC, meta_title' }).order).toEqual(['c."price" DESC', 'd."Title" ASC', 'd."Current_ID" ASC']);
    expect(build({ orderBy: 'title desc', isAppGrid: true }).order).toEqual(['c."title" DESC', 'c."id" DESC']);
    expect(refusal(() => build({ orderBy: 'password' }))).toEqual({ field: 'orderBy', message: 'Column "password" cannot be sorted on' });
    expect(refusal(() => build({ orderBy: 'nope' }))).toEqual({
      field: 'orderBy',
      message: 'Unknown column "nope" in table "core_products"',
    });
  });

  it('never takes an orderBy the request DTO would refuse', () => {
    expect(() => build({ orderBy: 'price; DROP TABLE core_products' })).toThrow('orderBy reached the query builder unchecked');
  });

  it('pages with isPaging (one row more than the page: whether more follow), within the service limit', () => {
    expect(build({})).toMatchObject({ paging: null, limit: 1000, offset: 0, record: false });
    expect(build({ isPaging: true })).toMatchObject({ paging: { page: 1, perPage: 20 }, limit: 21, offset: 0 });
    expect(build({ isPaging: true, perPage: 10, page: 3 })).toMatchObject({ paging: { page: 3, perPage: 10 }, limit: 11, offset: 20 });
    expect(build({ perPage: 10, page: 3 })).toMatchObject({ paging: null, limit: 1000 });
    expect(build({ record: true, isPaging: true, page: 3 })).toMatchObject({ limit: 1, offset: 0, record: true });
    for (const perPage of [0, 51])
      expect(refusal(() => build({ isPaging: true, perPage }))).toEqual({ field: 'perPage', message: 'perPage must be between 1 and 50' });
  });
});
