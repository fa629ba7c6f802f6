import { Global, Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessPolicy, BearerGuard, CustomerGuard, OptionalBearerGuard, PermissionGuard } from '../common/access-guards';
import { MessagingRecipients } from '../messaging';
import { AccessTokenStrategy } from './session/access-token.strategy';
import { AccountRecipients } from './accounts/account-recipients';
import { AccountsService } from './accounts/accounts.service';
import { BearerAuthService } from './session/bearer-auth.service';
import { AppUser, Customer, Folder, SmsCode, User } from './entities';
import { PassportAccessPolicy } from './session/passport-access.policy';
import { PasswordHasherService } from './password/password-hasher.service';
import { AccountRepository } from './repositories/account.repository';
import { SessionTokensService } from './session/session-tokens.service';

const GUARDS = [BearerGuard, OptionalBearerGuard, CustomerGuard, PermissionGuard];

/**
 * What every module needs from auth: tokens, accounts and password hashing, and the ports auth implements
 * for the modules below it (AccessPolicy behind the guards of common/access-guards, MessagingRecipients).
 */
@Global()
@Module({
  imports: [JwtModule.register({}), PassportModule, TypeOrmModule.forFeature([User, Customer, AppUser, SmsCode, Folder])],
  providers: [
    SessionTokensService,
    PasswordHasherService,
    AccountRepository,
    AccountsService,
    BearerAuthService,
    AccessTokenStrategy,
    PassportAccessPolicy,
    { provide: AccessPolicy, useExisting: PassportAccessPolicy },
    { provide: MessagingRecipients, useClass: AccountRecipients },
    ...GUARDS,
  ],
  exports: [SessionTokensService, PasswordHasherService, AccountsService, BearerAuthService, AccessPolicy, MessagingRecipients, ...GUARDS],
})
export class AuthCoreModule {}
