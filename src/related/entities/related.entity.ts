import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Site } from '../../app-context';

/**
 * A row of core_related: a named link from a parent record (`parent_table`, `parent_id`) to `linked`
 * (folder access, token templates, token ownership, notification records). `master_id` is the parent's
 * master id for versioned tables, the stable id relationships use.
 */
@Entity('core_related')
@Index('core_related_parent_idx', ['app_id', 'parent_table', 'parent_id', 'name'])
@Index('core_related_master_idx', ['app_id', 'master_id'])
export class Related {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_related_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 100 })
  parent_table: string;

  @Column({ type: 'integer' })
  parent_id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'integer' })
  linked: number;

  @Column({ type: 'integer', nullable: true })
  master_id: number | null;

  @Column({ type: 'timestamptz', nullable: true })
  expires: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;
}
