import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Site } from '../../app-context';
import type { TokenExpiryReason, TokenStatus } from '../token-transitions';

/** A token that has not expired is gift_pending exactly when it is an unredeemed gift (a gift with no owner yet). */
const GIFT_CHECK = `status = 'expired' OR (status = 'gift_pending') = (gift AND customer_id IS NULL)`;

/**
 * A row of core_tokens: one digital access token, issued by order completion for
 * one unit (`item_unit`, 1..Qty) of an IsDigital order item. UNIQUE (order_item_id, item_unit) makes a
 * second issuance for the same item impossible. product_id is the product version row current at
 * purchase (it maps to the master id through core_data). There is deliberately no foreign key to
 * core_orders: the tokens module does not depend on the orders module.
 */
@Entity('core_tokens')
@Check('core_tokens_status_check', `status IN ('pending', 'gift_pending', 'active', 'expired')`)
@Check('core_tokens_item_unit_check', 'item_unit >= 1')
@Check('core_tokens_gift_check', GIFT_CHECK)
@Check('core_tokens_expired_reason_check', `expired_reason IN ('expiry', 'admin', 'cancel', 'refund', 'dispute')`)
@Check('core_tokens_status_before_expiry_check', `status_before_expiry IN ('pending', 'gift_pending', 'active')`)
@Unique('core_tokens_token_value_key', ['token_value'])
@Unique('core_tokens_order_item_id_item_unit_key', ['order_item_id', 'item_unit'])
@Index('core_tokens_app_customer_idx', ['app_id', 'customer_id'])
@Index('core_tokens_app_id_idx', { synchronize: false }) // (app_id, id DESC): listTokens' newest-first pages
@Index('core_tokens_app_order_idx', { synchronize: false }) // (app_id, order_id, id DESC): listTokens by order, an order's tokens
@Index('core_tokens_app_product_idx', { synchronize: false }) // (app_id, product_id, id DESC): listTokens by product
export class Token {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_tokens_app_id_fkey' })
  site?: Site;

  /** 64 hex characters: 32 bytes from the operating system's secure random source. */
  @Column({ type: 'varchar', length: 100 })
  token_value: string;

  @Column({ type: 'integer' })
  product_id: number;

  /** The owning customer; null for a gift token until it is redeemed. */
  @Column({ type: 'integer', nullable: true })
  customer_id: number | null;

  @Column({ type: 'integer' })
  order_id: number;

  @Column({ type: 'integer' })
  order_item_id: number;

  /** Which unit of the order item (1..Qty) this token is for. */
  @Column({ type: 'integer' })
  item_unit: number;

  @Column({ type: 'varchar', length: 20, default: 'pending' })
  status: TokenStatus;

  /**
   * Issued as a gift (its order item's RedeemStatus is gift or gift_pending). With customer_id null it is
   * an unredeemed gift: extendToken makes it gift_pending again after it expired, not active.
   */
  @Column({ type: 'boolean', default: false })
  gift: boolean;

  /** Null: never expires. */
  @Column({ type: 'timestamptz', nullable: true })
  expiry_date: Date | null;

  @Column({ type: 'integer', default: 0 })
  activations: number;

  @Column({ type: 'integer', default: 3 })
  maximum_activations: number;

  /**
   * Why the token is expired (null while it is not, and for tokens expired before reasons were recorded):
   * `expiry` its own expiry date, `admin` expireToken, `cancel` cancelOrder, `refund` a refund in full of its
   * order, `dispute` a dispute of its order's payment lost. Only `refund` is ever undone (the refund failed).
   */
  @Column({ type: 'varchar', length: 20, nullable: true })
  expired_reason: TokenExpiryReason | null;

  /** When it expired (the database's clock); null while it is not expired. */
  @Column({ type: 'timestamptz', nullable: true })
  expired_at: Date | null;

  /** The status it had when it expired: what a failed refund gives back. */
  @Column({ type: 'varchar', length: 20, nullable: true })
  status_before_expiry: TokenStatus | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_date: Date;

  @Column({ type: 'timestamptz', nullable: true })
  last_activated: Date | null;
}
