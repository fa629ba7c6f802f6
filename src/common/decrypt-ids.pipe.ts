import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { IdCipher } from './id-cipher.service';

/** Stands in for an encrypted id that did not decrypt: no row has id 0, so it takes the unknown-id path. */
export const UNKNOWN_ID = 0;
const MAX_DEPTH = 5;

/**
 * Decrypts every `_`-prefixed property of a request body before validation, so handlers see plain ids.
 * A value that is not a valid encrypted id becomes UNKNOWN_ID, which answers exactly like an id that
 * does not exist.
 */
@Injectable()
export class DecryptIdsPipe implements PipeTransform {
  constructor(private readonly cipher: IdCipher) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body') return value;
    this.walk(value, 0);
    return value;
  }

  private walk(node: unknown, depth: number): void {
    if (depth > MAX_DEPTH || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) this.walk(item, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key.startsWith('_') && key.length > 1) record[key] = this.cipher.decryptId(record[key]) ?? UNKNOWN_ID;
      else this.walk(record[key], depth + 1);
    }
  }
}
