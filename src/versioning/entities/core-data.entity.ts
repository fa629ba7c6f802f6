import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Site } from '../../app-context';
import { LIFECYCLE_STATUSES, LifecycleStatus } from '../lifecycle';

/**
 * A row of core_data: the metadata of one version of a versioned record (docs/content.md). Column names
 * are part of the API (clients name them), case included; `Current_ID` is the content row of this version, `Master_ID` the record.
 */
@Entity('core_data')
@Check('core_data_IsCurrent_check', '"IsCurrent" IN (0, 1)')
@Check('core_data_Status_check', `"Status" IN (${LIFECYCLE_STATUSES.map((s) => `'${s}'`).join(', ')})`)
@Check('core_data_Published_check', '"Published" IN (0, 1)')
@Check('core_data_Staged_check', '"Staged" IN (0, 1)')
@Check('core_data_IsExpired_check', '"IsExpired" IN (0, 1)')
@Check('core_data_Lock_check', '"Lock" IN (0, 1)')
@Index('core_data_version_uq', ['Source_Table', 'Current_ID'], { unique: true })
@Index('core_data_master_idx', ['Shop_ID', 'Source_Table', 'Master_ID'])
// At most one current version per record: concurrent saves of one record cannot both win.
@Index('core_data_one_current_uq', ['Source_Table', 'Master_ID'], { unique: true, where: '"IsCurrent" = 1' })
@Index('core_data_expiry_idx', ['Publish_Expire_Date'], { where: '"Published" = 1' })
@Index('core_data_published_idx', ['Shop_ID', 'Source_Table', 'Master_ID'], { where: '"Published" = 1' })
export class CoreData {
  @PrimaryGeneratedColumn()
  ID: number;

  @Column({ type: 'integer' })
  Shop_ID: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'Shop_ID', foreignKeyConstraintName: 'core_data_Shop_ID_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 100 })
  Source_Table: string;

  @Column({ type: 'integer' })
  Current_ID: number;

  @Column({ type: 'integer' })
  Master_ID: number;

  @Column({ type: 'smallint', default: 1 })
  IsCurrent: 0 | 1;

  @Column({ type: 'varchar', length: 20, default: 'New' })
  Status: LifecycleStatus;

  @Column({ type: 'smallint', default: 0 })
  Published: 0 | 1;

  @Column({ type: 'smallint', default: 0 })
  Staged: 0 | 1;

  @Column({ type: 'smallint', default: 0 })
  IsExpired: 0 | 1;

  @Column({ type: 'varchar', length: 500, nullable: true })
  Title: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  Created: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  Updated: Date;

  @Column({ type: 'integer', nullable: true })
  Created_By: number | null;

  @Column({ type: 'integer', nullable: true })
  Updated_By: number | null;

  @Column({ type: 'integer', nullable: true })
  Publish_By: number | null;

  @Column({ type: 'timestamptz', nullable: true })
  Publish_Set_Date: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  Publish_Expire_Date: Date | null;

  /** The previous version of the record (version rule 3). */
  @Column({ type: 'integer', nullable: true })
  Last_ID: number | null;

  @ManyToOne(() => CoreData)
  @JoinColumn({ name: 'Last_ID', foreignKeyConstraintName: 'core_data_Last_ID_fkey' })
  lastVersion?: CoreData;

  /** The next version of the record, once there is one. */
  @Column({ type: 'integer', nullable: true })
  Next_ID: number | null;

  @ManyToOne(() => CoreData)
  @JoinColumn({ name: 'Next_ID', foreignKeyConstraintName: 'core_data_Next_ID_fkey' })
  nextVersion?: CoreData;

  @Column({ type: 'smallint', default: 0 })
  Lock: 0 | 1;
}
