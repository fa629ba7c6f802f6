import { ApiError } from '../common/api-error';
import { IDENTIFIER, isIdentifier, quoteIdentifier } from '../database/identifiers';
import { CatalogColumn, RegisteredTable, toColumnValue, VERSION_META } from '../versioning';

/** Which rows /getDataRows reads, in priority order: raw rows, the current version, the staged one, the published one. */
export type ReadMode = 'appGrid' | 'live' | 'stage' | 'published';

export const COMPARISONS = ['equals', 'not_equals', 'less_than', 'less_than_or_equal', 'greater_than', 'greater_than_or_equal'] as const;
export const OPERATORS = [...COMPARISONS, 'contains', 'starts_with', 'in', 'is_null', 'is_not_null'] as const;
export type Operator = (typeof OPERATORS)[number];
type Comparison = (typeof COMPARISONS)[number];

const COMPARISON_SQL: Record<Comparison, string> = {
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

export const MAX_FIELDS = 100;
export const MAX_CONDITIONS = 20;
export const MAX_IN_VALUES = 100;
export const MAX_ORDER_TERMS = 5;
export const MAX_ORDER_BY_LENGTH = 500;
export const MAX_PAGE = 1_000_000;
const DEFAULT_PER_PAGE = 20;
/** The default order of versioned rows: by record (meta_master_id). */
const BY_RECORD = `${VERSION_META.meta_master_id.sql} ASC`;
const ORDER_TERM = new RegExp(`^(${IDENTIFIER.source.slice(1, -1)})(?:\\s+(asc|desc))?$`, 'i');

/** One term of orderBy: a column (or meta field) name and its direction. */
export interface OrderTerm {
  column: string;
  direction: 'ASC' | 'DESC';
}

/** The terms of an orderBy such as "price DESC, title" (each a name, optionally ASC or DESC), or null when one term is not. */
export function orderTerms(orderBy: string): OrderTerm[] | null {
  const terms: OrderTerm[] = [];
  for (const term of orderBy.split(',')) {
    const match = ORDER_TERM.exec(term.trim());
    if (!match) return null;
    terms.push({ column: match[1], direction: match[2]?.toUpperCase() === 'DESC' ? 'DESC' : 'ASC' });
  }
  return terms;
}

/** One condition of whereConditions, as the request DTO leaves it: `in` values are a list, a missing operator means equals. */
export interface RowCondition {
  /** A column or meta field of the table; only the catalog can tell, so the query builder checks it. */
  field?: unknown;
  operator?: Operator;
  value?: unknown;
}

/**
 * The body of POST /getDataRows once the request DTO has checked its shape and normalized its loose forms
 * (flags as booleans, numbers from strings): what is left to check needs the table's columns or the limits.
 */
export interface RowRequest {
  table: string;
  fields?: string;
  isPublished?: boolean;
  production?: boolean;
  isStage?: boolean;
  isLive?: boolean;
  isAdmin?: boolean;
  isAppGrid?: boolean;
  whereConditions?: { operator?: 'AND' | 'OR'; conditions?: RowCondition[] };
  orderBy?: string;
  isPaging?: boolean;
  perPage?: number;
  page?: number;
  record?: boolean;
}

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

/** The read mode the flags ask for; isLive and isAdmin are aliases, and isPublished (or production) is the default. */
export function readMode(request: RowRequest): ReadMode {
  if (request.isAppGrid) return 'appGrid';
  if (request.isLive || request.isAdmin) return 'live';
  if (request.isStage) return 'stage';
  return 'published';
}

/**
 * Turns the request into a RowQuery. `$1` is the app id and `$2` the table name (bound, for core_data);
 * every further value is appended to `params`.
 */
export function buildRowQuery(request: RowRequest, table: RegisteredTable, mode: ReadMode, limits: Limits): RowQuery {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value) + 2}`;
  const resolve = (name: unknown, field: string, use: Use) => resolveColumn(table, mode, name, field, use);

  const columns = readColumns(table, request.fields);
  const where = conditions(request.whereConditions, resolve, bind);
  const order = orderBy(request.orderBy, resolve, mode);

  const paging = request.isPaging ? pageOf(request, limits) : null;
  const record = request.record === true;
  const limit = record ? 1 : paging ? paging.perPage + 1 : limits.maxRows;
  const offset = record || !paging ? 0 : (paging.page - 1) * paging.perPage;
  return { table, mode, columns, where, params, order, limit, offset, paging, record };
}

/** The readable (non-secret) columns of each catalog table, listed once per table object. */
const readable = new WeakMap<RegisteredTable, readonly string[]>();

function readColumns(table: RegisteredTable, fields: string | undefined): readonly string[] {
  let all = readable.get(table);
  if (!all) readable.set(table, (all = [...table.columns.values()].filter((c) => !c.secret).map((c) => c.name)));
  if (fields === undefined || ['', '*'].includes(fields.trim())) return all;
  const chosen: string[] = [];
  for (const name of fields.split(',').map((f) => f.trim())) {
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

type Use = 'filter' | 'sort';
type Resolver = (name: unknown, field: string, use: Use) => { sql: string; column: CatalogColumn };

function resolveColumn(
  table: RegisteredTable,
  mode: ReadMode,
  name: unknown,
  field: string,
  use: Use,
): { sql: string; column: CatalogColumn } {
  if (!isIdentifier(name)) throw ApiError.field(field, `${field} must name a column of table "${table.name}"`);
  const meta = metaField(name);
  if (meta) {
    if (mode === 'appGrid') throw ApiError.field(field, `${name} is not available with isAppGrid (raw rows have no metadata)`);
    return meta;
  }
  const column = table.columns.get(name);
  if (!column) throw ApiError.field(field, `Unknown column "${name}" in table "${table.name}"`);
  if (column.secret) throw ApiError.field(field, `Column "${name}" cannot be ${use === 'filter' ? 'filtered on' : 'sorted on'}`);
  return { sql: `c.${quoteIdentifier(column.name)}`, column };
}

function conditions(group: RowRequest['whereConditions'], resolve: Resolver, bind: (value: unknown) => string): RowQuery['where'] {
  const sql = (group?.conditions ?? []).map((condition, i) => conditionSql(condition, `whereConditions.conditions[${i}]`, resolve, bind));
  return { join: group?.operator === 'OR' ? 'OR' : 'AND', sql };
}

/** One condition as SQL; what is left to check is how the operator and value fit the column. */
function conditionSql(condition: RowCondition, at: string, resolve: Resolver, bind: (value: unknown) => string): string {
  const { sql: target, column } = resolve(condition.field, `${at}.field`, 'filter');
  const op = condition.operator ?? 'equals';
  const { value } = condition;
  const valueField = `${at}.value`;
  switch (op) {
    case 'is_null':
      return `${target} IS NULL`;
    case 'is_not_null':
      return `${target} IS NOT NULL`;
    case 'contains':
    case 'starts_with': {
      if (column.kind !== 'text') throw ApiError.field(`${at}.operator`, `${op} works on text columns only`);
      const escaped = String(value).replace(/[\\%_]/g, (ch) => `\\${ch}`);
      return `${target} ILIKE ${bind(op === 'contains' ? `%${escaped}%` : `${escaped}%`)}`;
    }
    case 'in': {
      const values = (Array.isArray(value) ? value : [value]).map((item) => toColumnValue(column, item, valueField));
      if (column.kind === 'json' || column.kind === 'other') throw ApiError.field(`${at}.operator`, 'in does not work on this column');
      return `${target} = ANY(${bind(values)})`;
    }
    default: {
      if (column.kind === 'json') throw ApiError.field(`${at}.field`, `Column "${column.name}" cannot be compared`);
      if (value === null && op === 'equals') return `${target} IS NULL`;
      if (value === null && op === 'not_equals') return `${target} IS NOT NULL`;
      return `${target} ${COMPARISON_SQL[op]} ${bind(toColumnValue(column, value, valueField))}`;
    }
  }
}

/**
 * The ORDER BY terms. Ties are broken by the content row's id (meta_current_id, c."id" through the join)
 * in the direction of the last term, so that one btree on (app_id, column, id) walked forwards or
 * backwards yields the page without sorting the tenant's rows (core_products_app_*_idx); the record's
 * Master_ID lives in core_data, which no index on the content table can order by. Without orderBy the
 * order is meta_master_id, walked by core_data_published_idx.
 */
function orderBy(input: string | undefined, resolve: Resolver, mode: ReadMode): string[] {
  const rowId = mode === 'appGrid' ? 'c."id"' : VERSION_META.meta_current_id.sql;
  if (!input) return [mode === 'appGrid' ? 'c."id" ASC' : BY_RECORD];
  const terms = orderTerms(input);
  if (!terms) throw new Error('orderBy reached the query builder unchecked'); // the request DTO refuses it
  const order = terms.map(({ column, direction }) => `${resolve(column, 'orderBy', 'sort').sql} ${direction}`);
  return [...order, `${rowId} ${terms[terms.length - 1].direction}`];
}

/** The page; its size's upper bound is the service's setting, so it is checked here rather than by the DTO. */
function pageOf(request: RowRequest, limits: Limits): { page: number; perPage: number } {
  const perPage = request.perPage ?? DEFAULT_PER_PAGE;
  if (perPage < 1 || perPage > limits.maxPerPage) throw ApiError.field('perPage', `perPage must be between 1 and ${limits.maxPerPage}`);
  return { page: request.page ?? 1, perPage };
}

function shown(name: string): string {
  return name.replace(/[^\w.-]/g, '?').slice(0, 64);
}
