import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Site } from '../../app-context';

/** What one audited change did to each field it changed: `{ field: { before, after } }` (secrets masked). */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

/**
 * A row of core_audit_log (README "Audit log"): one staff action that changed something, written in the
 * transaction of the change itself (AuditService.record), so a change never commits without its row and a
 * row never outlives a change that rolled back. Secret columns are never written: their values are masked.
 */
@Entity('core_audit_log')
@Index('core_audit_log_app_created_idx', { synchronize: false }) // (app_id, created DESC, id DESC): the newest-first pages
@Index('core_audit_log_app_actor_idx', { synchronize: false }) // (app_id, actor_id, created DESC, id DESC): by actor
@Index('core_audit_log_app_action_idx', { synchronize: false }) // (app_id, action, created DESC, id DESC): by action
@Index('core_audit_log_app_record_idx', { synchronize: false }) // (app_id, table_name, record_id, created DESC, id DESC): by record
export class AuditLog {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'core_audit_log_pkey' })
  id: string;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_audit_log_app_id_fkey' })
  site?: Site;

  /** The account that acted (its id in actor_table), or null for the system (a job, the CLI, a provider event). */
  @Column({ type: 'integer', nullable: true })
  actor_id: number | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  actor_table: string | null;

  /** What was done: `order.refund`, `order.cancel`, `content.publish`, `settings.update`… */
  @Column({ type: 'varchar', length: 64 })
  action: string;

  /** The table of the record it changed. */
  @Column({ type: 'varchar', length: 64 })
  table_name: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  record_id: string | null;

  /** The address the request came from. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  changes: AuditChanges;
}
