import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, KeyObject } from 'node:crypto';
import { AppConfig, PreviousKey, stillAccepted } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/** Ids are sealed for their app: the purpose (additional data and nonce input) is `id:<appId>`. */
const idPurpose = (appId: number) => `id:${appId}`;
/** An app's own id (`_id` of /getApp, also accepted as the `appKey` header) names the tenant, so it cannot be bound to one. */
const APP_ID_PURPOSE = 'app';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ID_CACHE_SIZE = 100_000;
const LEGACY_BRACKETS = /^_?\[([0-9a-fA-F]{32}):([0-9a-fA-F]+|[A-Za-z0-9+/]+={0,2})\]$/;

/**
 * Encrypted identifiers and tokens, in one place (README "Encrypted identifiers").
 *
 * Service format: base64url( nonce(12) | AES-256-GCM ciphertext | tag(16) ) with ENCRYPTION_KEY and the
 * purpose as additional data, so a value made for one purpose (an id, a reset token) is refused for
 * another. Ids are bound to their app (purpose `id:<appId>`): an id minted for one app does not decrypt in
 * another app's request. The nonce is an HMAC of purpose and plaintext: the same id of the same app always
 * encrypts to the same value, and a tampered value fails authentication.
 *
 * Legacy formats, accepted when decrypting ids: `[iv:ciphertext]` (optionally `_[iv:ciphertext]`), AES-256-CBC
 * with ENCRYPTION_KEY and the 16-byte iv in hex, ciphertext in hex or base64; and the legacy app key
 * (the `appKey` header and `_publicKey`): hex AES-256-CBC with ENCRYPTION_KEY and ENCRYPTION_IV.
 *
 * Key rotation (docs/operations.md "Rotating keys"): everything is made with ENCRYPTION_KEY (and ENCRYPTION_IV);
 * until ENCRYPTION_KEY_PREVIOUS_UNTIL (ENCRYPTION_IV_PREVIOUS_UNTIL) a value the current key does not open is
 * tried with ENCRYPTION_KEY_PREVIOUS (ENCRYPTION_IV_PREVIOUS), read at each use so the date needs no restart.
 */
