import { Module } from '@nestjs/common';
import { AuthController } from './auth.controller';
import { CustomersModule } from './customers/customers.module';
import { LinksModule } from './links/links.module';
import { PasswordModule } from './password/password.module';
import { ResetModule } from './reset/reset.module';
import { SmsModule } from './sms/sms.module';
import { StaffModule } from './staff/staff.module';

/**
 * Password authentication (/auth/login, refresh, reset) over the auth folders, each its own module: password,
 * reset, sms, links, customers and staff (docs/auth.md). AuthCoreModule holds what every module needs.
 */
@Module({
  imports: [PasswordModule, ResetModule, SmsModule, LinksModule, CustomersModule, StaffModule],
  controllers: [AuthController],
  exports: [PasswordModule, SmsModule, StaffModule, CustomersModule],
})
export class AuthModule {}
