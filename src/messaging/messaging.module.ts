import { Module } from '@nestjs/common';
import { MessagingController } from './messaging.controller';
import { NotificationSender } from './notification-sender.service';
import { NotificationService } from './notification.service';
import { PushService } from './push.service';
import { SqlMergeSource } from './sql-merge-source';

/** Templated notifications (log + background sender) and web push; mail itself goes through MailModule. */
@Module({
  controllers: [MessagingController],
  providers: [NotificationService, NotificationSender, SqlMergeSource, PushService],
  exports: [NotificationService, NotificationSender],
})
export class MessagingModule {}
