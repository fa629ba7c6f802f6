import { ItemStatus, OrderItem } from './entities';
import { ORDER_ITEM_TRANSITIONS } from './order-item-transitions';

/**
 * Order totals: Cancelled items are excluded from totals. Money is integer
 * cents: an item's Price includes GST (`tax` is the GST part of it) and `bond` is a deposit on top, so
 *
 *   total = Σ Qty × (Price + bond) over the items that are not Cancelled.
 */

/**
 * The largest order total in cents: 99,999,999 (999,999.99 in dollars), the most the payment provider
 * charges in one payment intent; a cart that would exceed it is refused with 400 (and the integer column
 * can never overflow).
 */
export const MAX_ORDER_TOTAL = 99_999_999;

/** The statuses whose items do not count: Cancelled items are left out of totals and of the confirmation mail's sums. */
export const UNCOUNTED_ITEM_STATUSES: readonly ItemStatus[] = [ORDER_ITEM_TRANSITIONS.cancel.to!];

export type CountedItem = Pick<OrderItem, 'Qty' | 'Price' | 'bond' | 'ItemStatus'>;

/** Whether an item counts towards the order total. */
export function counts(item: Pick<OrderItem, 'ItemStatus'>): boolean {
  return !UNCOUNTED_ITEM_STATUSES.includes(item.ItemStatus);
}

/** One item's subtotal in cents: Qty × (Price + bond) (whatever its status). */
export function lineTotal(item: Pick<OrderItem, 'Qty' | 'Price' | 'bond'>): number {
  return item.Qty * (item.Price + item.bond);
}

/** The order total of these items in cents: Σ Qty × (Price + bond) over those not Cancelled. */
export function orderTotal(items: readonly CountedItem[]): number {
  return items.reduce((sum, item) => (counts(item) ? sum + lineTotal(item) : sum), 0);
}
