/**
 * The current time as `Date.prototype.toISOString()` writes it (UTC, milliseconds), for what every request
 * stamps (the log line's `time`, the envelope's `datetime`): the date and time up to the second are formatted
 * once per second, each call only appends the milliseconds.
 */
export function isoNow(now: number = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20); // YYYY-MM-DDTHH:mm:ss.
  }
  const ms = now - second * 1000;
  return `${cachedPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}

let cachedSecond = Number.NaN;
let cachedPrefix = '';
