import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { PreviousKey, stillAccepted } from '../config/app-config';

/** What a sealed value is for: the additional data of its encryption, so one kind never opens as another. */
export type SealPurpose = 'idp-state' | 'idp-app-ctx' | 'idp-logout';

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** The longest sealed value opened: a state with the longest client state (512 characters, JSON-escaped) fits. */
const MAX_SEALED = 8192;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Authenticated encryption of small JSON payloads for the SSO flow: the OAuth state, the `idp_app_ctx`
 * cookie and the logout state. AES-256-GCM with a key derived (HKDF-SHA-256) from IDP_COOKIE_PASSWORD, a
 * random nonce per value and the purpose as additional data. Every payload carries its expiry `exp`
 * (seconds since the epoch); `open` refuses a value that is expired, tampered, of another purpose or key.
 *
 * Format: base64url( version(1) | nonce(12) | ciphertext | tag(16) ).
 *
 * Key rotation (docs/operations.md "Rotating keys"): sealed with IDP_COOKIE_PASSWORD; until
 * IDP_COOKIE_PASSWORD_PREVIOUS_UNTIL a value it does not open is tried with IDP_COOKIE_PASSWORD_PREVIOUS
 * (a login under way, an `idp_app_ctx` cookie set before the rotation).
 */
export class IdpSealer {
  private readonly key: Buffer;
  private readonly previous: PreviousKey<Buffer> | null;

  constructor(password: string, previous: PreviousKey<string> | null = null) {
    this.key = sealKey(password);
    this.previous = previous && { value: sealKey(previous.value), until: previous.until };
  }

  seal(purpose: SealPurpose, payload: Record<string, unknown>, ttlSeconds: number, now = Date.now()): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(purpose));
    const plain = JSON.stringify({ ...payload, exp: Math.floor(now / 1000) + ttlSeconds });
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The payload, or null when the value is not a current one of ours for this purpose. */
  open<T extends object>(purpose: SealPurpose, value: unknown, now = Date.now()): (T & { exp: number }) | null {
    const opened = this.inspect<T>(purpose, value, now);
    return opened.status === 'ok' ? opened.payload : null;
  }

  /** As `open`, telling an authentic but expired value (`expired`, with its payload) from anything that is not ours (`invalid`). */
  inspect<T extends object>(purpose: SealPurpose, value: unknown, now = Date.now()): SealResult<T> {
    if (typeof value !== 'string' || value.length > MAX_SEALED || !BASE64URL.test(value)) return INVALID;
    const raw = Buffer.from(value, 'base64url');
    if (raw.length <= 1 + NONCE_BYTES + TAG_BYTES || raw[0] !== VERSION) return INVALID;
    const old = stillAccepted(this.previous, now);
    const plain = decrypt(this.key, purpose, raw) ?? (old ? decrypt(old, purpose, raw) : null);
    if (plain === null) return INVALID;
    let payload: unknown;
    try {
      payload = JSON.parse(plain.toString('utf8'));
    } catch {
      return INVALID;
    }
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return INVALID;
    const exp = (payload as { exp?: unknown }).exp;
    if (typeof exp !== 'number') return INVALID;
    if (exp * 1000 <= now) return { status: 'expired', payload: payload as T & { exp: number } };
    return { status: 'ok', payload: payload as T & { exp: number } };
  }
}

function sealKey(password: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(password, 'utf8'), Buffer.alloc(0), 'platform-idp-seal-v1', 32));
}

/** The plaintext of a sealed value, or null when `key` did not seal it for `purpose`. */
function decrypt(key: Buffer, purpose: SealPurpose, raw: Buffer): Buffer | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(1, 1 + NONCE_BYTES));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(1 + NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return null;
  }
}

/** `expired` still carries the (authentic) payload, for a caller that only needs to know whose it is. */
export type SealResult<T> = { status: 'ok' | 'expired'; payload: T & { exp: number } } | { status: 'invalid' };
const INVALID = { status: 'invalid' } as const;
