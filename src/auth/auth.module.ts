import { Module } from '@nestjs/common';
import { AbuseLimits } from './abuse-limits.service';
import { AccountsService } from './accounts.service';
import { AuthController } from './auth.controller';
import { CustomerProfilesService } from './customer-profiles.service';
import { AppUsersController, CustomersController } from './customers.controller';
import { PasswordAuthService } from './password-auth.service';
import { ResetLinksService } from './reset-links.service';

/** Password authentication endpoints (SPEC "Password authentication", "Customers and app users"). */
@Module({
  controllers: [AuthController, CustomersController, AppUsersController],
  providers: [AccountsService, AbuseLimits, PasswordAuthService, CustomerProfilesService, ResetLinksService],
  exports: [AccountsService, PasswordAuthService],
})
export class AuthModule {}
