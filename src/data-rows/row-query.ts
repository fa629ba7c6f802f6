import { ApiError } from '../common/api-error';
import { IDENTIFIER, isIdentifier, quoteIdentifier } from '../database/identifiers';
import { CatalogColumn, MAX_TEXT_VALUE, RegisteredTable, toColumnValue, VERSION_META } from '../versioning';

/** Which rows /getDataRows reads (SPEC "Reading by lifecycle stage"), in the spec's priority order. */
export type ReadMode = 'appGrid' | 'live' | 'stage' | 'published';

export const OPERATORS = [
  'equals',
  'not_equals',
  'less_than',
  'less_than_or_equal',
  'greater_than',
  'greater_than_or_equal',
  'contains',
  'starts_with',
  'in',
  'is_null',
  'is_not_null',
] as const;
export type Operator = (typeof OPERATORS)[number];

const COMPARISON: Partial<Record<Operator, string>> = {
  equals: '=',
  not_equals: '<>',
  less_than: '<',
  less_than_or_equal: '<=',
  greater_than: '>',
  greater_than_or_equal: '>=',
};

/** The meta fields of versioned rows (the versioning read model's); they can be filtered and sorted on. */
export const META_FIELDS: Record<string, { sql: string; column: CatalogColumn }> = Object.fromEntries(
  Object.entries(VERSION_META).map(([name, { sql, kind, nullable }]) => [name, { sql, column: { name, kind, nullable, secret: false } }]),
);

/** The meta field `name`, looked up without the prototype chain (`__proto__` is not a field). */
export function metaField(name: string): { sql: string; column: CatalogColumn } | undefined {
  return Object.hasOwn(META_FIELDS, name) ? META_FIELDS[name] : undefined;
}

export const MAX_CONDITIONS = 20;
export const MAX_IN_VALUES = 100;
export const MAX_ORDER_TERMS = 5;
const MAX_FIELDS = 100;
/** The default order of versioned rows: by record (meta_master_id). */
const BY_RECORD = `${VERSION_META.meta_master_id.sql} ASC`;
const ORDER_TERM = new RegExp(`^(${IDENTIFIER.source.slice(1, -1)})(?:\\s+(asc|desc))?$`, 'i');

export interface Limits {
  maxPerPage: number;
  maxRows: number;
}

/** A /getDataRows request after every check: all identifiers come from the catalog, all values are parameters. */
export interface RowQuery {
  table: RegisteredTable;
  mode: ReadMode;
  columns: readonly string[];
  where: { join: 'AND' | 'OR'; sql: string[] };
  params: unknown[];
  order: string[];
  limit: number;
  offset: number;
  paging: { page: number; perPage: number } | null;
  record: boolean;
}

/**
 * The flag named by `names` (aliases such as isLive / isAdmin), read as a boolean (true/false, 1/0,
 * "true"/"false"): true when any alias is true, false when one is given and none is true. Every given
 * alias must be a boolean.
 */
export function flag(body: Record<string, unknown>, ...names: string[]): boolean | undefined {
  let result: boolean | undefined;
  for (const name of names) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    if (value === true || value === 1 || value === '1' || value === 'true') result = true;
    else if (value === false || value === 0 || value === '0' || value === 'false' || value === '') result = result ?? false;
    else throw ApiError.field(name, `${name} must be true or false`);
  }
  return result;
}

export function readMode(body: Record<string, unknown>): ReadMode {
  const appGrid = flag(body, 'isAppGrid');
  const live = flag(body, 'isLive', 'isAdmin');
  const stage = flag(body, 'isStage');
  flag(body, 'isPublished', 'production'); // checked for its type; published is also the default
  if (appGrid) return 'appGrid';
  if (live) return 'live';
  if (stage) return 'stage';
  return 'published';
}

/**
 * Turns the request into a RowQuery. `$1` is the app id and `$2` the table name (bound, for core_data);
 * every further value is appended to `params`.
 */
