import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Site } from '../../app-context';
import { Order } from './order.entity';

/** The longest staff note (characters). */
export const MAX_NOTE_LENGTH = 2000;

/** A row of core_order_notes: a staff member's note on an order (POST /ecommerce/addOrderNote), shown in its timeline. */
@Entity('core_order_notes')
@Index('core_order_notes_order_idx', ['order_id', 'created'])
export class OrderNote {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'core_order_notes_pkey' })
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_order_notes_app_id_fkey' })
  site?: Site;

  @Column({ type: 'integer' })
  order_id: number;

  @ManyToOne(() => Order, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'core_order_notes_order_id_fkey' })
  order?: Order;

  /** The staff member who wrote it (core_users id). */
  @Column({ type: 'integer' })
  author: number;

  @Column({ type: 'varchar', length: MAX_NOTE_LENGTH })
  text: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;
}
