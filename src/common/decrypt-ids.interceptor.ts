import { CallHandler, ExecutionContext, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { Observable } from 'rxjs';
import { IdCipherService } from './id-cipher.service';
import { RequestWithContext } from './request-context';

/** Stands in for an encrypted id that did not decrypt: no row has id 0, so it takes the unknown-id path. */
export const UNKNOWN_ID = 0;
const MAX_DEPTH = 5;

/**
 * Binds DecryptIdsInterceptor to the routes of a controller whose bodies carry encrypted ids. Only those
 * pay for it: an interceptor puts the whole call through rxjs (a measurable share of a light route's CPU), so it
 * is not global. test/foundation/decrypt-ids-routes.e2e.ts fails for a route whose body DTO declares a
 * `_` field or a free-form object (whose `_` keys are ids too) without it.
 */
export const DecryptIds = () => UseInterceptors(DecryptIdsInterceptor);

/**
 * Decrypts every `_`-prefixed property of a request body before validation, so handlers see plain ids.
 * Ids are bound to their app: they are decrypted for the request's tenant, which is final only after the
 * guards (a bearer may name it), so this is an interceptor, which runs after the guards and before the
 * pipes. A value that is not a valid encrypted id of this app (another app's included, or any value when
 * the request has no app) becomes UNKNOWN_ID, which answers exactly like an id that does not exist.
 */
@Injectable()
export class DecryptIdsInterceptor implements NestInterceptor {
  constructor(private readonly cipher: IdCipherService) {}

  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = execution.switchToHttp().getRequest<RequestWithContext>();
    const appId = request.ctx?.site?.id ?? null;
    this.walk(request.body, appId, 0, request.ctx);
    return next.handle();
  }

  private walk(node: unknown, appId: number | null, depth: number, ctx: RequestWithContext['ctx']): void {
    if (depth > MAX_DEPTH || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) this.walk(item, appId, depth + 1, ctx);
      return;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key.startsWith('_') && key.length > 1) {
        if (ctx && this.cipher.isLegacyForm(record[key])) (ctx.legacyIdFields ??= new Set()).add(key);
        record[key] = (appId !== null ? this.cipher.decryptId(appId, record[key]) : null) ?? UNKNOWN_ID;
      } else this.walk(record[key], appId, depth + 1, ctx);
    }
  }
}
