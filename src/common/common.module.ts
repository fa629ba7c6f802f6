import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { GlobalExceptionFilter } from './global-exception.filter';
import { IdCipherService } from './id-cipher.service';
import { createValidationPipe } from './validation.pipe';

/**
 * The cross-cutting pieces, each registered once: error mapping, the id cipher, validation. (Id decryption
 * is bound by @DecryptIds() to the controllers that take encrypted ids, the use case's transaction per
 * route by @Transactional(); the tenant and rate-limit guards are registered by their own modules.)
 */
@Global()
@Module({
  providers: [
    IdCipherService,
    { provide: APP_FILTER, useClass: GlobalExceptionFilter },
    { provide: APP_PIPE, useFactory: createValidationPipe },
  ],
  exports: [IdCipherService],
})
export class CommonModule {}
