import { Module } from '@nestjs/common';
import { AccountRepository } from '../repositories/account.repository';
import { ResetModule } from '../reset/reset.module';
import { StaffController } from './staff.controller';
import { StaffService } from './staff.service';

/** A shop's staff: members, their roles, invitations (a reset link to set a password) and removal. */
@Module({
  imports: [ResetModule],
  controllers: [StaffController],
  providers: [AccountRepository, StaffService],
  exports: [StaffService],
})
export class StaffModule {}
