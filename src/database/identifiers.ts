/** A PostgreSQL identifier the service will interpolate into SQL: letters, digits and underscores, at most 63 bytes. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function isIdentifier(value: unknown): value is string {
  return typeof value === 'string' && IDENTIFIER.test(value);
}

/** Double-quotes an identifier that passed IDENTIFIER; anything else is a programming error, never request text. */
export function quoteIdentifier(identifier: string): string {
  if (!IDENTIFIER.test(identifier)) throw new Error(`Unsafe identifier ${identifier}`);
  return `"${identifier}"`;
}
