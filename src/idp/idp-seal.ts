import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

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
 */
export class IdpSealer {
  private readonly key: Buffer;

  constructor(password: string) {
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(password, 'utf8'), Buffer.alloc(0), 'platform-idp-seal-v1', 32));
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
    let payload: unknown;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(1, 1 + NONCE_BYTES));
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(1 + NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
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

/** `expired` still carries the (authentic) payload, for a caller that only needs to know whose it is. */
export type SealResult<T> = { status: 'ok' | 'expired'; payload: T & { exp: number } } | { status: 'invalid' };
const INVALID = { status: 'invalid' } as const;