export function buildRowQuery(body: Record<string, unknown>, table: RegisteredTable, mode: ReadMode, limits: Limits): RowQuery {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value) + 2}`;
  const resolve = (name: unknown, field: string, use: 'read' | 'filter' | 'sort') => resolveColumn(table, mode, name, field, use);

  const columns = readColumns(table, body.fields);
  const where = conditions(body.whereConditions, resolve, bind);
  const order = orderBy(body.orderBy, resolve, mode);

  const paging = flag(body, 'isPaging') ? pageOf(body, limits) : null;
  const record = flag(body, 'record') === true;
  const limit = record ? 1 : paging ? paging.perPage + 1 : limits.maxRows;
  const offset = record || !paging ? 0 : (paging.page - 1) * paging.perPage;
  return { table, mode, columns, where, params, order, limit, offset, paging, record };
}

/** The readable (non-secret) columns of each catalog table, listed once per table object. */
const readable = new WeakMap<RegisteredTable, readonly string[]>();

function readColumns(table: RegisteredTable, fields: unknown): readonly string[] {
  let all = readable.get(table);
  if (!all) readable.set(table, (all = [...table.columns.values()].filter((c) => !c.secret).map((c) => c.name)));
  if (fields === undefined || fields === null || (typeof fields === 'string' && ['', '*'].includes(fields.trim()))) return all;
  if (typeof fields !== 'string') throw ApiError.field('fields', 'fields must be a comma-separated list of columns or *');
  const names = fields.split(',').map((f) => f.trim());
  if (names.length > MAX_FIELDS) throw ApiError.field('fields', `fields may name at most ${MAX_FIELDS} columns`);
  const chosen: string[] = [];
  for (const name of names) {
    if (name === '*') {
      chosen.push(...all);
      continue;
    }
    if (metaField(name) || name === '_id') continue; // always part of versioned rows
    const column = isIdentifier(name) ? table.columns.get(name) : undefined;
    if (!column) throw ApiError.field('fields', `Unknown column "${shown(name)}" in table "${table.name}"`);
    if (column.secret) throw ApiError.field('fields', `Column "${name}" cannot be read`);
    chosen.push(name);
  }
  return [...new Set(chosen)];
}

function resolveColumn(
  table: RegisteredTable,
  mode: ReadMode,
  name: unknown,
  field: string,
  use: 'read' | 'filter' | 'sort',
): { sql: string; column: CatalogColumn } {
  if (!isIdentifier(name)) throw ApiError.field(field, `${field} must name a column of table "${table.name}"`);
  const meta = metaField(name);
  if (meta) {
    if (mode === 'appGrid') throw ApiError.field(field, `${name} is not available with isAppGrid (raw rows have no metadata)`);
    return meta;
  }
  const column = table.columns.get(name);
  if (!column) throw ApiError.field(field, `Unknown column "${name}" in table "${table.name}"`);
  if (column.secret)
    throw ApiError.field(field, `Column "${name}" cannot be ${use === 'filter' ? 'filtered on' : use === 'sort' ? 'sorted on' : 'read'}`);
  return { sql: `c.${quoteIdentifier(column.name)}`, column };
}

type Resolver = (name: unknown, field: string, use: 'read' | 'filter' | 'sort') => { sql: string; column: CatalogColumn };

function conditions(input: unknown, resolve: Resolver, bind: (value: unknown) => string): { join: 'AND' | 'OR'; sql: string[] } {
  if (input === undefined || input === null) return { join: 'AND', sql: [] };
  if (typeof input !== 'object' || Array.isArray(input))
    throw ApiError.field('whereConditions', 'whereConditions must be { operator, conditions: [ { field, operator, value } ] }');
  const group = input as Record<string, unknown>;
  const joinRaw = group.operator ?? 'AND';
  if (typeof joinRaw !== 'string' || !['AND', 'OR'].includes(joinRaw.toUpperCase()))
    throw ApiError.field('whereConditions.operator', 'whereConditions.operator must be AND or OR');
  const list = group.conditions ?? [];
  if (!Array.isArray(list)) throw ApiError.field('whereConditions.conditions', 'whereConditions.conditions must be an array');
  if (list.length > MAX_CONDITIONS) throw ApiError.field('whereConditions.conditions', `At most ${MAX_CONDITIONS} conditions`);

  const sql = list.map((raw, i) => {
    const at = `whereConditions.conditions[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw ApiError.field(at, `${at} must be { field, operator, value }`);
    const condition = raw as Record<string, unknown>;
    const { sql: target, column } = resolve(condition.field, `${at}.field`, 'filter');
    if (condition.operator !== undefined && condition.operator !== null && typeof condition.operator !== 'string') {
      throw ApiError.field(`${at}.operator`, `${at}.operator must be one of ${OPERATORS.join(', ')}`);
    }
    const op = typeof condition.operator === 'string' ? condition.operator.toLowerCase() : 'equals';
    if (!(OPERATORS as readonly string[]).includes(op))
      throw ApiError.field(`${at}.operator`, `${at}.operator must be one of ${OPERATORS.join(', ')}`);
    const value = condition.value;
    const valueField = `${at}.value`;
    switch (op as Operator) {
      case 'is_null':
        return `${target} IS NULL`;
      case 'is_not_null':
        return `${target} IS NOT NULL`;
      case 'contains':
      case 'starts_with': {
        if (column.kind !== 'text') throw ApiError.field(`${at}.operator`, `${op} works on text columns only`);
        if (typeof value !== 'string' || value.length > MAX_TEXT_VALUE) throw ApiError.field(valueField, `${valueField} must be a string`);
        const escaped = value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
        return `${target} ILIKE ${bind(op === 'contains' ? `%${escaped}%` : `${escaped}%`)}`;
      }
      case 'in': {
        const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((v) => v.trim()) : null;
        if (!items || items.length === 0 || items.length > MAX_IN_VALUES)
          throw ApiError.field(valueField, `${valueField} must be a list of 1 to ${MAX_IN_VALUES} values`);
        const values = items.map((item) => toColumnValue(column, item, valueField));
        if (column.kind === 'json' || column.kind === 'other') throw ApiError.field(`${at}.operator`, 'in does not work on this column');
        return `${target} = ANY(${bind(values)})`;
      }
      default: {
        if (value === undefined) throw ApiError.field(valueField, `${valueField} is required`);
        if (column.kind === 'json') throw ApiError.field(`${at}.field`, `Column "${column.name}" cannot be compared`);
        if (value === null) {
          if (op === 'equals') return `${target} IS NULL`;
          if (op === 'not_equals') return `${target} IS NOT NULL`;
          throw ApiError.field(valueField, `${valueField} must not be null for ${op}`);
        }
        return `${target} ${COMPARISON[op as Operator]} ${bind(toColumnValue(column, value, valueField))}`;
      }
    }
  });
  return { join: joinRaw.toUpperCase() as 'AND' | 'OR', sql };
}

