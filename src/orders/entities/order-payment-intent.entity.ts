import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { Site } from '../../app-context';
import { Order } from './order.entity';

/**
 * `open`: the customer can still pay it; `succeeded`: the provider took the money (the order completed with
 * it, or the money went back automatically when the order could not take it); `canceled`: cancelled at the
 * provider, nothing can be paid with it any more.
 */
export type IntentStatus = 'open' | 'succeeded' | 'canceled';

/**
 * A row of core_payment_intents: every payment intent a checkout made for an order (README "Payment
 * events"). An order may have several (its cart changed between checkouts); only the last one is meant to be
 * paid: checkout cancels the others at the provider, cancelOrder cancels them all, and the reconciliation job
 * asks the provider about those still open some minutes after their checkout.
 */
@Entity('core_payment_intents')
@Check('core_payment_intents_status_check', `status IN ('open', 'succeeded', 'canceled')`)
@Index('core_payment_intents_order_idx', ['order_id'])
@Index('core_payment_intents_reconcile_idx', ['reconcile_at'], { where: `status = 'open'` })
export class OrderPaymentIntent {
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'core_payment_intents_pkey' })
  app_id: number;

  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'core_payment_intents_pkey' })
  intent_id: string;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_payment_intents_app_id_fkey' })
  site?: Site;

  @Column({ type: 'integer' })
  order_id: number;

  @ManyToOne(() => Order, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'core_payment_intents_order_id_fkey' })
  order?: Order;

  /** Cents, as the intent asks them. */
  @Column({ type: 'integer' })
  amount: number;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  /** Made with the live key (true) or the test key: the key that cancels or refunds it. */
  @Column({ type: 'boolean' })
  livemode: boolean;

  @Column({ type: 'varchar', length: 20, default: 'open' })
  status: IntentStatus;

  /** Set when the intent must be cancelled (superseded by a later checkout): the reconciliation retries a cancel that failed. */
  @Column({ type: 'timestamptz', nullable: true })
  cancel_requested: Date | null;

  /** When the reconciliation job asks the provider about this open intent next. */
  @Column({ type: 'timestamptz', nullable: true })
  reconcile_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated: Date;
}
