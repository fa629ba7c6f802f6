import { Global, Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessTokenStrategy } from './access-token.strategy';
import { AccountsService } from './accounts.service';
import { AdminGuard, BearerGuard, CustomerGuard, OptionalBearerGuard } from './auth.guards';
import { BearerAuthenticator } from './bearer-auth.service';
import { AppUser, Customer, Folder, SmsCode, User } from './entities';
import { PasswordHasher } from './password-hasher.service';
import { SessionTokens } from './session-tokens.service';

/** What every module needs from auth: tokens, guards, accounts and password hashing. */
@Global()
@Module({
  imports: [JwtModule.register({}), PassportModule, TypeOrmModule.forFeature([User, Customer, AppUser, SmsCode, Folder])],
  providers: [
    SessionTokens,
    PasswordHasher,
    AccountsService,
    BearerAuthenticator,
    AccessTokenStrategy,
    BearerGuard,
    OptionalBearerGuard,
    CustomerGuard,
    AdminGuard,
  ],
  exports: [
    SessionTokens,
    PasswordHasher,
    AccountsService,
    BearerAuthenticator,
    BearerGuard,
    OptionalBearerGuard,
    CustomerGuard,
    AdminGuard,
  ],
})
export class AuthCoreModule {}
