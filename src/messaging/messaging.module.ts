import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationLog } from './entities/notification-log.entity';
import { FailedMails } from './failed-mails.service';
import { Notification } from './entities/notification.entity';
import { MessagingController } from './messaging.controller';
import { NotificationSender } from './notification-sender.service';
import { NotificationService } from './notification.service';
import { OutboxMetrics } from './outbox-metrics';
import { MailOutbox } from './mail-outbox.service';
import { PushService } from './push.service';
import { SqlMergeSource } from './sql-merge-source';

/** Templated notifications (log + background sender) and web push; mail itself goes through MailModule. */
@Module({
  imports: [TypeOrmModule.forFeature([Notification, NotificationLog])],
  controllers: [MessagingController],
  providers: [NotificationService, NotificationSender, SqlMergeSource, PushService, MailOutbox, OutboxMetrics, FailedMails],
  exports: [NotificationService, NotificationSender, MailOutbox, FailedMails],
})
export class MessagingModule {}
