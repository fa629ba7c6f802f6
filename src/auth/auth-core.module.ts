import { Global, Module } from '@nestjs/common';
import { AdminGuard, BearerGuard, CustomerGuard, OptionalBearerGuard } from './auth.guards';
import { PasswordHasher } from './password-hasher.service';
import { TokenService } from './token.service';

/** What every module needs from auth: tokens, guards and password hashing. */
@Global()
@Module({
  providers: [TokenService, PasswordHasher, BearerGuard, OptionalBearerGuard, CustomerGuard, AdminGuard],
  exports: [TokenService, PasswordHasher, BearerGuard, OptionalBearerGuard, CustomerGuard, AdminGuard],
})
export class AuthCoreModule {}
