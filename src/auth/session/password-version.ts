import { createHash } from 'node:crypto';
import type { Account } from '../accounts/accounts.service';

/** A short digest of password_changed: a token names the password it was issued for without telling when it changed. */
export function passwordVersion(account: Pick<Account, 'table' | 'id' | 'passwordChangedUs'>): string {
  return createHash('sha256').update(`${account.table}:${account.id}:${account.passwordChangedUs}`).digest('base64url').slice(0, 16);
}

/**
 * True when a token was issued for an earlier password than the account's current one (a password change
 * or reset voids every token issued before it). Tokens of password login carry the password version;
 * others (SSO) are compared by issue time.
 */
export function issuedBeforePasswordChange(
  token: { passwordVersion: string | null; issuedAt: number },
  account: Pick<Account, 'table' | 'id' | 'passwordChangedUs'>,
): boolean {
  if (token.passwordVersion !== null) return token.passwordVersion !== passwordVersion(account);
  return token.issuedAt < Math.floor(Number(BigInt(account.passwordChangedUs) / 1_000_000n));
}
