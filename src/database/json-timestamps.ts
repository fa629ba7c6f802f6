import { types } from 'pg';

/** PostgreSQL's type oid of timestamptz. */
export const TIMESTAMPTZ_OID = 1184;

/** A timestamptz as PostgreSQL writes it in UTC: four-digit year, up to six fractional digits, `+00`. */
const UTC_TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/;

const parseTimestamptz = types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number | null;

/**
 * The JSON text JSON.stringify writes for the value node-pg parses from a timestamptz (`Date.prototype.toJSON`:
 * ISO 8601 in UTC, milliseconds truncated; null for ±infinity and dates JavaScript cannot hold), without
 * making the Date: the text is rearranged when PostgreSQL wrote it in UTC with a four-digit year, and parsed
 * by pg's own parser otherwise (another session time zone, BC, years past 9999).
 */
export function timestamptzJson(text: string): string | null {
  if (UTC_TIMESTAMP.test(text)) {
    // Time and milliseconds at 11 to 23 when PostgreSQL wrote three fractional digits or more, padded otherwise.
    if (text.length >= 26) return `${text.slice(0, 10)}T${text.slice(11, 23)}Z`;
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${text.slice(20, -3)}000`.slice(0, 3)}Z`;
  }
  const value = parseTimestamptz(text);
  return value instanceof Date ? value.toJSON() : null;
}
