import { Module } from '@nestjs/common';
import { AbuseLimits } from './abuse-limits.service';
import { AccountsService } from './accounts.service';
import { AuthController } from './auth.controller';
import { PasswordAuthService } from './password-auth.service';

/** Password authentication endpoints (SPEC "Password authentication", "Customers and app users"). */
@Module({
  controllers: [AuthController],
  providers: [AccountsService, AbuseLimits, PasswordAuthService],
  exports: [AccountsService, PasswordAuthService],
})
export class AuthModule {}
