import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { DecryptIdsInterceptor } from './decrypt-ids.interceptor';
import { GlobalExceptionFilter } from './global-exception.filter';
import { IdCipher } from './id-cipher.service';
import { createValidationPipe } from './validation.pipe';

/**
 * The cross-cutting pieces, each registered once: error mapping, id decryption, validation. (The use
 * case's transaction is bound per route by @Transactional(); the tenant and rate-limit guards are
 * registered by their own modules.)
 */
@Global()
@Module({
  providers: [
    IdCipher,
    { provide: APP_FILTER, useClass: GlobalExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: DecryptIdsInterceptor },
    { provide: APP_PIPE, useFactory: createValidationPipe },
  ],
  exports: [IdCipher],
})
export class CommonModule {}
