import { Injectable } from '@nestjs/common';
import { AuditService } from '../../audit';
import { ApiError } from '../../common/api-error';
import { RequestContext } from '../../common/request-context';
import { DatabaseLock, lockRecord } from '../../database/locks';
import { isUniqueViolation } from '../../database/transaction';
import { TransactionalConnection } from '../../database/transactional-connection';
import { Notification } from '../entities/notification.entity';
import { NotificationVersion, VersionAction } from '../entities/notification-version.entity';
import { MailOutboxService } from '../mail-outbox.service';
import { MergeData, placeholderNames } from '../placeholders';
import { TemplateFields, NotificationTemplateRepository } from '../repositories/notification-template.repository';
import { NotificationVersionRepository } from '../repositories/notification-version.repository';
import { reservedEvent } from './order-mail-events';
import { checkTemplate } from './template-rules';
import { RenderedTemplate, renderTemplate, sampleData } from './template-render';

/** The audit log's `table` of template changes (README "Audit log"). */
const TABLE = 'core_notifications';

export const TEMPLATE_NOT_FOUND = 'Template not found';
export const VERSION_NOT_FOUND = 'Template version not found';

/** A template as the staff API shows it. */
export interface TemplateView {
  event: string;
  enabled: boolean;
  subject: string;
  content: string;
  from: string | null;
  bcc: string | null;
  created: Date;
  updated: Date;
  /** The number of its latest version (0 for a template saved before versions were kept and not changed since). */
  version: number;
  /** Whether the event is one of the service's own mails (order_confirmation, order_admin, order_refund). */
  reserved: boolean;
  /** The merge fields the template may use (a mail of the service), or those it uses (an event of the app's own). */
  mergeFields: string[];
}

export interface VersionView {
  version: number;
  action: VersionAction;
  enabled: boolean;
  subject: string;
  content: string;
  from: string | null;
  bcc: string | null;
  userId: number | null;
  created: Date;
}

/** Changes of a template: absent fields keep their value (`from`/`bcc` null or blank clears them). */
export interface TemplateChange {
  enabled?: boolean;
  subject?: string;
  content?: string;
  from?: string | null;
  bcc?: string | null;
}

/**
 * The staff API of an app's notification templates (docs/messaging.md "Templates per tenant"): list, read,
 * create, update, delete, versions and restore, preview and test send. Each change runs in the transaction of
 * its route, holds the app's lock of the event (DatabaseLock.NotificationTemplate), is checked
 * (template-rules.ts) and writes the next core_notification_versions row, so every earlier state can be
 * listed and restored, and its audit row
 * (template.create, template.update, template.delete, template.restore) in the same transaction.
 */
