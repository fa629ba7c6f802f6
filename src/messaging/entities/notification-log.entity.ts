import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Site } from '../../app-context';
import { Notification } from './notification.entity';

export type NotificationStatus = 'Pending' | 'Sent' | 'Failed';
export type MailContentType = 'html' | 'text';

/**
 * A row of core_notification_log: one accepted notification, merged at request time. It is also the
 * outbox: the sender claims Pending rows (claim_token, next_attempt as the lease), sends and settles them.
 */
@Entity('core_notification_log')
@Check('core_notification_log_status_check', `status IN ('Pending', 'Sent', 'Failed')`)
@Check('core_notification_log_content_type_check', `content_type IN ('html', 'text')`)
@Index('core_notification_log_due_idx', ['next_attempt', 'id'], { where: `status = 'Pending'` }) // the sender's work queue
// The send log's pages (POST /message/log), newest first; expression and DESC indexes, built by migration 1764002100000:
@Index('core_notification_log_app_created_idx', { synchronize: false }) // (app_id, created DESC, id DESC)
@Index('core_notification_log_app_status_idx', { synchronize: false }) // (app_id, status, created DESC, id DESC)
@Index('core_notification_log_app_email_idx', { synchronize: false }) // (app_id, lower(email), created DESC, id DESC)
@Index('core_notification_log_app_event_idx', { synchronize: false }) // (app_id, event, created DESC, id DESC)
@Index('core_notification_log_linked_idx', ['app_id', 'linked_table', 'master_id']) // the mails about a record (the order timeline)
export class NotificationLog {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_notification_log_app_id_fkey' })
  site?: Site;

  @Column({ type: 'integer', nullable: true })
  notification_id: number | null;

  @ManyToOne(() => Notification, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'notification_id', foreignKeyConstraintName: 'core_notification_log_notification_id_fkey' })
  notification?: Notification | null;

  @Column({ type: 'varchar', length: 100 })
  event: string;

  /** The To address; null for a NONE mail (BCC only). */
  @Column({ type: 'varchar', length: 320, nullable: true })
  email: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  linked_table: string | null;

  @Column({ type: 'integer', nullable: true })
  master_id: number | null;

  @Column({ type: 'varchar', length: 10, default: 'Pending' })
  status: NotificationStatus;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  sent: Date | null;

  @Column({ type: 'varchar', length: 320 })
  email_from: string;

  @Column({ type: 'text', nullable: true })
  email_cc: string | null;

  @Column({ type: 'text', nullable: true })
  email_bcc: string | null;

  @Column({ type: 'varchar', length: 1000 })
  subject: string;

  @Column({ type: 'text' })
  body: string;

  /** The plain-text alternative of an HTML `body` (the service's own mails with both parts); null for one-part mails. */
  @Column({ type: 'text', nullable: true })
  text_body: string | null;

  /** Whether `body` is sent as HTML (notifications, the order confirmation) or as plain text (the shop's admin mail). */
  @Column({ type: 'varchar', length: 10, default: 'html' })
  content_type: MailContentType;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  next_attempt: Date;

  @Column({ type: 'uuid', nullable: true })
  claim_token: string | null;

  @Column({ type: 'text', nullable: true })
  last_error: string | null;
}
