import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { NotificationStatus } from './entities/notification-log.entity';
import { FailedMailsService } from './failed-mails.service';
import { messagingError } from './messaging.errors';
import { NotificationLogRepository, SendLogMail, SendLogRow } from './repositories/notification-log.repository';

export const SEND_LOG_DEFAULT_PER_PAGE = 20;

/** The send log's filters, paging included (POST /message/log). */
export interface SendLogFilters {
  status?: NotificationStatus;
  email?: string;
  event?: string;
  from?: string;
  to?: string;
  cursor?: string;
  perPage?: number;
}

/** A row of the list: the mail's envelope and state, never its body. */
export interface SendLogItem {
  id: number;
  event: string;
  templateID: number | null;
  email: string | null;
  subject: string;
  status: NotificationStatus;
  attempts: number;
  lastError: string | null;
  linkedTable: string | null;
  masterID: number | null;
  created: Date;
  sent: Date | null;
}

/** One mail as read (POST /message/log/read): the merged mail and its delivery state. */
export interface SendLogDetail extends SendLogItem {
  from: string;
  cc: string | null;
  bcc: string | null;
  contentType: 'html' | 'text';
  html: string | null;
  text: string | null;
  nextAttempt: Date | null;
}

/**
 * The cursor of the next page: the last row's created (to the microsecond, as PostgreSQL keeps it) and id,
 * `<ISO time>~<id>` in base64url. It only positions a page: the app is always the request's, so a cursor
 * edited by hand shows nothing of another app.
 */
const CURSOR_FORM = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)~([1-9]\d{0,9})$/;

function encodeCursor(row: SendLogRow): string {
  return Buffer.from(`${row.created_key}~${row.id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { created: string; id: number } {
  const match = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? CURSOR_FORM.exec(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  const id = match ? Number(match[2]) : NaN;
  if (!match || id > 2147483647 || Number.isNaN(Date.parse(match[1])))
    throw ApiError.field('cursor', "cursor must be a previous page's paging.nextCursor");
  return { created: match[1], id };
}

function itemOf(row: Omit<SendLogRow, 'created_key'>): SendLogItem {
  return {
    id: row.id,
    event: row.event,
    templateID: row.notification_id,
    email: row.email,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    linkedTable: row.linked_table,
    masterID: row.master_id,
    created: row.created,
    sent: row.sent,
  };
}

function detailOf(mail: SendLogMail): SendLogDetail {
  return {
    ...itemOf(mail),
    from: mail.email_from,
    cc: mail.email_cc,
    bcc: mail.email_bcc,
    contentType: mail.content_type,
    html: mail.content_type === 'html' ? mail.body : null,
    text: mail.content_type === 'text' ? mail.body : mail.text_body,
    nextAttempt: mail.status === 'Pending' ? mail.next_attempt : null,
  };
}

/**
 * The send log for staff (README "Staff API: the send log"): the app's notifications queued and sent
 * (core_notification_log), one mail read whole, and a Failed mail put back in the queue through
 * FailedMailsService (the CLI's mail:retry).
 */
@Injectable()
export class SendLogService {
  constructor(
    private readonly log: NotificationLogRepository,
    private readonly failed: FailedMailsService,
    private readonly audit: AuditService,
  ) {}

  /**
   * One page, newest first (created, then id), after `cursor`. Keyset paging, not page numbers: OFFSET reads and
   * drops every row before the page, so page 20,000 of a 1,000,000-row log would read 400,000 index entries; a
   * cursor starts the index walk at the previous page's last row, so every page costs the same.
   */
  async list(
    ctx: RequestContext,
    filters: SendLogFilters,
  ): Promise<{ data: SendLogItem[]; paging: { perPage: number; hasMore: boolean; nextCursor: string | null } }> {
    const perPage = filters.perPage ?? SEND_LOG_DEFAULT_PER_PAGE;
    const after = filters.cursor !== undefined ? decodeCursor(filters.cursor) : undefined;
    if (filters.from && filters.to && Date.parse(filters.from) > Date.parse(filters.to))
      throw ApiError.field('to', 'to must not be before from');
    const rows = await this.log.sendLog(ctx, {
      status: filters.status,
      email: filters.email,
      event: filters.event,
      from: filters.from,
      to: filters.to,
      after,
      limit: perPage + 1,
    });
    const hasMore = rows.length > perPage;
    const shown = rows.slice(0, perPage);
    return {
      data: shown.map(itemOf),
      paging: { perPage, hasMore, nextCursor: hasMore ? encodeCursor(shown[shown.length - 1]) : null },
    };
  }

  /** One mail of `ctx`'s app; 404 for an unknown id or another app's. */
  async read(ctx: RequestContext, id: number): Promise<SendLogDetail> {
    const mail = await this.log.readOne(ctx, id);
    if (!mail) throw messagingError('MAIL_NOT_FOUND');
    return detailOf(mail);
  }

  /**
   * Puts a Failed mail of `ctx`'s app back in the queue (Pending, due now, attempts from zero; the senders are
   * woken after the commit), in the caller's transaction. 404 for an unknown id or another app's, 409 naming
   * the status of a mail that is not Failed. The UPDATE decides (WHERE status = 'Failed'): of two retries at
   * once, one puts the mail back and the other gets 409 Pending. The retry is audited as `mail.retry` in the same
   * transaction (status, attempts, next attempt before and after).
   */
  async retry(ctx: RequestContext, id: number): Promise<{ before: SendLogDetail; after: SendLogDetail }> {
    let mail = await this.log.readOne(ctx, id);
    // A mail that failed again between our read and our update (another retry won, and the server refused again)
    // is Failed once more: the caller asked for exactly that mail back in the queue, so the turn is taken again.
    for (let turn = 0; mail && mail.status === 'Failed' && turn < 3; turn++) {
      if ((await this.failed.retry(ctx, id)).length === 1) {
        const after = (await this.log.readOne(ctx, id))!;
        await this.audit.record(ctx, {
          action: 'mail.retry',
          table: 'core_notification_log',
          recordId: id,
          before: { status: mail.status, attempts: mail.attempts, next_attempt: mail.next_attempt },
          after: { status: after.status, attempts: after.attempts, next_attempt: after.next_attempt },
        });
        return { before: detailOf(mail), after: detailOf(after) };
      }
      mail = await this.log.readOne(ctx, id);
    }
    if (!mail) throw messagingError('MAIL_NOT_FOUND');
    throw messagingError('MAIL_NOT_FAILED', { detail: mail.status });
  }
}
