import { Inject, Injectable } from '@nestjs/common';
import { mayDo } from '../common/access-guards';
import { ApiError } from '../common/api-error';
import { RequestContext, TenantSite } from '../common/request-context';
import { requireAdmin } from '../common/require-admin';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SchemaCatalogService } from '../database/schema-catalog.service';
import { TablePolicy } from '../database/table-policy';
import { TransactionalConnection } from '../database/transactional-connection';
import { RateLimitStorage, refusedHit } from '../rate-limit';
import { RelatedLinksService } from '../related';
import { MailOutboxService } from './mail-outbox.service';
import { messagingError } from './messaging.errors';
import { SendNotificationRequest } from './notification.dto';
import { addressList, isEmailAddress, MergeData, mergeHtml, mergeSubject } from './placeholders';
import { MessagingRecipients } from './recipients.port';
import { PendingMail } from './repositories/notification-log.repository';
import { NotificationTemplate, NotificationTemplateRepository } from './repositories/notification-template.repository';
import { SqlMergeSource } from './sql-merge-source';

/** `email` value that sends only to the BCC addresses. */
export const NO_RECIPIENT = 'NONE';

/**
 * A notification request in two steps: `prepare` merges the template with the data (and the SQL merge,
 * which may take seconds) into the mail, outside any transaction; `record` writes it as one `Pending`
 * core_notification_log row (the outbox the sender works from) and its core_related link, in the
 * transaction the route opened for the writes only. Nothing is sent here; the sender is woken once that
 * transaction committed.
 */
