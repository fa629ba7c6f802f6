import { randomBytes } from 'node:crypto';
import { Answer } from './types';

// What the double's resources share: the provider's error bodies and checks, its ids and timestamps.

export function apiError(type: string, message: string, extra: { code?: string; param?: string } = {}): { error: Record<string, string> } {
  return { error: { type, message, ...extra } };
}

/** The provider's 404 for an object that does not exist for this key (400 for a list cursor naming one). */
export function missing(kind: string, id: string, param: string, status = 404): Answer {
  return { status, body: apiError('invalid_request_error', `No such ${kind}: '${id}'`, { code: 'resource_missing', param }) };
}

/** The provider's 400 for an amount that is no integer, or below 1; null for a good one. */
export function invalidAmount(value: unknown): Answer | null {
  if (!/^-?\d+$/.test(String(value))) {
    return {
      status: 400,
      body: apiError('invalid_request_error', `Invalid integer: ${String(value)}`, { code: 'parameter_invalid_integer', param: 'amount' }),
    };
  }
  if (Number(value) < 1)
    return {
      status: 400,
      body: apiError('invalid_request_error', 'This value must be greater than or equal to 1.', {
        code: 'parameter_invalid_integer',
        param: 'amount',
      }),
    };
  return null;
}

export function metadataOf(value: unknown): Record<string, string> {
  return value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, string>) } : {};
}

/** Currencies without minor units: amounts are whole units. */
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);

/** `$25.00` (`$2500` for a currency without minor units), as the provider's refund messages write amounts. */
export function money(amount: number, currency: string): string {
  return ZERO_DECIMAL.has(currency) ? `$${amount}` : `$${(amount / 100).toFixed(2)}`;
}

/** `a, b, or c`, as the provider lists an enum's values. */
export function oneOf(values: readonly string[]): string {
  return `${values.slice(0, -1).join(', ')}, or ${values.at(-1)}`;
}

export function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** A random id part of `length` letters and digits, as the provider's ids have. */
export function token(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');
}
