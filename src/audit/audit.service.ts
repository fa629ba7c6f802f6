import { Injectable } from '@nestjs/common';
import { RequestContext } from '../common/request-context';
import { diffChanges } from './audit-changes';
import { AuditLog } from './entities/audit-log.entity';
import { AuditLogRepository } from './repositories/audit-log.repository';

/** One audited change, as its caller describes it. */
export interface AuditEntry {
  /** `order.refund`, `order.cancel`, `content.publish`, `content.rollback`, `staff.invite`, `settings.update`… */
  action: string;
  table: string;
  recordId: string | number | null;
  /** The record's fields before the change (only those it may change are needed); null or absent for a creation. */
  before?: Record<string, unknown> | null;
  /** The same fields after it; null or absent for a deletion. */
  after?: Record<string, unknown> | null;
}

export interface AuditListFilters {
  actor?: number;
  action?: string;
  table?: string;
  recordId?: string;
  from?: string;
  to?: string;
  page?: number;
  perPage?: number;
}

export interface AuditItem {
  id: string;
  actor: { id: number; table: string } | null;
  action: string;
  table: string;
  recordId: string | null;
  ip: string | null;
  created: Date;
  changes: AuditLog['changes'];
}

export const AUDIT_DEFAULT_PER_PAGE = 20;

/**
 * The audit log (README "Audit log"): who changed what, when, from where, with the before and after of the
 * fields changed (secrets masked). `record` writes in the caller's transaction and throws outside one, so an
 * audit row is only ever written with its change.
 */
@Injectable()
export class AuditService {
  constructor(private readonly rows: AuditLogRepository) {}

  async record(ctx: RequestContext, entry: AuditEntry): Promise<void> {
    const actor = ctx.principal;
    await this.rows.insert(ctx, {
      actor_id: actor ? actor.userId : null,
      actor_table: actor ? actor.authTable : null,
      action: entry.action,
      table_name: entry.table,
      record_id: entry.recordId === null ? null : String(entry.recordId),
      ip: ctx.principal || ctx.response ? ctx.ip : null,
      changes: diffChanges(entry.table, entry.before, entry.after),
    });
  }

  async list(
    ctx: RequestContext,
    filters: AuditListFilters,
  ): Promise<{ data: AuditItem[]; paging: { page: number; perPage: number; hasMore: boolean } }> {
    const page = filters.page ?? 1;
    const perPage = filters.perPage ?? AUDIT_DEFAULT_PER_PAGE;
    const { actor, action, table, recordId, from, to } = filters;
    const rows = await this.rows.list(ctx, { actor, action, table, recordId, from, to, offset: (page - 1) * perPage, limit: perPage + 1 });
    return { data: rows.slice(0, perPage).map(toItem), paging: { page, perPage, hasMore: rows.length > perPage } };
  }

  /** Every audit row of one record, oldest first. */
  async ofRecord(ctx: RequestContext, table: string, recordId: string | number): Promise<AuditItem[]> {
    return (await this.rows.ofRecord(ctx, table, String(recordId))).map(toItem);
  }
}

function toItem(row: AuditLog): AuditItem {
  return {
    id: String(row.id),
    actor: row.actor_id === null ? null : { id: row.actor_id, table: row.actor_table ?? '' },
    action: row.action,
    table: row.table_name,
    recordId: row.record_id,
    ip: row.ip,
    created: row.created,
    changes: row.changes,
  };
}
