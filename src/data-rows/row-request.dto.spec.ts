import { ApiError } from '../common/api-error';
import { FieldError } from '../common/envelope';
import { createValidationPipe } from '../common/validation.pipe';
import { GetDataRowsRequest } from './row-request.dto';

const pipe = createValidationPipe();
const metadata = { type: 'body' as const, metatype: GetDataRowsRequest, data: '' };

async function check(body: Record<string, unknown>): Promise<GetDataRowsRequest | FieldError[]> {
  try {
    return (await pipe.transform({ table: 'core_products', ...body }, metadata)) as GetDataRowsRequest;
  } catch (error) {
    if (error instanceof ApiError && error.message === 'Validation error') return error.errors!;
    throw error;
  }
}

describe('GetDataRowsRequest', () => {
  it('takes the loose forms of flags, page and perPage as booleans and numbers, and null as absent', async () => {
    expect(
      await check({ isLive: 1, isAdmin: '0', isStage: 'true', isAppGrid: '', record: 'false', isPaging: '1', page: '3', perPage: 20 }),
    ).toMatchObject({
      isLive: true,
      isAdmin: false,
      isStage: true,
      isAppGrid: false,
      record: false,
      isPaging: true,
      page: 3,
      perPage: 20,
    });
    const nulls = (await check({ fields: null, orderBy: null, whereConditions: null, isLive: null, page: null })) as GetDataRowsRequest;
    for (const key of ['fields', 'orderBy', 'whereConditions', 'isLive', 'page'] as const) expect(nulls[key]).toBeUndefined();
  });

  it('names each flag that is not a boolean, aliases included', async () => {
    expect(await check({ isLive: true, isAdmin: 'maybe' })).toEqual([{ field: 'isAdmin', message: 'isAdmin must be true or false' }]);
    expect(await check({ production: 'yes', isPaging: 2 })).toEqual([
      { field: 'production', message: 'production must be true or false' },
      { field: 'isPaging', message: 'isPaging must be true or false' },
    ]);
  });

  it('checks page and perPage only with isPaging', async () => {
    expect(await check({ perPage: 'ten', page: -1 })).toMatchObject({ perPage: 'ten', page: -1 });
    expect(await check({ isPaging: true, perPage: 'ten', page: 1.5 })).toEqual([
      { field: 'perPage', message: 'perPage must be an integer' },
      { field: 'page', message: 'page must be an integer' },
    ]);
    expect(await check({ isPaging: true, page: 0 })).toEqual([{ field: 'page', message: 'page must be between 1 and 1000000' }]);
    expect(await check({ isPaging: true, page: 1e20 })).toEqual([{ field: 'page', message: 'page must be an integer' }]);
  });

  it('refuses a table, fields and orderBy of the wrong shape, with their messages', async () => {
    expect(await check({ table: 42 })).toEqual([{ field: 'table', message: 'table must be the name of a registered table' }]);
    expect(await check({ table: undefined })).toEqual([{ field: 'table', message: 'table must be the name of a registered table' }]);
    expect(await check({ fields: ['title'] })).toEqual([
      { field: 'fields', message: 'fields must be a comma-separated list of columns or *' },
    ]);
    expect(await check({ fields: Array(101).fill('title').join() })).toEqual([
      { field: 'fields', message: 'fields may name at most 100 columns' },
    ]);
    expect(await check({ orderBy: 42 })).toEqual([
      { field: 'orderBy', message: 'orderBy must be a string such as "title ASC, price DESC"' },
    ]);
    expect(await check({ orderBy: 'a,b,c,d,e,f' })).toEqual([{ field: 'orderBy', message: 'orderBy may name at most 5 columns' }]);
    expect(await check({ orderBy: 'price; DROP TABLE core_products' })).toEqual([
      { field: 'orderBy', message: 'orderBy must be column names, each optionally followed by ASC or DESC' },
    ]);
    expect(await check({ orderBy: '' })).toMatchObject({ orderBy: undefined });
  });

  it('normalizes conditions: operators in any case, `in` lists from comma-separated strings, a missing operator (equals)', async () => {
    const request = (await check({
      whereConditions: {
        operator: 'or',
        conditions: [
          { field: 'title', operator: 'IN', value: 'Alpha, Delta' },
          { field: 'price', value: 3 },
          { field: 'price', operator: 'is_null' },
        ],
      },
    })) as GetDataRowsRequest;
    expect(request.whereConditions).toMatchObject({
      operator: 'OR',
      conditions: [
        { field: 'title', operator: 'in', value: ['Alpha', 'Delta'] },
        { field: 'price', value: 3 },
        { field: 'price', operator: 'is_null' },
      ],
    });
  });

  it('names the path of each refused condition, and of the list and the group', async () => {
    const at = (i: number) => `whereConditions.conditions[${i}]`;
    const conditions = (list: unknown) => check({ whereConditions: { conditions: list } });
    expect(await conditions([{ field: 'title', value: 'x' }, 'title = 1', [{ field: 'title' }], null])).toEqual(
      [1, 2, 3].map((i) => ({ field: at(i), message: `${at(i)} must be { field, operator, value }` })),
    );
    expect(
      await conditions([
        { field: 'title', value: 1 },
        { field: 'title', operator: 'regex', value: '.*' },
      ]),
    ).toEqual([
      {
        field: `${at(1)}.operator`,
        message:
          `${at(1)}.operator must be one of equals, not_equals, less_than, less_than_or_equal, greater_than, greater_than_or_equal, ` +
          'contains, starts_with, in, is_null, is_not_null',
      },
    ]);
    expect(await conditions([{ field: 'title', operator: 'less_than', value: null }])).toEqual([
      { field: `${at(0)}.value`, message: `${at(0)}.value must not be null for less_than` },
    ]);
    expect(await conditions([{ field: 'title' }])).toEqual([{ field: `${at(0)}.value`, message: `${at(0)}.value is required` }]);
    expect(await conditions([{ field: 'title', operator: 'contains', value: 5 }])).toEqual([
      { field: `${at(0)}.value`, message: `${at(0)}.value must be a string` },
    ]);
    expect(await conditions([{ field: 'title', operator: 'in', value: [] }])).toEqual([
      { field: `${at(0)}.value`, message: `${at(0)}.value must be a list of 1 to 100 values` },
    ]);
    expect(await conditions('title = 1')).toEqual([
      { field: 'whereConditions.conditions', message: 'whereConditions.conditions must be an array' },
    ]);
    expect(await conditions(Array(21).fill({ field: 'title', value: 'x' }))).toEqual([
      { field: 'whereConditions.conditions', message: 'At most 20 conditions' },
    ]);
    expect(await check({ whereConditions: { operator: 'XOR' } })).toEqual([
      { field: 'whereConditions.operator', message: 'whereConditions.operator must be AND or OR' },
    ]);
    expect(await check({ whereConditions: [] })).toEqual([
      { field: 'whereConditions', message: 'whereConditions must be { operator, conditions: [ { field, operator, value } ] }' },
    ]);
  });
});