@Injectable()
export class NotificationService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly catalog: SchemaCatalogService,
    private readonly links: RelatedLinksService,
    private readonly sqlSource: SqlMergeSource,
    private readonly outbox: MailOutboxService,
    private readonly recipients: MessagingRecipients,
    private readonly templates: NotificationTemplateRepository,
    private readonly limits: RateLimitStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The merged mail of `request`, or null when the app has notifications disabled. */
  async prepare(ctx: RequestContext, request: SendNotificationRequest): Promise<PendingMail | null> {
    const site = ctx.app;
    if (site.disable_email) return null;

    const sql = request.SQL?.trim() ? request.SQL : null;
    // The SQL merge reads the app's users and customers: it takes an admin's bearer, checked against the account now.
    if (sql !== null) requireAdmin(ctx, 'mail.send');
    if (request.table !== undefined) await this.requireKnownTable(ctx, request.table);
    const template = await this.template(ctx, request.event);
    const data = await this.mergeData(ctx, site, request.data, sql);
    const to = this.recipient(request, data);
    // NONE sends to the BCC addresses only: the app's CC user is left out too.
    const ccUser = to === null ? null : site.email_cc;
    const users = await this.userAddresses(ctx, [ccUser, site.email_bcc]);
    const cc = addressOf(users, ccUser);
    const bcc = unique([...addressOf(users, site.email_bcc), ...addressList(template.bcc)]);
    if (to === null && bcc.length === 0) {
      throw ApiError.field('email', 'email is NONE but the app and the template have no BCC address');
    }

    return {
      notification_id: template.id,
      event: request.event,
      email: to,
      linked_table: request.table ?? null,
      master_id: request.master_id ?? null,
      email_from: template.from?.trim() || site.email_from || `no-reply@${site.domain}`,
      email_cc: cc.join(', ') || null,
      email_bcc: bcc.join(', ') || null,
      subject: mergeSubject(template.subject, data).slice(0, 1000),
      body: mergeHtml(template.content, data),
      text_body: null,
      content_type: 'html',
    };
  }

  /**
   * Counts a prepared mail against the caps on sends without an app admin's bearer (docs/messaging.md "Caps on
   * sends"): mails to its To address, then mails of its template, per app and NOTIFY_ANON_WINDOW_MS, on the
   * rate limit's storage (Redis with REDIS_URL, else this process), whose increment is atomic: concurrent
   * sends each get their own count and never more than the cap pass. Over a cap: 429 with Retry-After, and a
   * hit already counted for this mail is taken back. Answers the function that takes the mail's hits back, for
   * a mail that is then not written. An app admin's bearer is not capped (the request limit still applies).
   */
  async countCapped(ctx: RequestContext, mail: PendingMail): Promise<() => Promise<void>> {
    if (mayDo(ctx.principal, 'mail.send')) return async () => undefined;
    const { anonPerRecipient, anonPerTemplate, anonWindowMs } = this.config.notifications;
    const counted: string[] = [];
    const takeBack = async () => void (await Promise.all(counted.map((key) => this.limits.decrement(key))));
    const hit = async (key: string, limit: number, refused: 'TOO_MANY_TO_RECIPIENT' | 'TOO_MANY_OF_TEMPLATE') => {
      const record = await this.limits.increment(key, anonWindowMs, limit, anonWindowMs, 'notify');
      if (record.isBlocked) {
        await takeBack();
        throw refusedHit(record, (options) => messagingError(refused, options));
      }
      counted.push(key);
    };
    if (anonPerRecipient > 0 && mail.email !== null)
      await hit(`notify:recipient:${ctx.appId}:${mail.email.trim().toLowerCase()}`, anonPerRecipient, 'TOO_MANY_TO_RECIPIENT');
    if (anonPerTemplate > 0) await hit(`notify:template:${ctx.appId}:${mail.notification_id}`, anonPerTemplate, 'TOO_MANY_OF_TEMPLATE');
    return takeBack;
  }

  /** Writes a prepared mail and its link to the record it is about, in the caller's transaction; the log row's id. */
  async record(ctx: RequestContext, mail: PendingMail): Promise<number> {
    // The row and its link commit together: in the transaction the caller's edge opened (this throws outside one).
    this.connection.transactionManager(ctx);
    const id = await this.outbox.write(ctx, mail);
    if (mail.linked_table && mail.master_id) {
      await this.links.insert(ctx, {
        parent_table: mail.linked_table,
        parent_id: mail.master_id,
        name: 'core_notification_log',
        linked: id,
        master_id: mail.master_id,
      });
    }
    return id;
  }

  /**
   * `table` is client text stored in core_notification_log.linked_table and core_related.parent_table, where
   * other code reads it as a table name: it must name one of the service's own tables (a base table of the
   * schema that may be linked), else 400. The record itself is not looked up: master_id of a versioned table
   * is a master id, not a row id.
   */
  private async requireKnownTable(ctx: RequestContext, table: string): Promise<void> {
    const names = await this.catalog.tableNames(ctx);
    if (!names.has(table) || !TablePolicy.isLinkable(table)) throw ApiError.field('table', `Unknown table "${table}"`);
  }

  private async template(ctx: RequestContext, event: string): Promise<NotificationTemplate> {
    const template = await this.templates.enabledFor(ctx, event);
    if (!template) throw ApiError.field('event', 'No enabled notification template for this event');
    return template;
  }

  private async mergeData(
    ctx: RequestContext,
    site: TenantSite,
    given: Record<string, unknown> | undefined,
    sql: string | null,
  ): Promise<MergeData> {
    const data: MergeData = { ...(given ?? {}) };
    if (sql === null) return data;
    if (!site.notification_sql_enabled) {
      throw ApiError.field('SQL', 'The SQL merge source is not enabled for this app');
    }
    const row = await this.sqlSource.firstRow(ctx, sql);
    if (!row) throw ApiError.field('SQL', 'SQL returned no row');
    return { ...data, ...row };
  }

  /** The To address, or null for `NONE` (BCC only). */
  private recipient(request: SendNotificationRequest, data: MergeData): string | null {
    if (request.setEmailField) {
      const value = Object.hasOwn(data, request.setEmailField) ? data[request.setEmailField] : undefined;
      if (!isEmailAddress(value)) throw ApiError.field('setEmailField', `${request.setEmailField} does not hold an email address`);
      return value;
    }
    const email = request.email?.trim();
    if (email === NO_RECIPIENT) return null;
    if (!email) throw ApiError.field('email', 'email is required (an address, NONE, or setEmailField)');
    if (!isEmailAddress(email)) throw ApiError.field('email', 'email must be a valid email address');
    return email;
  }

  /** core_users.user_email of user ids of the app (email_cc / email_bcc), the ones that are addresses. */
  private async userAddresses(ctx: RequestContext, userIds: (number | null)[]): Promise<Map<number, string>> {
    const emails = await this.recipients.userEmails(
      ctx,
      userIds.filter((id): id is number => !!id),
    );
    return new Map([...emails].filter(([, email]) => isEmailAddress(email)));
  }
}

function addressOf(users: Map<number, string>, userId: number | null): string[] {
  const address = userId ? users.get(userId) : undefined;
  return address ? [address] : [];
}

function unique(addresses: string[]): string[] {
  const seen = new Set<string>();
  return addresses.filter((a) => !seen.has(a.toLowerCase()) && seen.add(a.toLowerCase()));
}