@Injectable()
export class IdCipherService {
  private readonly key: KeyObject;
  private readonly legacyIv: Buffer;
  private readonly previousKey: PreviousKey<KeyObject> | null;
  private readonly previousIv: PreviousKey<Buffer> | null;
  /** Encryption is deterministic, so the encrypted form of recently used ids can be kept. */
  private readonly encrypted = new Map<string, string>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = createSecretKey(config.encryption.key);
    this.legacyIv = config.encryption.iv;
    const { encryptionKey, encryptionIv } = config.previousKeys;
    this.previousKey = encryptionKey && { value: createSecretKey(encryptionKey.value), until: encryptionKey.until };
    this.previousIv = encryptionIv;
  }

  /** The id `id` of app `appId`, encrypted for that app. */
  encryptId(appId: number, id: number): string {
    return this.cached(`${appId}:${id}`, () => this.seal(idPurpose(appId), String(id)));
  }

  /**
   * The id inside a value encrypted for app `appId`, or in the legacy bracket form (not bound to an app, as
   * existing clients still send it; README "Encrypted identifiers"); null for anything else (tampered, truncated, another app's, foreign).
   */
  decryptId(appId: number, value: unknown): number | null {
    if (typeof value !== 'string' || value.length > 512) return null;
    const legacy = LEGACY_BRACKETS.exec(value);
    const plain = legacy ? this.legacyBrackets(legacy[2], Buffer.from(legacy[1], 'hex')) : this.open(idPurpose(appId), value);
    return idFromText(plain);
  }

  /** Whether a value is in the legacy bracket form, which is malleable: it can name a row, never prove a right to it. */
  isLegacyForm(value: unknown): boolean {
    return typeof value === 'string' && LEGACY_BRACKETS.test(value);
  }

  /** An app's own id in the service format (the `_id` of /getApp). */
  encryptAppId(appId: number): string {
    return this.cached(`app:${appId}`, () => this.seal(APP_ID_PURPOSE, String(appId)));
  }

  /** The app id of an `appKey` header: the legacy app-key form, a bracket form, or an app's `_id`. */
  decryptAppKey(value: string): number | null {
    if (/^[0-9a-fA-F]{32,128}$/.test(value)) {
      const id = idFromText(this.legacyDecrypt(value, this.legacyIv, this.key));
      if (id !== null) return id;
      // An app key made before a rotation of the key, the iv or both.
      const oldKey = stillAccepted(this.previousKey);
      const oldIv = stillAccepted(this.previousIv);
      if (oldKey || oldIv) {
        const old = idFromText(this.legacyDecrypt(value, oldIv ?? this.legacyIv, oldKey ?? this.key));
        if (old !== null) return old;
      }
    }
    const legacy = LEGACY_BRACKETS.exec(value);
    return idFromText(legacy ? this.legacyBrackets(legacy[2], Buffer.from(legacy[1], 'hex')) : this.open(APP_ID_PURPOSE, value));
  }

  legacyAppKey(appId: number): string {
    return this.cached(`key:${appId}`, () => {
      const cipher = createCipheriv('aes-256-cbc', this.key, this.legacyIv);
      return Buffer.concat([cipher.update(String(appId), 'utf8'), cipher.final()]).toString('hex');
    });
  }

  /** Authenticated encryption of any text for a named purpose (tokens, OAuth state). */
  seal(purpose: string, plaintext: string): string {
    const nonce = createHmac('sha256', this.key).update(`${purpose}\0${plaintext}`).digest().subarray(0, NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * The plaintext sealed for `purpose` (with the key, or the previous key while it is accepted), or null when the value is
   * not one of ours for that purpose.
   */
  open(purpose: string, value: unknown): string | null {
    if (typeof value !== 'string' || !BASE64URL.test(value) || value.length > 8192) return null;
    const raw = Buffer.from(value, 'base64url');
    if (raw.length <= NONCE_BYTES + TAG_BYTES) return null;
    const plain = this.openWith(this.key, purpose, raw);
    if (plain !== null) return plain;
    const oldKey = stillAccepted(this.previousKey);
    return oldKey ? this.openWith(oldKey, purpose, raw) : null;
  }

  private openWith(key: KeyObject, purpose: string, raw: Buffer): string | null {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

  private cached(key: string, encrypt: () => string): string {
    let value = this.encrypted.get(key);
    if (value === undefined) {
      value = encrypt();
      if (this.encrypted.size >= ID_CACHE_SIZE) this.encrypted.clear();
      this.encrypted.set(key, value);
    }
    return value;
  }

  /** The bracket form: its own iv, the key or the previous key while it is accepted. */
  private legacyBrackets(ciphertext: string, iv: Buffer): string | null {
    const plain = this.legacyDecrypt(ciphertext, iv, this.key);
    if (idFromText(plain) !== null) return plain;
    const oldKey = stillAccepted(this.previousKey);
    return oldKey ? (this.legacyDecrypt(ciphertext, iv, oldKey) ?? plain) : plain;
  }

  private legacyDecrypt(ciphertext: string, iv: Buffer, key: KeyObject): string | null {
    const bytes = /^[0-9a-fA-F]+$/.test(ciphertext) ? Buffer.from(ciphertext, 'hex') : Buffer.from(ciphertext, 'base64');
    if (bytes.length === 0 || bytes.length % 16 !== 0) return null;
    try {
      const decipher = createDecipheriv('aes-256-cbc', key, iv);
      return Buffer.concat([decipher.update(bytes), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

/** Row ids are PostgreSQL `integer`s. */
export const MAX_ID = 2147483647;

/** A row id written as text (`42`), or null: positive, no leading zeros, within PostgreSQL's integer. */
export function idFromText(plain: unknown): number | null {
  if (typeof plain !== 'string' || !/^[1-9]\d{0,9}$/.test(plain)) return null;
  const id = Number(plain);
  return id <= MAX_ID ? id : null;
}
