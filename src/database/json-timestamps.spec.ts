import { types } from 'pg';
import { TIMESTAMPTZ_OID, timestamptzJson } from './json-timestamps';

const parse = types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => unknown;

/** What the row path answers for a timestamptz: node-pg's value, through JSON.stringify. */
const viaDate = (text: string) => JSON.parse(JSON.stringify({ v: parse(text) })).v;

describe('timestamptzJson', () => {
  it.each([
    '2026-11-27 21:10:58+00',
    '2026-11-27 21:10:58.1+00',
    '2026-11-27 21:10:58.12+00',
    '2026-11-27 21:10:58.123+00',
    '2026-11-27 21:10:58.123999+00',
    '2026-11-27 21:10:58.999999+00',
    '0001-01-01 00:00:00+00',
    '0099-12-31 23:59:59.5+00',
    '1969-12-31 23:59:59.999+00',
    '9999-12-31 23:59:59.999999+00',
    '2024-02-29 12:00:00.000001+00',
    // Not PostgreSQL's UTC form with a four-digit year: through pg's parser.
    '2026-03-29 01:30:00.000001+02',
    '2026-03-29 01:30:00-09:30',
    '2026-03-29 01:30:00+05:45:10',
    '10000-01-01 00:00:00.5+00',
    '0001-12-31 23:59:59.999+00 BC',
    '0002-06-01 12:00:00+00 BC',
    '275760-09-13 00:00:00+00',
    '275760-09-13 00:00:00.001+00',
    'infinity',
    '-infinity',
  ])('%s is written as JSON.stringify writes its Date', (text) => {
    expect(timestamptzJson(text)).toBe(viaDate(text));
  });

  it('agrees with the Date for every millisecond fraction', () => {
    for (let f = 0; f < 1_000_000; f += 997) {
      const text = `2026-01-02 03:04:05.${String(f).padStart(6, '0').replace(/0+$/, '') || '0'}+00`;
      expect(timestamptzJson(text)).toBe(viaDate(text));
    }
  });
});
