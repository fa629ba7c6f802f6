import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Site } from '../../app-context';

export const VERSION_ACTIONS = ['create', 'update', 'delete', 'restore'] as const;
export type VersionAction = (typeof VERSION_ACTIONS)[number];

/**
 * A row of core_notification_versions: an app's template for one event as a change left it (a delete: as it
 * was before), numbered per app and event from 1 (docs/messaging.md "Templates per tenant").
 */
@Entity('core_notification_versions')
@Check('core_notification_versions_action_check', `action IN ('create', 'update', 'delete', 'restore')`)
@Index('core_notification_versions_uq', ['app_id', 'event', 'version'], { unique: true })
export class NotificationVersion {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_notification_versions_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 100 })
  event: string;

  @Column({ type: 'integer' })
  version: number;

  @Column({ type: 'varchar', length: 10 })
  action: VersionAction;

  /** The core_notifications row the change was made to (it may be gone since). */
  @Column({ type: 'integer', nullable: true })
  notification_id: number | null;

  @Column({ type: 'boolean' })
  enabled: boolean;

  @Column({ type: 'varchar', length: 500 })
  subject: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'varchar', length: 320, nullable: true })
  from: string | null;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  bcc: string | null;

  /** The core_users account that made the change. */
  @Column({ type: 'integer', nullable: true })
  user_id: number | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;
}