@Injectable()
export class NotificationTemplatesService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly templates: NotificationTemplateRepository,
    private readonly versions: NotificationVersionRepository,
    private readonly outbox: MailOutboxService,
    private readonly audit: AuditService,
  ) {}

  async list(ctx: RequestContext): Promise<TemplateView[]> {
    const rows = await this.templates.list(ctx);
    const views: TemplateView[] = [];
    for (const row of rows) views.push(await this.view(ctx, row)); // one at a time: never Promise.all in a transaction
    return views;
  }

  async get(ctx: RequestContext, event: string): Promise<TemplateView> {
    return this.view(ctx, await this.found(ctx, event));
  }

  async create(ctx: RequestContext, input: TemplateChange & { event: string }): Promise<TemplateView> {
    const fields: TemplateFields = {
      event: input.event,
      enabled: input.enabled ?? true,
      subject: input.subject ?? '',
      content: input.content ?? '',
      from: blankToNull(input.from),
      bcc: blankToNull(input.bcc),
    };
    checkTemplate(fields);
    await this.lock(ctx, input.event);
    if (await this.templates.one(ctx, input.event)) throw ApiError.conflict('A template for this event exists: update it');
    let row: Notification;
    try {
      row = await this.templates.insert(ctx, fields);
    } catch (error) {
      if (isUniqueViolation(error)) throw ApiError.conflict('A template for this event exists: update it');
      throw error;
    }
    await this.versions.append(ctx, 'create', row.id, fields, this.userId(ctx));
    await this.audit.record(ctx, { action: 'template.create', table: TABLE, recordId: row.id, after: fields });
    return this.view(ctx, row);
  }

  async update(ctx: RequestContext, event: string, change: TemplateChange): Promise<{ before: TemplateFields; after: TemplateView }> {
    await this.lock(ctx, event);
    const row = await this.found(ctx, event, true);
    const before = fieldsOf(row);
    const fields: TemplateFields = {
      event: row.event,
      enabled: change.enabled ?? row.enabled,
      subject: change.subject ?? row.subject,
      content: change.content ?? row.content,
      from: change.from === undefined ? row.from : blankToNull(change.from),
      bcc: change.bcc === undefined ? row.bcc : blankToNull(change.bcc),
    };
    checkTemplate(fields);
    await this.keepUnversioned(ctx, row);
    const saved = await this.templates.update(ctx, row, fields);
    await this.versions.append(ctx, 'update', row.id, fields, this.userId(ctx));
    await this.audit.record(ctx, { action: 'template.update', table: TABLE, recordId: row.id, before, after: fields });
    return { before, after: await this.view(ctx, saved) };
  }

  /** Deletes the template; its last state stays as a version (action `delete`), from which it can be restored. */
  async delete(ctx: RequestContext, event: string): Promise<{ before: TemplateFields; version: number }> {
    await this.lock(ctx, event);
    const row = await this.found(ctx, event, true);
    await this.keepUnversioned(ctx, row);
    const version = await this.versions.append(ctx, 'delete', row.id, fieldsOf(row), this.userId(ctx));
    await this.templates.delete(ctx, row);
    await this.audit.record(ctx, { action: 'template.delete', table: TABLE, recordId: row.id, before: fieldsOf(row) });
    return { before: fieldsOf(row), version: version.version };
  }

  async listVersions(ctx: RequestContext, event: string): Promise<VersionView[]> {
    const rows = await this.versions.list(ctx, event);
    if (rows.length === 0 && !(await this.templates.one(ctx, event))) throw ApiError.notFound(TEMPLATE_NOT_FOUND);
    return rows.map(versionView);
  }

  /**
   * Makes `version` of the event's template current again, as a new version (action `restore`); a deleted
   * template is created again. The restored text is checked like any other save.
   */
  async restore(
    ctx: RequestContext,
    event: string,
    versionNumber: number,
  ): Promise<{ before: TemplateFields | null; after: TemplateView; created: boolean }> {
    await this.lock(ctx, event);
    const row = await this.templates.one(ctx, event, true);
    const version = await this.versions.one(ctx, event, versionNumber);
    if (!version) throw ApiError.notFound(row ? VERSION_NOT_FOUND : TEMPLATE_NOT_FOUND);
    const fields = fieldsOf(version);
    checkTemplate(fields);
    let saved: Notification;
    if (row) {
      await this.keepUnversioned(ctx, row);
      saved = await this.templates.update(ctx, row, fields);
    } else saved = await this.templates.insert(ctx, fields);
    await this.versions.append(ctx, 'restore', saved.id, fields, this.userId(ctx));
    await this.audit.record(ctx, {
      action: 'template.restore',
      table: TABLE,
      recordId: saved.id,
      before: row ? fieldsOf(row) : null,
      after: { ...fields, restoredVersion: versionNumber },
    });
    return { before: row ? fieldsOf(row) : null, after: await this.view(ctx, saved), created: !row };
  }

  /**
   * The event's template (or the `subject`/`content` given, checked as a save would, before saving them)
   * merged with `data`, or with sample data when none is given.
   */
  async preview(
    ctx: RequestContext,
    event: string,
    options: { data?: MergeData; subject?: string; content?: string },
  ): Promise<RenderedTemplate & { sample: boolean }> {
    const template = await this.draft(ctx, event, options);
    const sample = options.data === undefined;
    return { ...renderTemplate(event, template, options.data ?? sampleData(event, template)), sample };
  }

  /**
   * Renders the event's saved template (enabled or not) with `data` (else sample data) and writes it to the
   * outbox for `email` alone (no CC or BCC), subject prefixed `TEST: `; the background sender sends it. The id
   * of its core_notification_log row.
   */
  async testSend(
    ctx: RequestContext,
    event: string,
    email: string,
    data?: MergeData,
  ): Promise<{ logId: number; rendered: RenderedTemplate }> {
    const site = ctx.app;
    if (site.disable_email) throw ApiError.conflict('Notifications are disabled for this app (core_sites.disable_email)');
    const row = await this.found(ctx, event);
    const rendered = renderTemplate(event, row, data ?? sampleData(event, row));
    const logId = await this.outbox.write(ctx, {
      notification_id: row.id,
      event: row.event,
      email,
      linked_table: null,
      master_id: null,
      email_from: row.from?.trim() || site.email_from?.trim() || `no-reply@${site.domain}`,
      email_cc: null,
      email_bcc: null,
      subject: `TEST: ${rendered.subject}`.slice(0, 1000),
      body: rendered.html,
      text_body: rendered.text,
      content_type: 'html',
    });
    return { logId, rendered };
  }

  private async draft(ctx: RequestContext, event: string, options: { subject?: string; content?: string }) {
    if (options.subject !== undefined && options.content !== undefined) {
      const draft = { event, enabled: true, subject: options.subject, content: options.content, from: null, bcc: null };
      checkTemplate(draft);
      return draft;
    }
    const row = await this.found(ctx, event);
    const draft = { ...fieldsOf(row), subject: options.subject ?? row.subject, content: options.content ?? row.content };
    if (options.subject !== undefined || options.content !== undefined) checkTemplate(draft);
    return draft;
  }

  /** A template saved before versions were kept (seeded, or written with SQL) gets its state as version 1 before its first change. */
  private async keepUnversioned(ctx: RequestContext, row: Notification): Promise<void> {
    if ((await this.versions.latest(ctx, row.event)) === 0) await this.versions.append(ctx, 'create', row.id, fieldsOf(row), null);
  }

  /**
   * The app's lock of the event's template until the transaction ends: its changes one at a time, also where no
   * row exists to lock (a create, the restore of a deleted template), so version numbers never collide.
   */
  private lock(ctx: RequestContext, event: string): Promise<void> {
    return lockRecord(this.connection.transactionManager(ctx), DatabaseLock.NotificationTemplate, `${ctx.appId}:${event}`);
  }

  private async found(ctx: RequestContext, event: string, lock = false): Promise<Notification> {
    const row = await this.templates.one(ctx, event, lock);
    if (!row) throw ApiError.notFound(TEMPLATE_NOT_FOUND);
    return row;
  }

  private userId(ctx: RequestContext): number | null {
    return ctx.principal?.userId ?? null;
  }

  private async view(ctx: RequestContext, row: Notification): Promise<TemplateView> {
    const reserved = reservedEvent(row.event);
    return {
      event: row.event,
      enabled: row.enabled,
      subject: row.subject,
      content: row.content,
      from: row.from,
      bcc: row.bcc,
      created: row.created,
      updated: row.updated,
      version: await this.versions.latest(ctx, row.event),
      reserved: Boolean(reserved),
      mergeFields: reserved
        ? Object.keys(reserved.fields)
        : [...new Set([...placeholderNames(row.subject), ...placeholderNames(row.content)])],
    };
  }
}

function blankToNull(value: string | null | undefined): string | null {
  return value?.trim() ? value.trim() : null;
}

export function fieldsOf(row: TemplateFields): TemplateFields {
  return { event: row.event, enabled: row.enabled, subject: row.subject, content: row.content, from: row.from, bcc: row.bcc };
}

function versionView(row: NotificationVersion): VersionView {
  return {
    version: row.version,
    action: row.action,
    enabled: row.enabled,
    subject: row.subject,
    content: row.content,
    from: row.from,
    bcc: row.bcc,
    userId: row.user_id,
    created: row.created,
  };
}
