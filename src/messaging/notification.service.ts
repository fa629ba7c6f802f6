import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Site } from '../app-context/entities/site.entity';
import { isAppAdmin } from '../auth/auth.guards';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { inTransaction } from '../database/transaction';
import { SendNotificationRequest } from './notification.dto';
import { addressList, isEmailAddress, MergeData, mergeHtml, mergeSubject } from './placeholders';
import { SqlMergeSource } from './sql-merge-source';

/** `email` value that sends only to the BCC addresses. */
export const NO_RECIPIENT = 'NONE';

interface Template {
  id: number;
  subject: string;
  content: string;
  from: string | null;
  bcc: string | null;
}

const TABLES_CACHE_MS = 60_000;
const NOT_LINKABLE = new Set(['migrations', 'typeorm_migrations']);

export type AcceptResult = { accepted: true; logId: number } | { accepted: false };

/**
 * Accepts a notification request: template + merge data → one `Pending` core_notification_log row (the
 * outbox the sender works from) and its core_related link, in one transaction. Nothing is sent here.
 */
@Injectable()
export class NotificationService {
  private tables: { at: number; names: Set<string> } | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sqlSource: SqlMergeSource,
  ) {}

  async accept(ctx: RequestContext, request: SendNotificationRequest): Promise<AcceptResult> {
    const site = ctx.app;
    if (site.disable_email) return { accepted: false };

    const sql = request.SQL?.trim() ? request.SQL : null;
    if (sql !== null) this.requireAdmin(ctx);
    if (request.table !== undefined) await this.requireKnownTable(request.table);
    const template = await this.template(site.id, request.event);
    const data = await this.mergeData(site, request.data, sql);
    const to = this.recipient(request, data);
    // NONE sends to the BCC addresses only: the app's CC user is left out too (SPEC "POST /message/notification").
    const cc = to === null ? [] : await this.userAddress(site.id, site.email_cc);
    const bcc = unique([...(await this.userAddress(site.id, site.email_bcc)), ...addressList(template.bcc)]);
    if (to === null && bcc.length === 0) {
      throw ApiError.field('email', 'email is NONE but the app and the template have no BCC address');
    }

    const row = {
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
    const logId = await inTransaction(this.dataSource, async (em) => {
      const id = await insertLogRow(em, row);
      if (request.table && request.master_id) {
        await em.query(
          `INSERT INTO core_related (app_id, parent_table, parent_id, name, linked, master_id) VALUES ($1, $2, $3, 'core_notification_log', $4, $3)`,
          [site.id, request.table, request.master_id, id],
        );
      }
      return id;
    });
    return { accepted: true, logId };
  }

  /**
   * `table` is client text stored in core_notification_log.linked_table and core_related.parent_table, where
   * other code reads it as a table name: it must name one of the service's own tables (a base table of the
   * public schema, the migrations bookkeeping excluded), else 400. The record itself is not looked up:
   * master_id of a versioned table is a master id, not a row id.
   */
  private async requireKnownTable(table: string): Promise<void> {
    if (!this.tables || Date.now() - this.tables.at > TABLES_CACHE_MS) {
      const rows: { table_name: string }[] = await this.dataSource.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      );
      this.tables = { at: Date.now(), names: new Set(rows.map((r) => r.table_name).filter((n) => !NOT_LINKABLE.has(n))) };
    }
    if (!this.tables.names.has(table)) throw ApiError.field('table', `Unknown table "${table}"`);
  }

  private async template(appId: number, event: string): Promise<Template> {
    const rows: Template[] = await this.dataSource.query(
      `SELECT id, subject, content, "from", bcc FROM core_notifications WHERE app_id = $1 AND event = $2 AND enabled`,
      [appId, event],
    );
    if (!rows[0]) throw ApiError.field('event', 'No enabled notification template for this event');
    return rows[0];
  }

  /**
   * The SQL merge reads the app's users and customers, so it takes more than the public site-id: the bearer
   * (OptionalBearerGuard) of a core_users account that is an admin of this app now (401 without one, 403
   * for anyone else; the guard reads the account's role at this request).
   */
  private requireAdmin(ctx: RequestContext): void {
    if (!ctx.principal) throw new ApiError(401, 'Unauthorized', undefined, {}, 'Error');
    if (!isAppAdmin(ctx.principal)) throw ApiError.forbidden();
  }

  private async mergeData(site: Site, given: Record<string, unknown> | undefined, sql: string | null): Promise<MergeData> {
    const data: MergeData = { ...(given ?? {}) };
    if (sql === null) return data;
    if (!site.notification_sql_enabled) {
      throw ApiError.field('SQL', 'The SQL merge source is not enabled for this app');
    }
    const row = await this.sqlSource.firstRow(site.id, sql);
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

  /** core_users.user_email of a user id of the same app (email_cc / email_bcc). */
  private async userAddress(appId: number, userId: number | null): Promise<string[]> {
    if (!userId) return [];
    const rows: { user_email: string }[] = await this.dataSource.query('SELECT user_email FROM core_users WHERE id = $1 AND app_id = $2', [userId, appId]);
    return rows.filter((r) => isEmailAddress(r.user_email)).map((r) => r.user_email);
  }
}

async function insertLogRow(em: EntityManager, row: Record<string, unknown>): Promise<number> {
  const names = Object.keys(row);
  const [{ id }] = await em.query(
    `INSERT INTO core_notification_log (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
    names.map((n) => row[n]),
  );
  return id;
}

function unique(addresses: string[]): string[] {
  const seen = new Set<string>();
  return addresses.filter((a) => !seen.has(a.toLowerCase()) && seen.add(a.toLowerCase()));
}
