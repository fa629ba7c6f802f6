import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging';
import { AbuseLimitsService } from './password/abuse-limits.service';
import { AccountLinksController } from './links/account-links.controller';
import { AuthController } from './auth.controller';
import { CustomerDirectoryService } from './customers/customer-directory.service';
import { CustomerProfilesService } from './customers/customer-profiles.service';
import { CustomersController } from './customers/customers.controller';
import { FolderInvitesService } from './links/folder-invites.service';
import { PasswordAuthService } from './password/password-auth.service';
import { AccountRepository } from './repositories/account.repository';
import { CustomerDirectoryRepository } from './repositories/customer-directory.repository';
import { FolderRepository } from './repositories/folder.repository';
import { SmsCodeRepository } from './repositories/sms-code.repository';
import { ResetLinksService } from './reset/reset-links.service';
import { SmsCodesService } from './sms/sms-codes.service';
import { SmsTransportService } from './sms/sms-transport.service';
import { StaffCustomersController } from './customers/staff-customers.controller';
import { StaffController } from './staff/staff.controller';
import { StaffService } from './staff/staff.service';
import { UserLinkTokensService } from './links/user-link-tokens.service';

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
