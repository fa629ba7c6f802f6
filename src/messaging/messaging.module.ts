import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationLog } from './entities/notification-log.entity';
import { FailedMailsService } from './failed-mails.service';
import { Notification } from './entities/notification.entity';
import { NotificationVersion } from './entities/notification-version.entity';
import { MessagingController } from './messaging.controller';
import { NotificationSenderService } from './notification-sender.service';
import { NotificationService } from './notification.service';
import { OutboxMetrics } from './outbox-metrics';
import { MailOutboxService } from './mail-outbox.service';
import { PushService } from './push.service';
import { NotificationLogRepository } from './repositories/notification-log.repository';
import { NotificationTemplateRepository } from './repositories/notification-template.repository';
import { SqlMergeRepository } from './repositories/sql-merge.repository';
import { SqlMergeSource } from './sql-merge-source';
import { NotificationVersionRepository } from './repositories/notification-version.repository';
import { NotificationTemplatesService } from './templates/notification-templates.service';
import { TemplatesController } from './templates/templates.controller';
import { TenantMailTemplates } from './templates/tenant-mail-templates';
import { SendLogController } from './send-log.controller';
import { SendLogService } from './send-log.service';

/**
 * Templated notifications (log + background sender), the outbox every mail of the service leaves through, and
 * web push; the transport is MailModule's. The accounts (addresses, push subscriptions) come through the
 * MessagingRecipients port, which the auth module provides globally.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Notification, NotificationLog, NotificationVersion])],
  controllers: [MessagingController, SendLogController, TemplatesController],
  providers: [
    NotificationService,
    NotificationSenderService,
    SqlMergeSource,
    PushService,
    MailOutboxService,
    OutboxMetrics,
    FailedMailsService,
    NotificationLogRepository,
    NotificationTemplateRepository,
    SqlMergeRepository,
    SendLogService,
    NotificationVersionRepository,
    NotificationTemplatesService,
    TenantMailTemplates,
  ],
  exports: [NotificationService, NotificationSenderService, MailOutboxService, FailedMailsService, TenantMailTemplates],
})
export class MessagingModule {}
