import { ApiError } from '../common/api-error';
import { CatalogColumn } from './table-catalog.service';

const INTEGER = /^-?\d{1,18}$/;
const NUMBER = /^-?\d{1,30}(\.\d{1,30})?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;
export const MAX_TEXT_VALUE = 10_000;

/**
 * An ISO 8601 date or date-time (`2026-12-01`, `2026-12-01T09:30:00Z`, `2026-12-01 09:30+10:00`) that is a
 * real calendar date of the years 1 to 9999, or null. `2024-02-30`, `24:00`, week and ordinal dates are
 * refused here rather than by PostgreSQL (or silently moved by Date.parse).
 */
export function parseIsoDate(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const m = DATE.exec(value.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  if (m[8] !== undefined && (Number(m[8]) > 14 || Number(m[9]) > 59)) return null;
  // One form for Date: `T` between date and time, `+hh:mm` offsets.
  const normalized = value
    .trim()
    .replace(' ', 'T')
    .replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const date = new Date(normalized);
  return Number.isNaN(date.getTime()) ? null : date;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * A request value checked against the column it is bound to, so that PostgreSQL never sees a value it
 * cannot cast (which would surface as a 500): the answer is a 400 naming `field` instead.
 */
export function toColumnValue(column: CatalogColumn, value: unknown, field: string): unknown {
  if (value === null) return null;
  const fail = (what: string) => ApiError.field(field, `${field} must be ${what} for column "${column.name}"`);
  switch (column.kind) {
    case 'integer': {
      let n: string | null = null;
      if (typeof value === 'number' && Number.isSafeInteger(value)) n = String(value);
      else if (typeof value === 'string' && INTEGER.test(value.trim())) n = value.trim();
      else if (typeof value === 'boolean') n = value ? '1' : '0';
      if (n === null) throw fail('an integer');
      const range = column.range;
      if (range && (BigInt(n) < range.min || BigInt(n) > range.max)) throw fail(`an integer from ${range.min} to ${range.max}`);
      return typeof value === 'number' ? value : n;
    }
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
      if (parseIsoDate(value)) return (value as string).trim();
      throw fail('an ISO 8601 date');
    case 'json':
      return JSON.stringify(value);
    case 'text':
    case 'other': {
      const max = Math.min(column.maxLength ?? MAX_TEXT_VALUE, MAX_TEXT_VALUE);
      const text = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
      if (typeof text === 'string' && (text.length <= max || [...text].length <= max) && !text.includes('\u0000')) return text;
      throw fail(`a string of at most ${max} characters`);
    }
  }
}

/** PostgreSQL errors caused by the values a client sent (bad cast, too long, constraint), as a 400. */
export function clientDataError(error: unknown, field: string): ApiError | null {
  const e = error as {
    driverError?: { code?: string; column?: string; constraint?: string };
    code?: string;
    column?: string;
    constraint?: string;
  };
  const code = e.driverError?.code ?? e.code;
  if (!code) return null;
  const column = e.driverError?.column ?? e.column;
  const constraint = e.driverError?.constraint ?? e.constraint;
  if (code.startsWith('22')) return ApiError.field(field, `${field} holds a value the column cannot take`);
  if (code === '23502') return ApiError.field(column ? `${field}.${column}` : field, `${column ?? 'A column'} is required`);
  if (code === '23514') return ApiError.field(field, `${field} breaks the rule ${constraint ?? 'of the table'}`);
  return null;
}
