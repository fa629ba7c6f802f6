import { Module } from '@nestjs/common';
import { PasswordModule } from '../password/password.module';
import { AccountRepository } from '../repositories/account.repository';
import { CustomerDirectoryRepository } from '../repositories/customer-directory.repository';
import { ResetModule } from '../reset/reset.module';
import { CustomerDirectoryService } from './customer-directory.service';
import { CustomerProfilesService } from './customer-profiles.service';
import { CustomersController } from './customers.controller';
import { StaffCustomersController } from './staff-customers.controller';

/** Customer and app-user accounts (sign-up, login, profile) and the staff's directory of them. */
@Module({
  imports: [PasswordModule, ResetModule],
  controllers: [CustomersController, StaffCustomersController],
  providers: [AccountRepository, CustomerProfilesService, CustomerDirectoryRepository, CustomerDirectoryService],
  exports: [CustomerDirectoryService],
})
export class CustomersModule {}
