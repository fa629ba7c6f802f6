import { Module } from '@nestjs/common';
import { AbuseLimits } from './abuse-limits.service';
import { AccountLinksController } from './account-links.controller';
import { AuthController } from './auth.controller';
import { CustomerProfilesService } from './customer-profiles.service';
import { CustomersController } from './customers.controller';
import { FolderInvitesService } from './folder-invites.service';
import { PasswordAuthService } from './password-auth.service';
import { ResetLinksService } from './reset-links.service';
import { SmsCodesService } from './sms-codes.service';
import { SmsTransport } from './sms-transport.service';
import { UserLinkTokens } from './user-link-tokens.service';

/** Password authentication endpoints (SPEC "Password authentication", "Customers and app users"). */
@Module({
  controllers: [AuthController, AccountLinksController, CustomersController],
  providers: [
    AbuseLimits,
    PasswordAuthService,
    CustomerProfilesService,
    ResetLinksService,
    SmsTransport,
    SmsCodesService,
    UserLinkTokens,
    FolderInvitesService,
  ],
  exports: [PasswordAuthService, SmsTransport],
})
export class AuthModule {}
