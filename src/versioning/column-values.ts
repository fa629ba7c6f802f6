import { ApiError } from '../common/api-error';
import { CatalogColumn } from './table-catalog.service';

const INTEGER = /^-?\d{1,18}$/;
const NUMBER = /^-?\d{1,30}(\.\d{1,30})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
export const MAX_TEXT_VALUE = 10_000;

/**
 * A request value checked against the column it is bound to, so that PostgreSQL never sees a value it
 * cannot cast (which would surface as a 500): the answer is a 400 naming `field` instead.
 */
export function toColumnValue(column: CatalogColumn, value: unknown, field: string): unknown {
  if (value === null) return null;
  const fail = (what: string) => ApiError.field(field, `${field} must be ${what} for column "${column.name}"`);
  switch (column.kind) {
    case 'integer':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      if (typeof value === 'string' && INTEGER.test(value.trim())) return value.trim();
      if (typeof value === 'boolean') return value ? 1 : 0;
      throw fail('an integer');
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && NUMBER.test(value.trim())) return value.trim();
      throw fail('a number');
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 1 || value === '1' || value === 'true') return true;
      if (value === 0 || value === '0' || value === 'false') return false;
      throw fail('true or false');
    case 'datetime':
      if (typeof value === 'string' && DATE.test(value.trim()) && !Number.isNaN(Date.parse(value.trim()))) return value.trim();
      throw fail('an ISO 8601 date');
    case 'json':
      return JSON.stringify(value);
    case 'text':
    case 'other':
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      if (typeof value === 'string' && value.length <= MAX_TEXT_VALUE && !value.includes('\u0000')) return value;
      throw fail(`a string of at most ${MAX_TEXT_VALUE} characters`);
  }
}

/** PostgreSQL errors caused by the values a client sent (bad cast, too long, constraint), as a 400. */
export function clientDataError(error: unknown, field: string): ApiError | null {
  const e = error as { driverError?: { code?: string; column?: string; constraint?: string }; code?: string; column?: string; constraint?: string };
  const code = e.driverError?.code ?? e.code;
  if (!code) return null;
  const column = e.driverError?.column ?? e.column;
  const constraint = e.driverError?.constraint ?? e.constraint;
  if (code.startsWith('22')) return ApiError.field(field, `${field} holds a value the column cannot take`);
  if (code === '23502') return ApiError.field(column ? `${field}.${column}` : field, `${column ?? 'A column'} is required`);
  if (code === '23514') return ApiError.field(field, `${field} breaks the rule ${constraint ?? 'of the table'}`);
  return null;
}
