import { Injectable } from '@nestjs/common';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { NotificationLog } from './entities/notification-log.entity';
import { MailTemplates } from '../mail';
import { NotificationSender } from './notification-sender.service';

/** A mail the service itself sends (the shop's order mails), as written to the outbox. */
export interface OutboxMail {
  appId: number;
  /** What the mail is about, kept in the log's `event` (e.g. `order_admin`, `order_confirmation`). */
  event: string;
  from: string;
  /** The To address; null sends to CC/BCC only. */
  to: string | null;
  cc?: string[];
  bcc?: string[];
  subject: string;
  /** Exactly one of html and text. */
  html?: string;
  text?: string;
  /** The record the mail is about (core_notification_log.linked_table and master_id). */
  linkedTable?: string;
  masterId?: number;
}

/**
 * The outbox: core_notification_log rows in the caller's transaction, sent once by NotificationSender after
 * the commit (every instance's sender is woken then; a crash in between leaves the Pending row for the
 * next poll of any instance).
 */
@Injectable()
export class MailOutbox {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly sender: NotificationSender,
    private readonly templates: MailTemplates,
  ) {}

  /** Writes one Pending mail in the scope's transaction; the id of its log row. */
  async enqueue(scope: TransactionScope, mail: OutboxMail): Promise<number> {
    if ((mail.html === undefined) === (mail.text === undefined)) throw new Error('An outbox mail has exactly one of html and text');
    return this.write(scope, {
      app_id: mail.appId,
      notification_id: null,
      event: mail.event.slice(0, 100),
      email: mail.to,
      linked_table: mail.linkedTable ?? null,
      master_id: mail.masterId ?? null,
      email_from: mail.from,
      email_cc: mail.cc?.length ? mail.cc.join(', ') : null,
      email_bcc: mail.bcc?.length ? mail.bcc.join(', ') : null,
      subject: mail.subject.slice(0, 1000),
      body: mail.html ?? mail.text!,
      content_type: mail.html === undefined ? 'text' : 'html',
    });
  }

  /** templates/<template> rendered now (handlebars, strict, escaped), for a mail written with `enqueue`. */
  render(template: string, context: Record<string, unknown>): Promise<string> {
    return this.templates.render(template, context);
  }

  /** Inserts a log row in the scope's transaction; the senders are woken once it committed. */
  async write(scope: TransactionScope, row: Partial<NotificationLog>): Promise<number> {
    const names = Object.keys(row) as (keyof NotificationLog)[];
    // Raw SQL: a measured hot path (/message/notification): TypeORM's insert builder cost ~0.4 ms of CPU per
    // request, about 15%. The column names are the NotificationLog properties `row` is typed with.
    const [{ id }]: { id: number }[] = await this.connection.manager(scope).query(
      `INSERT INTO core_notification_log (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      names.map((name) => row[name]),
    );
    await scope.afterCommit(() => this.sender.queued());
    return id;
  }
}
