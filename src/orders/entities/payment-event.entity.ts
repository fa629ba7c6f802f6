import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Site } from '../../app-context';

/**
 * `pending`: recorded, not applied yet (the inbox worker tries it when next_attempt_at is due); `processed`:
 * applied once, its outcome written in the same transaction as its effects; `failed`: PAYMENT_EVENTS_MAX_ATTEMPTS
 * tries failed, left for an operator (`events:failed`, `events:retry`).
 */
export type PaymentEventStatus = 'pending' | 'processed' | 'failed';

/**
 * A row of core_payment_events, the inbox of the payment provider's events (README "Payment events"): a
 * verified event is recorded here, in one short INSERT, before the provider is told it arrived; it is then
 * applied exactly once. The key is the app and the provider's event id: a redelivered (or concurrently
 * delivered) event finds its row and is not recorded twice, and one app's events never collide with another's.
 */
@Entity('core_payment_events')
@Check('core_payment_events_status_check', `status IN ('pending', 'processed', 'failed')`)
@Index('core_payment_events_order_idx', ['order_id']) // an order's timeline
@Index('core_payment_events_open_idx', ['status', 'next_attempt_at'], { where: `status <> 'processed'` })
export class PaymentEvent {
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'core_payment_events_pkey' })
  app_id: number;

  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'core_payment_events_pkey' })
  event_id: string;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_payment_events_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 100 })
  type: string;

  /** The verified event as the provider sent it (null for events applied before the inbox existed). */
  @Column({ type: 'jsonb', nullable: true })
  payload: object | null;

  @Column({ type: 'varchar', length: 20, default: 'pending' })
  status: PaymentEventStatus;

  /** Tries that failed so far. */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** When the inbox worker may try a pending event (again). */
  @Column({ type: 'timestamptz', nullable: true })
  next_attempt_at: Date | null;

  /** Why the last try failed. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  last_error: string | null;

  @Column({ type: 'integer', nullable: true })
  order_id: number | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  payment_intent_id: string | null;

  /** What applying it did (`completed`, `already_complete`, `order_not_found`, `refunded`, …); null until processed. */
  @Column({ type: 'varchar', length: 30, nullable: true })
  outcome: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  received: Date;

  @Column({ type: 'timestamptz', nullable: true })
  processed_at: Date | null;
}
