import { Injectable } from '@nestjs/common';
import { Site } from '../app-context';
import { AccountsService, isAppAdmin } from '../auth';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { RelatedLinks } from '../related';
import { SchemaCatalog } from '../database/schema-catalog.service';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { NotificationLog } from './entities/notification-log.entity';
import { Notification } from './entities/notification.entity';
import { messagingError } from './messaging.errors';
import { MailOutbox } from './mail-outbox.service';
import { SendNotificationRequest } from './notification.dto';
import { addressList, isEmailAddress, MergeData, mergeHtml, mergeSubject } from './placeholders';
import { SqlMergeSource } from './sql-merge-source';

/** `email` value that sends only to the BCC addresses. */
export const NO_RECIPIENT = 'NONE';

type Template = Pick<Notification, 'id' | 'subject' | 'content' | 'from' | 'bcc'>;

const NOT_LINKABLE = new Set(['migrations', 'typeorm_migrations']);

export type AcceptResult = { accepted: true; logId: number } | { accepted: false };

/**
 * Accepts a notification request: template + merge data → one `Pending` core_notification_log row (the
 * outbox the sender works from) and its core_related link, in one transaction. Nothing is sent here; the
 * sender is woken once that transaction committed.
 */
@Injectable()
export class NotificationService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly catalog: SchemaCatalog,
    private readonly links: RelatedLinks,
    private readonly sqlSource: SqlMergeSource,
    private readonly outbox: MailOutbox,
    private readonly accounts: AccountsService,
  ) {}

  async accept(ctx: RequestContext, request: SendNotificationRequest): Promise<AcceptResult> {
    const site = ctx.app;
    if (site.disable_email) return { accepted: false };

    const sql = request.SQL?.trim() ? request.SQL : null;
    if (sql !== null) this.requireAdmin(ctx);
    if (request.table !== undefined) await this.requireKnownTable(ctx, request.table);
    const template = await this.template(ctx, site.id, request.event);
    const data = await this.mergeData(ctx, site, request.data, sql);
    const to = this.recipient(request, data);
    // NONE sends to the BCC addresses only: the app's CC user is left out too (SPEC "POST /message/notification").
    const ccUser = to === null ? null : site.email_cc;
    const users = await this.userAddresses(ctx, site.id, [ccUser, site.email_bcc]);
    const cc = addressOf(users, ccUser);
    const bcc = unique([...addressOf(users, site.email_bcc), ...addressList(template.bcc)]);
    if (to === null && bcc.length === 0) {
      throw ApiError.field('email', 'email is NONE but the app and the template have no BCC address');
    }

    const row: Partial<NotificationLog> = {
      app_id: site.id,
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
    };
    // A short transaction around the writes only: the SQL merge above may take seconds and, on the embedded
    // database, needs the one connection itself.
    const logId = await this.connection.inTransaction(ctx, async () => {
      const id = await this.outbox.write(ctx, row);
      if (request.table && request.master_id) {
        await this.links.insert(ctx, {
          app_id: site.id,
          parent_table: request.table,
          parent_id: request.master_id,
          name: 'core_notification_log',
          linked: id,
          master_id: request.master_id,
        });
      }
      return id;
    });
    return { accepted: true, logId };
  }

  /**
   * `table` is client text stored in core_notification_log.linked_table and core_related.parent_table, where
   * other code reads it as a table name: it must name one of the service's own tables (a base table of the
   * schema, the migrations bookkeeping excluded), else 400. The record itself is not looked up: master_id
   * of a versioned table is a master id, not a row id.
   */
  private async requireKnownTable(scope: TransactionScope, table: string): Promise<void> {
    const names = await this.catalog.tableNames(scope);
    if (!names.has(table) || NOT_LINKABLE.has(table)) throw ApiError.field('table', `Unknown table "${table}"`);
  }

  private async template(scope: TransactionScope, appId: number, event: string): Promise<Template> {
    // Raw SQL: a measured hot path (/message/notification): building this select with the query builder
    // cost about 12% of the route's throughput in the benchmark. The columns are Notification's.
    const [template]: Template[] = await this.connection
      .manager(scope)
      .query('SELECT id, subject, content, "from", bcc FROM core_notifications WHERE app_id = $1 AND event = $2 AND enabled', [
        appId,
        event,
      ]);
    if (!template) throw ApiError.field('event', 'No enabled notification template for this event');
    return template;
  }

  /**
   * The SQL merge reads the app's users and customers, so it takes more than the public site-id: the bearer
   * (OptionalBearerGuard) of a core_users account that is an admin of this app now (401 without one, 403
   * for anyone else; the guard reads the account's role at this request).
   */
  private requireAdmin(ctx: RequestContext): void {
    if (!ctx.principal) throw messagingError('UNAUTHORIZED');
    if (!isAppAdmin(ctx.principal)) throw ApiError.forbidden();
  }

  private async mergeData(
    scope: TransactionScope,
    site: Site,
    given: Record<string, unknown> | undefined,
    sql: string | null,
  ): Promise<MergeData> {
    const data: MergeData = { ...(given ?? {}) };
    if (sql === null) return data;
    if (!site.notification_sql_enabled) {
      throw ApiError.field('SQL', 'The SQL merge source is not enabled for this app');
    }
    const row = await this.sqlSource.firstRow(scope, site.id, sql);
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

  /** core_users.user_email of user ids of the same app (email_cc / email_bcc), the ones that are addresses. */
  private async userAddresses(scope: TransactionScope, appId: number, userIds: (number | null)[]): Promise<Map<number, string>> {
    const emails = await this.accounts.userEmails(
      scope,
      appId,
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
