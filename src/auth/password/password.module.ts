import { Module } from '@nestjs/common';
import { AbuseLimitsService } from './abuse-limits.service';
import { PasswordAuthService } from './password-auth.service';

/** Password checks and the per-account abuse limits that reset links and SMS codes count against too. */
@Module({
  providers: [AbuseLimitsService, PasswordAuthService],
  exports: [AbuseLimitsService, PasswordAuthService],
})
export class PasswordModule {}
