import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Site } from '../../app-context';

/** A row of core_sms_codes: the bcrypt hash of a one-time SMS code, its expiry, attempts and use. */
@Entity('core_sms_codes')
@Index('core_sms_codes_user_idx', { synchronize: false }) // (app_id, auth_table, user_id, created DESC): TypeORM cannot declare the DESC
export class SmsCode {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_sms_codes_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 50 })
  auth_table: string;

  @Column({ type: 'integer' })
  user_id: number;

  @Column({ type: 'varchar', length: 100, select: false })
  code_hash: string;

  @Column({ type: 'timestamptz' })
  expires: Date;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ type: 'timestamptz', nullable: true })
  used_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;
}
