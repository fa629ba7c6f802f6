import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { Site } from '../../app-context';
import { ProfileAccount } from './profile-account.entity';

/** A row of core_customers: a shop or app customer, with its web push subscription (pushsubscription, p256dh, auth). */
@Entity('core_customers')
@Index('core_customers_email_uq', { synchronize: false }) // unique on (app_id, lower(email)) where email is set: an expression index, kept in the migration
@Index('core_customers_app_created_idx', { synchronize: false }) // (app_id, created DESC, id DESC) of the listed (not placeholder) rows: /staff/customers
@Index('core_customers_app_email_search_idx', { synchronize: false }) // (app_id, lower(email) text_pattern_ops): /staff/customers search
@Index('core_customers_app_last_name_search_idx', { synchronize: false }) // (app_id, lower(lastname) text_pattern_ops): /staff/customers search
@Index('core_customers_app_name_search_idx', { synchronize: false }) // (app_id, lower(first || ' ' || last) text_pattern_ops): /staff/customers search
export class Customer extends ProfileAccount {
  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_customers_app_id_fkey' })
  declare site?: Site;

  @Column({ type: 'text', nullable: true, select: false })
  pushsubscription: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true, select: false })
  p256dh: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true, select: false })
  auth: string | null;
}
