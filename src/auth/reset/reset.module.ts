import { Module } from '@nestjs/common';
import { MessagingModule } from '../../messaging';
import { PasswordModule } from '../password/password.module';
import { ResetLinksService } from './reset-links.service';

/** Password reset links: issued, mailed through the outbox (MessagingModule) and redeemed. */
@Module({
  imports: [PasswordModule, MessagingModule],
  providers: [ResetLinksService],
  exports: [ResetLinksService],
})
export class ResetModule {}
