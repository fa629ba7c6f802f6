import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AppContextGuard } from '../app-context/app-context.guard';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard';
import { DecryptIdsInterceptor } from './decrypt-ids.interceptor';
import { GlobalExceptionFilter } from './global-exception.filter';
import { IdCipher } from './id-cipher.service';
import { createValidationPipe } from './validation.pipe';

/** The cross-cutting pieces, each registered once: error mapping, id decryption, validation, tenant, rate limit. */
@Global()
@Module({
  providers: [
    IdCipher,
    { provide: APP_FILTER, useClass: GlobalExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: DecryptIdsInterceptor },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    { provide: APP_GUARD, useExisting: AppContextGuard },
    { provide: APP_GUARD, useExisting: RateLimitGuard },
  ],
  exports: [IdCipher],
})
export class CommonModule {}
