/** The messaging module's public surface: import from here, not from its files. */
export { FailedMails } from './failed-mails.service';
export type { FailedMail } from './failed-mails.service';
export { MailOutbox } from './mail-outbox.service';
export type { OutboxMail } from './mail-outbox.service';
export { MessagingModule } from './messaging.module';
export { NotificationSender } from './notification-sender.service';
export type { SenderRun } from './notification-sender.service';
export { NO_RECIPIENT, NotificationService } from './notification.service';
export type { AcceptResult } from './notification.service';
export { MERGE_APPLICATION_NAME } from './sql-merge-source';
