import { createHash, pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/**
 * Password hashes a migrated user table plausibly holds besides bcrypt. Each verifies once and is
 * replaced by bcrypt on that login:
 * - unsalted hex digests: MD5 (32 hex), SHA-1 (40), SHA-256 (64), SHA-512 (128);
 * - Django PBKDF2: `pbkdf2_sha256$<iterations>$<salt>$<base64 hash>` (also pbkdf2_sha1), run on the thread pool.
 * bcrypt itself (`$2a$`, `$2b$`, `$2y$`, `$2x$`) is handled by the native library, not here.
 */
export type LegacyFormat = 'md5' | 'sha1' | 'sha256' | 'sha512' | 'pbkdf2';

const HEX_DIGESTS: Record<number, LegacyFormat> = { 32: 'md5', 40: 'sha1', 64: 'sha256', 128: 'sha512' };
const DJANGO_PBKDF2 = /^pbkdf2_(sha256|sha1)\$(\d{1,7})\$([^$]{1,128})\$([A-Za-z0-9+/=]{16,128})$/;

export function isBcryptHash(hash: string): boolean {
  return /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(hash);
}

export function legacyFormatOf(hash: string): LegacyFormat | null {
  if (/^[0-9a-fA-F]+$/.test(hash) && HEX_DIGESTS[hash.length]) return HEX_DIGESTS[hash.length];
  if (DJANGO_PBKDF2.test(hash)) return 'pbkdf2';
  return null;
}

/** True when `plain` matches a legacy hash; compared in constant time. */
export async function verifyLegacy(plain: string, hash: string): Promise<boolean> {
  const format = legacyFormatOf(hash);
  if (format === null) return false;
  if (format === 'pbkdf2') {
    const [, digest, iterations, salt, expected] = DJANGO_PBKDF2.exec(hash)!;
    const expectedBytes = Buffer.from(expected, 'base64');
    const actual = await pbkdf2Async(plain, salt, Number(iterations), expectedBytes.length, digest);
    return safeEqual(actual, expectedBytes);
  }
  const actual = createHash(format).update(plain, 'utf8').digest();
  return safeEqual(actual, Buffer.from(hash, 'hex'));
}

function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
