import { Injectable } from '@nestjs/common';
import { RequestContext } from '../common/request-context';
import { TransactionalConnection } from '../database/transactional-connection';
import { MailTemplates } from '../mail';
import { NotificationLog } from './entities/notification-log.entity';
import { NotificationSenderService } from './notification-sender.service';
import { NotificationLogRepository, PendingMail } from './repositories/notification-log.repository';

/** A mail the service itself sends (the shop's order mails, reset links), as written to the outbox for the context's app. */
export interface OutboxMail {
  /** What the mail is about, kept in the log's `event` (e.g. `order_admin`, `order_confirmation`). */
  event: string;
  from: string;
  /** The To address; null sends to CC/BCC only. */
  to: string | null;
  cc?: string[];
  bcc?: string[];
  subject: string;
  /** html, text, or both (text is then the HTML's plain-text alternative). */
  html?: string;
  text?: string;
  /** The record the mail is about (core_notification_log.linked_table and master_id). */
  linkedTable?: string;
  masterId?: number;
}

/** A mail written about a record, as the record's history shows it (the order timeline): its envelope and state, never its body. */
export interface MailAbout {
  id: number;
  event: string;
  email: string | null;
  subject: string;
  status: 'Pending' | 'Sent' | 'Failed';
  attempts: number;
  created: Date;
  sent: Date | null;
}

/**
 * The outbox: core_notification_log rows in the caller's transaction, sent once by NotificationSenderService after
 * the commit (every instance's sender is woken then; a crash in between leaves the Pending row for the
 * next poll of any instance).
 */
@Injectable()
export class MailOutboxService {
  constructor(
    private readonly log: NotificationLogRepository,
    private readonly sender: NotificationSenderService,
    private readonly templates: MailTemplates,
    private readonly connection: TransactionalConnection,
  ) {}

  /** The mails of `ctx`'s app written about one record (linked_table, master_id), oldest first. */
  mailsAbout(ctx: RequestContext, linkedTable: string, masterId: number): Promise<MailAbout[]> {
    return this.connection.repository(ctx, NotificationLog).find({
      select: { id: true, event: true, email: true, subject: true, status: true, attempts: true, created: true, sent: true },
      where: { app_id: ctx.appId, linked_table: linkedTable, master_id: masterId },
      order: { created: 'ASC', id: 'ASC' },
    });
  }

  /** Writes one Pending mail of `ctx`'s app in the context's transaction; the id of its log row. */
  async enqueue(ctx: RequestContext, mail: OutboxMail): Promise<number> {
    const [id] = await this.enqueueAll(ctx, [mail]);
    return id;
  }

  /** As `enqueue`, for several mails written in one statement; their ids, in order. */
  enqueueAll(ctx: RequestContext, mails: OutboxMail[]): Promise<number[]> {
    return this.writeAll(ctx, mails.map(pendingMail));
  }

  /** templates/<template> rendered now (handlebars, strict, escaped), for a mail written with `enqueue`. */
  render(template: string, context: Record<string, unknown>): Promise<string> {
    return this.templates.render(template, context);
  }

  /** Inserts a log row of `ctx`'s app in the context's transaction; the senders are woken once it committed. */
  async write(ctx: RequestContext, mail: PendingMail): Promise<number> {
    const [id] = await this.writeAll(ctx, [mail]);
    return id;
  }

  private async writeAll(ctx: RequestContext, mails: PendingMail[]): Promise<number[]> {
    if (mails.length === 0) return [];
    const ids = await this.log.insertPending(ctx, mails);
    await ctx.afterCommit(this.wakeSenders); // once per transaction, however many mails it wrote
    return ids;
  }

  private readonly wakeSenders = () => this.sender.queued();
}

function pendingMail(mail: OutboxMail): PendingMail {
  if (mail.html === undefined && mail.text === undefined) throw new Error('An outbox mail has html, text or both');
  return {
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
    text_body: mail.html === undefined ? null : (mail.text ?? null),
    content_type: mail.html === undefined ? 'text' : 'html',
  };
}
