/** Minor units of a currency (2 for aud, 0 for jpy), from Intl. */
export function minorDigits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2
    );
  } catch {
    return 2;
  }
}

/** Cents (minor units) as money: `$12.50`, `A$12.50`. */
export function money(cents: number | null | undefined, currency: string): string {
  if (cents === null || cents === undefined) return '—';
  const digits = minorDigits(currency);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 10 ** digits);
  } catch {
    return `${(cents / 10 ** digits).toFixed(digits)} ${currency.toUpperCase()}`;
  }
}

/** Minor units as the plain number a staff member types (`12.50`). */
export function toMajor(cents: number, currency: string): string {
  const digits = minorDigits(currency);
  return (cents / 10 ** digits).toFixed(digits);
}

/** What was typed (`12.5`, `12,50`) in minor units, or null when it is not an amount. */
export function toMinor(text: string, currency: string): number | null {
  const clean = text.trim().replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(clean)) return null;
  const digits = minorDigits(currency);
  const [whole, fraction = ''] = clean.split('.');
  if (fraction.length > digits) return null;
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || 0);
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTimeFormat.format(date);
}

/** A date input's `yyyy-mm-dd` as the ISO instant of that local day's start (`plusDays` later). */
export function dayStart(day: string, plusDays = 0): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y, m - 1, d + plusDays).toISOString();
}

export function fullName(first: string | null | undefined, last: string | null | undefined): string {
  return [first, last].filter(Boolean).join(' ');
}
