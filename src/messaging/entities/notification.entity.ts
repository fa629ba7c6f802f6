import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Site } from '../../app-context';

/** A row of core_notifications: an app's mail template for one event name (`[field]` placeholders). */
@Entity('core_notifications')
@Index('core_notifications_event_uq', ['app_id', 'event'], { unique: true })
export class Notification {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_notifications_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 100 })
  event: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'varchar', length: 500, default: '' })
  subject: string;

  @Column({ type: 'text', default: '' })
  content: string;

  @Column({ type: 'varchar', length: 320, nullable: true })
  from: string | null;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  bcc: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated: Date;
}
