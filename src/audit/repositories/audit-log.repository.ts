import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { AuditChanges, AuditLog } from '../entities/audit-log.entity';

export interface NewAuditRow {
  actor_id: number | null;
  actor_table: string | null;
  action: string;
  table_name: string;
  record_id: string | null;
  ip: string | null;
  changes: AuditChanges;
}

/** The list's filters and page. */
export interface AuditListQuery {
  actor?: number;
  action?: string;
  table?: string;
  recordId?: string;
  from?: string;
  to?: string;
  offset: number;
  limit: number;
}

/** core_audit_log: every statement names the context's app. */
@Injectable()
export class AuditLogRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** Inserts in the caller's transaction only (transactionManager throws outside one): the row commits with its change or not at all. */
  async insert(ctx: RequestContext, row: NewAuditRow): Promise<void> {
    const repository = this.connection.transactionManager(ctx).getRepository(AuditLog);
    await repository.save(repository.create({ ...row, app_id: ctx.appId }), { reload: false });
  }

  /**
   * One page, newest first. Each filter is a column of an index that starts with app_id and ends with
   * (created DESC, id DESC) (migrations/1764001900000-audit-log.ts), so a page reads about `limit` index
   * entries whatever the number of rows (test/audit/audit.e2e.ts checks the plan).
   */
  list(ctx: RequestContext, query: AuditListQuery): Promise<AuditLog[]> {
    const qb = this.connection
      .repository(ctx, AuditLog)
      .createQueryBuilder('a')
      .where('a.app_id = :appId', { appId: ctx.appId })
      .orderBy('a.created', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .offset(query.offset)
      .limit(query.limit);
    if (query.actor !== undefined) qb.andWhere('a.actor_id = :actor', { actor: query.actor });
    if (query.action) qb.andWhere('a.action = :action', { action: query.action });
    if (query.table) qb.andWhere('a.table_name = :table', { table: query.table });
    if (query.recordId !== undefined) qb.andWhere('a.record_id = :recordId', { recordId: query.recordId });
    if (query.from) qb.andWhere('a.created >= :from', { from: query.from });
    if (query.to) qb.andWhere('a.created < :to', { to: query.to });
    return qb.getMany();
  }

  /** Every row of one record, oldest first (the order timeline's cancellation and notes). */
  ofRecord(ctx: RequestContext, table: string, recordId: string): Promise<AuditLog[]> {
    return this.connection.repository(ctx, AuditLog).find({
      where: { app_id: ctx.appId, table_name: table, record_id: recordId },
      order: { created: 'ASC', id: 'ASC' },
    });
  }
}
