import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging';
import { AbuseLimitsService } from './abuse-limits.service';
import { AccountLinksController } from './account-links.controller';
import { AuthController } from './auth.controller';
import { CustomerDirectoryService } from './customer-directory.service';
import { CustomerProfilesService } from './customer-profiles.service';
import { CustomersController } from './customers.controller';
import { FolderInvitesService } from './folder-invites.service';
import { PasswordAuthService } from './password-auth.service';
import { AccountRepository } from './repositories/account.repository';
import { CustomerDirectoryRepository } from './repositories/customer-directory.repository';
import { FolderRepository } from './repositories/folder.repository';
import { SmsCodeRepository } from './repositories/sms-code.repository';
import { ResetLinksService } from './reset-links.service';
import { SmsCodesService } from './sms-codes.service';
import { SmsTransportService } from './sms-transport.service';
import { StaffCustomersController } from './staff-customers.controller';
import { StaffController } from './staff.controller';
import { StaffService } from './staff.service';
import { UserLinkTokensService } from './user-link-tokens.service';

/** Password authentication, the customer and app-user routes, and the staff accounts (docs/auth.md). */
@Module({
  imports: [MessagingModule], // MailOutboxService: reset mails leave through the outbox
  controllers: [AuthController, AccountLinksController, CustomersController, StaffController, StaffCustomersController],
  providers: [
    AccountRepository, // also AuthCoreModule's, which keeps it to itself: a stateless query holder, so one per module
    SmsCodeRepository,
    FolderRepository,
    AbuseLimitsService,
    PasswordAuthService,
    CustomerProfilesService,
    ResetLinksService,
    SmsTransportService,
    SmsCodesService,
    UserLinkTokensService,
    FolderInvitesService,
    StaffService,
    CustomerDirectoryRepository,
    CustomerDirectoryService,
  ],
  exports: [PasswordAuthService, SmsTransportService, StaffService, CustomerDirectoryService],
})
export class AuthModule {}