/**
 * The ORDER BY terms. Ties are broken by the content row's id (meta_current_id, c."id" through the join)
 * in the direction of the last term, so that one btree on (app_id, column, id) walked forwards or
 * backwards yields the page without sorting the tenant's rows (core_products_app_*_idx); the record's
 * Master_ID lives in core_data, which no index on the content table can order by. Without orderBy the
 * order is meta_master_id, walked by core_data_published_idx.
 */
function orderBy(input: unknown, resolve: Resolver, mode: ReadMode): string[] {
  const rowId = mode === 'appGrid' ? 'c."id"' : VERSION_META.meta_current_id.sql;
  if (input === undefined || input === null || input === '') return [mode === 'appGrid' ? 'c."id" ASC' : BY_RECORD];
  if (typeof input !== 'string' || input.length > 500)
    throw ApiError.field('orderBy', 'orderBy must be a string such as "title ASC, price DESC"');
  const terms = input.split(',').map((t) => t.trim());
  if (terms.length > MAX_ORDER_TERMS) throw ApiError.field('orderBy', `orderBy may name at most ${MAX_ORDER_TERMS} columns`);
  let direction = 'ASC';
  const order = terms.map((term) => {
    const match = ORDER_TERM.exec(term);
    if (!match) throw ApiError.field('orderBy', 'orderBy must be column names, each optionally followed by ASC or DESC');
    const { sql } = resolve(match[1], 'orderBy', 'sort');
    direction = (match[2] ?? 'ASC').toUpperCase();
    return `${sql} ${direction}`;
  });
  return [...order, `${rowId} ${direction}`];
}

function pageOf(body: Record<string, unknown>, limits: Limits): { page: number; perPage: number } {
  const perPage = integer(body.perPage, 'perPage', 20);
  const page = integer(body.page, 'page', 1);
  if (perPage < 1 || perPage > limits.maxPerPage) throw ApiError.field('perPage', `perPage must be between 1 and ${limits.maxPerPage}`);
  if (page < 1 || page > 1_000_000) throw ApiError.field('page', 'page must be between 1 and 1000000');
  return { page, perPage };
}

function integer(value: unknown, field: string, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,9}$/.test(value)) return Number(value);
  throw ApiError.field(field, `${field} must be an integer`);
}

function shown(name: string): string {
  return name.replace(/[^\w.-]/g, '?').slice(0, 64);
}
