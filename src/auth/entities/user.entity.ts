import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Site } from '../../app-context';

/** A row of core_users: an administrative account of one app (docs/auth.md "Accounts"). */
@Entity('core_users')
@Check('core_users_staff_roles_check', `staff_roles <@ ARRAY['owner', 'orders', 'content', 'support', 'viewer']::varchar[]`)
@Index('core_users_email_uq', { synchronize: false }) // unique on (app_id, lower(user_email)): an expression index, kept in the migration
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_users_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 320 })
  user_email: string;

  /** The password hash (bcrypt or a legacy format until the next login upgrades it). */
  @Column({ type: 'varchar', length: 255, nullable: true, select: false })
  password: string | null;

  @Column({ type: 'varchar', length: 50, default: 'user' })
  primary_role: string;

  /** Staff roles assigned (README "Staff roles and permissions"); an `admin` primary role is an owner besides. */
  @Column({ type: 'varchar', length: 20, array: true, default: () => "'{}'" })
  staff_roles: string[];

  @Column({ type: 'varchar', length: 30, nullable: true })
  mobile: string | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  firstname: string | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  lastname: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  password_changed: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated: Date;
}
