import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Site } from '../../app-context';

/**
 * A row of core_payment_events: a payment provider event that was acted on, keyed by the provider's event
 * id. It is written in the same transaction as the order completion the event caused, so a redelivered
 * (or concurrently delivered) event finds its id taken and changes nothing.
 */
@Entity('core_payment_events')
export class PaymentEvent {
  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'core_payment_events_pkey' })
  event_id: string;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_payment_events_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 100 })
  type: string;

  @Column({ type: 'integer', nullable: true })
  order_id: number | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  payment_intent_id: string | null;

  /** What the event did: `completed`, `already_complete`, `order_not_found`, `ignored`. */
  @Column({ type: 'varchar', length: 30 })
  outcome: string;

  @CreateDateColumn({ type: 'timestamptz' })
  received: Date;
}
