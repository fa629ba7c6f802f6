import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Site } from '../../app-context';

export type OrderStatus = 'New' | 'Paid' | 'Ordered';
/**
 * `Disputed`: the card holder disputed the payment (a chargeback) and the provider reported it: refunds are
 * refused; a dispute won gives back the status the refunds left, one lost keeps `Disputed` (dispute_status says lost).
 */
export type PaymentStatus = 'Success' | 'Failed' | 'Partially Refunded' | 'Refunded' | 'Disputed';

/** A postal address as createOrder takes it. */
export interface PostalAddress {
  street?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
}

/**
 * A row of core_orders (README "Orders and cart"). Money is integer cents; `total` is kept equal to the sum
 * of the order's items that are not Cancelled. Column names are part of the API (clients name them), case included.
 */
@Entity('core_orders')
@Check('core_orders_orderstatus_check', `orderstatus IN ('New', 'Paid', 'Ordered')`)
@Check('core_orders_payment_status_check', `payment_status IN ('Success', 'Failed', 'Partially Refunded', 'Refunded', 'Disputed')`)
@Check('core_orders_refunded_total_check', 'refunded_total >= 0')
@Check('core_orders_total_check', 'total >= 0')
@Index('core_orders_app_customer_idx', ['app_id', 'customer_id'])
@Index('core_orders_app_created_idx', { synchronize: false }) // (app_id, created DESC, id DESC): listOrders' newest-first pages
@Index('core_orders_app_email_idx', { synchronize: false }) // (app_id, "BillingEmail", created DESC, id DESC): listOrders by email
@Index('core_orders_app_status_idx', { synchronize: false }) // (app_id, orderstatus, created DESC, id DESC): listOrders by status
@Index('core_orders_app_payment_status_idx', { synchronize: false }) // (app_id, payment_status, created DESC, id DESC): by payment status
@Index('core_orders_app_email_search_idx', { synchronize: false }) // (app_id, lower("BillingEmail") text_pattern_ops): listOrders' search
@Index('core_orders_app_last_name_search_idx', { synchronize: false }) // (app_id, lower("BillingLastName") text_pattern_ops): listOrders' search
@Index('core_orders_app_name_search_idx', { synchronize: false }) // (app_id, lower(first || ' ' || last) text_pattern_ops): listOrders' search
@Index('core_orders_AuthCode_idx', ['AuthCode'])
export class Order {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_orders_app_id_fkey' })
  site?: Site;

  /** The core_customers row the order belongs to: the authenticated customer, or a placeholder until one authenticates. */
  @Column({ type: 'integer', nullable: true })
  customer_id: number | null;

  /** customer_id is the placeholder created for an anonymous createOrder, reconciled at the first authenticated call. */
  @Column({ type: 'boolean', default: false })
  customer_is_placeholder: boolean;

  @Column({ type: 'varchar', length: 20, default: 'New' })
  orderstatus: OrderStatus;

  @Column({ type: 'varchar', length: 50, default: 'New' })
  orderstatuslabel: string;

  @Column({ type: 'varchar', length: 20, nullable: true })
  payment_status: PaymentStatus | null;

  /** `Card` (checkout), `Order Only` (submitOrder), `REDO` (completion without emails). */
  @Column({ type: 'varchar', length: 30, nullable: true })
  paymentMethodRef: string | null;

  /** The payment intent id, set by order completion. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  AuthCode: string | null;

  /** The payment intent id, kept for refunds. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  TrxnReference: string | null;

  /** The payment intent created by the last checkout (createPaymentIntent), before any payment is confirmed. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  payment_intent_id: string | null;

  /** Server time of the confirmed payment (or of submitOrder). */
  @Column({ type: 'timestamptz', nullable: true })
  order_date: Date | null;

  @Column({ type: 'varchar', length: 3, default: 'aud' })
  currency: string;

  /** Cents: the sum of quantity × (price + bond) over the items that are not Cancelled (prices include GST). */
  @Column({ type: 'integer', default: 0 })
  total: number;

  /**
   * Raised by every change of the cart. Checkout writes it into the payment intent's metadata, and a card
   * completion fulfils the order only while it is unchanged: what is fulfilled is what was priced and paid.
   */
  @Column({ type: 'integer', default: 0 })
  cart_version: number;

  /** Cents refunded so far (refunds that succeeded at the provider); payment_status says Partially Refunded or Refunded. */
  @Column({ type: 'integer', default: 0 })
  refunded_total: number;

  /** Why the last payment attempt failed (the provider's decline message, or the cancellation reason). */
  @Column({ type: 'varchar', length: 500, nullable: true })
  payment_error: string | null;

  /** The mode of the intent that paid the order (live or test): its refunds use that mode's key. */
  @Column({ type: 'boolean', nullable: true })
  payment_livemode: boolean | null;

  /** The provider's dispute (chargeback) of the payment (`dp_…`), once one was reported. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  dispute_id: string | null;

  /** That dispute's last status the provider reported (`needs_response`, `under_review`, `won`, `lost`, …). */
  @Column({ type: 'varchar', length: 30, nullable: true })
  dispute_status: string | null;

  @Column({ type: 'varchar', length: 320, nullable: true })
  BillingEmail: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  BillingFirstName: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  BillingLastName: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  BillingAddress: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  BillingSuburb: string | null;

  @Column({ type: 'varchar', length: 20, nullable: true })
  BillingPostCode: string | null;

  @Column({ type: 'jsonb', nullable: true })
  shipping_address: PostalAddress | null;

  @Column({ type: 'jsonb', nullable: true })
  billing_address: PostalAddress | null;

  @Column({ type: 'text', nullable: true })
  notes: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated: Date;
}
