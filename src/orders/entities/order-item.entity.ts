import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Site } from '../../app-context';
import { Order } from './order.entity';

export type ItemStatus = 'Pending' | 'Ordered' | 'Cancelled' | 'Gift Voucher';
export type RedeemStatus = 'gift' | 'gift_pending';

/** The RedeemStatus values that mark a gift: its tokens are issued gift_pending, not to the purchaser. */
export const GIFT_REDEEM_STATUSES: readonly RedeemStatus[] = ['gift', 'gift_pending'];

export function isGift(item: Pick<OrderItem, 'RedeemStatus'>): boolean {
  return item.RedeemStatus !== null && GIFT_REDEEM_STATUSES.includes(item.RedeemStatus);
}

/**
 * A row of core_order_items (statuses: order-item-transitions.ts). product_ID is the product version row that was
 * published when the item was added, product_mid its master id; title, tax, bond and IsEvent are a snapshot
 * of that version, so later edits of the product never change an order. Money is integer cents per unit.
 */
@Entity('core_order_items')
@Check('core_order_items_ItemStatus_check', `"ItemStatus" IN ('Pending', 'Ordered', 'Cancelled', 'Gift Voucher')`)
@Check('core_order_items_RedeemStatus_check', `"RedeemStatus" IN ('gift', 'gift_pending')`)
@Check('core_order_items_IsDigital_check', '"IsDigital" IN (0, 1)')
@Check('core_order_items_IsEvent_check', '"IsEvent" IN (0, 1)')
@Check('core_order_items_Qty_check', '"Qty" > 0')
@Check('core_order_items_Price_check', '"Price" >= 0')
@Index('core_order_items_order_idx', ['Order_ID'])
export class OrderItem {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_order_items_app_id_fkey' })
  site?: Site;

  @Column({ type: 'integer' })
  Order_ID: number;

  @ManyToOne(() => Order, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'Order_ID', foreignKeyConstraintName: 'core_order_items_Order_ID_fkey' })
  order?: Order;

  @Column({ type: 'varchar', length: 20, default: 'Pending' })
  ItemStatus: ItemStatus;

  @Column({ type: 'smallint', default: 0 })
  IsDigital: 0 | 1;

  @Column({ type: 'smallint', default: 0 })
  IsEvent: 0 | 1;

  /** `gift` or `gift_pending` marks a gift: its tokens are issued gift_pending, not to the purchaser. */
  @Column({ type: 'varchar', length: 20, nullable: true })
  RedeemStatus: RedeemStatus | null;

  @Column({ type: 'integer' })
  product_ID: number;

  @Column({ type: 'integer' })
  product_mid: number;

  @Column({ type: 'integer' })
  Qty: number;

  /** Unit price in cents (GST included), the product's published price when the item was added. */
  @Column({ type: 'integer' })
  Price: number;

  @Column({ type: 'varchar', length: 500, default: '' })
  title: string;

  /** GST per unit, in cents (part of Price). */
  @Column({ type: 'integer', default: 0 })
  tax: number;

  /** Bond or deposit per unit, in cents (on top of Price). */
  @Column({ type: 'integer', default: 0 })
  bond: number;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated: Date;
}
