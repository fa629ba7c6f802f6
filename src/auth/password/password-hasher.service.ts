import { randomInt } from 'node:crypto';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { MetricsService } from '../../metrics';
import { BcryptPool } from './bcrypt-pool';
import { isBcryptHash, legacyFormatOf, verifyLegacy } from './legacy-hashes';

/**
 * How a stored hash answered a password: `match` (good, keep it), `upgrade` (good, but a legacy format or
 * a bcrypt cost below the configured one: store a fresh bcrypt hash), `mismatch`, or `unusable` (no hash,
 * or a format we do not know).
 */
export type VerifyOutcome = 'match' | 'upgrade' | 'mismatch' | 'unusable';

/** bcrypt through the native `bcrypt` package on BcryptPool's worker threads (off the event loop), at the configured cost (10 at least). */
@Injectable()
export class PasswordHasherService implements OnModuleDestroy {
  private readonly bcrypt: BcryptPool;
  /** A well-formed bcrypt hash at the configured cost that no password matches (see throwawayHash). */
  private readonly dummyHash: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: MetricsService,
  ) {
    this.bcrypt = new BcryptPool(() => metrics.passwordCheckSkipped());
    this.dummyHash = throwawayHash(config.bcryptCost);
  }

  onModuleDestroy(): Promise<void> {
    return this.bcrypt.close();
  }

  hash(plain: string): Promise<string> {
    return this.bcrypt.hash(plain, this.config.bcryptCost);
  }

  /**
   * How `stored` answers `plain`. `clientGone` (the request's RequestContext.clientGone) skips a check that has
   * not started when the client left: this then rejects with the signal's reason.
   */
  async verify(plain: string, stored: string | null | undefined, clientGone?: AbortSignal): Promise<VerifyOutcome> {
    if (stored && isBcryptHash(stored)) {
      if (!(await this.bcrypt.compare(plain, nativePrefix(stored), clientGone))) return 'mismatch';
      return Number(stored.slice(4, 6)) < this.config.bcryptCost || !stored.startsWith('$2b$') ? 'upgrade' : 'match';
    }
    if (stored && legacyFormatOf(stored)) {
      // Legacy digests are fast: spend the bcrypt time anyway so the answer time does not tell formats apart.
      const [ok] = await Promise.all([verifyLegacy(plain, stored), this.spendVerifyTime(plain, clientGone)]);
      return ok ? 'upgrade' : 'mismatch';
    }
    await this.spendVerifyTime(plain, clientGone);
    return 'unusable';
  }

  /** One bcrypt verification at the configured cost against a throwaway hash: an unknown account costs what a wrong password costs. */
  async spendVerifyTime(plain: string, clientGone?: AbortSignal): Promise<void> {
    await this.bcrypt.compare(plain, this.dummyHash, clientGone);
  }
}

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `$2b$<cost>$` and 53 random characters of bcrypt's alphabet (22 of salt, 31 of digest): verifying against
 * it runs the full key schedule at that cost, as a real hash would, so no hash needs computing at start
 * (which would cost a worker thread and start-up time).
 */
export function throwawayHash(cost: number): string {
  const chars = Array.from({ length: 53 }, () => BCRYPT_ALPHABET[randomInt(BCRYPT_ALPHABET.length)]);
  return `$2b$${String(cost).padStart(2, '0')}$${chars.join('')}`;
}

/**
 * The native library knows the `$2a$` and `$2b$` prefixes only. `$2y$` (PHP) is the same algorithm as
 * `$2b$`; `$2x$` (crypt_blowfish's compatibility mode) equals `$2a$` for ASCII passwords.
 */
function nativePrefix(stored: string): string {
  if (stored.startsWith('$2y$')) return `$2b$${stored.slice(4)}`;
  if (stored.startsWith('$2x$')) return `$2a$${stored.slice(4)}`;
  return stored;
}
