import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Site } from '../../app-context';
import { Order } from './order.entity';

/**
 * `reserved`: being asked of the provider, its amount held against the order's remainder; `unknown`: asked,
 * but no answer came (it may have been made): still held. A request for the amount of either resumes it;
 * `succeeded`: the provider refunded it (counted in core_orders.refunded_total); `failed`: the provider
 * failed or cancelled it (nothing counted).
 */
export type RefundStatus = 'reserved' | 'unknown' | 'succeeded' | 'failed';

/** The statuses whose amount is held against the order's remainder. */
export const HELD_REFUND_STATUSES: readonly RefundStatus[] = ['reserved', 'unknown'];

/**
 * `api`: made by refundOrder or cancelOrder; `provider`: learnt from the provider's events (a refund made in
 * its dashboard); `auto`: money the service gave back by itself, paid with an intent the order could not take
 * (a cancelled order, a superseded checkout, another amount): never counted in the order's refunded_total.
 */
export type RefundSource = 'api' | 'provider' | 'auto';

/**
 * A row of core_refunds: one refund of an order's payment. A refund made here is reserved before the
 * provider is asked, under the order's lock, so concurrent refunds never exceed what was paid; the row id
 * is the provider request's idempotency key, so a retried request makes one refund. The provider's answer
 * and its webhook settle the row, whichever comes first, once (refund_id is unique per app).
 */
@Entity('core_refunds')
@Check('core_refunds_amount_check', 'amount > 0')
@Check('core_refunds_status_check', `status IN ('reserved', 'unknown', 'succeeded', 'failed')`)
@Check('core_refunds_source_check', `source IN ('api', 'provider', 'auto')`)
@Index('core_refunds_refund_id_uq', ['app_id', 'refund_id'], { unique: true })
@Index('core_refunds_order_idx', ['order_id'])
@Index('core_refunds_request_key_uq', ['app_id', 'order_id', 'request_key'], { unique: true })
export class Refund {
  @PrimaryGeneratedColumn({ primaryKeyConstraintName: 'core_refunds_pkey' })
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_refunds_app_id_fkey' })
  site?: Site;

  @Column({ type: 'integer' })
  order_id: number;

  @ManyToOne(() => Order, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'core_refunds_order_id_fkey' })
  order?: Order;

  /** The provider's refund id (`re_…`), once it answered. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  refund_id: string | null;

  @Column({ type: 'varchar', length: 255 })
  payment_intent_id: string;

  /** Cents. */
  @Column({ type: 'integer' })
  amount: number;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ type: 'varchar', length: 20 })
  status: RefundStatus;

  @Column({ type: 'varchar', length: 20 })
  source: RefundSource;

  @Column({ type: 'varchar', length: 500, nullable: true })
  reason: string | null;

  /** The Idempotency-Key header of the refundOrder request that made it: the same key resumes this refund. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  request_key: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated: Date;
}
