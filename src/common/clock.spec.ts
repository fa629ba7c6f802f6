import { isoNow } from './clock';

describe('isoNow', () => {
  it('writes what Date.prototype.toISOString writes, across seconds, minutes, days and years', () => {
    const starts = [Date.UTC(2026, 10, 26, 1, 59, 59, 990), Date.UTC(2026, 11, 31, 23, 59, 59, 0), 0, Date.UTC(2000, 1, 29, 12, 0, 0, 5)];
    for (const start of starts)
      for (let t = start; t < start + 2500; t += 7) {
        expect(isoNow(t)).toBe(new Date(t).toISOString());
        expect(isoNow(t - 3000)).toBe(new Date(t - 3000).toISOString()); // an earlier second after a later one
      }
  });

  it('reads the clock when given no time', () => {
    const before = Date.now();
    const now = Date.parse(isoNow());
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
