import { Column, CreateDateColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Site } from '../../app-context';

/**
 * The column set core_customers and core_app_users share (one migration loop creates both). Each table's
 * entity adds its own app_id foreign key (the constraint name carries the table name) and unique index.
 */
export abstract class ProfileAccount {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  site?: Site;

  @Column({ type: 'varchar', length: 320, nullable: true })
  email: string | null;

  /** The password hash (bcrypt or a legacy format until the next login upgrades it). */
  @Column({ type: 'varchar', length: 255, nullable: true, select: false })
  password: string | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  firstname: string | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  lastname: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  displayname: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  photourl: string | null;

  @Column({ type: 'boolean', default: false })
  emailverified: boolean;

  @Column({ type: 'varchar', length: 30, nullable: true })
  mobile: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  password_changed: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated: Date;
}
