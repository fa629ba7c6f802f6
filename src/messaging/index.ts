/** The messaging module's public surface: import from here, not from its files. */
export { FailedMailsService } from './failed-mails.service';
export type { FailedMail } from './repositories/notification-log.repository';
export { MailOutboxService } from './mail-outbox.service';
export type { OutboxMail } from './mail-outbox.service';
export { MessagingModule } from './messaging.module';
export { NotificationSenderService } from './notification-sender.service';
export type { SenderRun } from './notification-sender.service';
export { NO_RECIPIENT, NotificationService } from './notification.service';
export { MessagingRecipients } from './recipients.port';
export type { PushSubscriptionColumns } from './recipients.port';
export { MERGE_APPLICATION_NAME } from './repositories/sql-merge.repository';
export { RESERVED_EVENTS } from './templates/order-mail-events';
export { TenantMailTemplates } from './templates/tenant-mail-templates';
export type { OwnMail } from './templates/tenant-mail-templates';
