import { EntityManager } from 'typeorm';
import { ItemStatus, Order, OrderItem } from './entities';

/**
 * Order totals (SPEC "Order item status": Cancelled items are excluded from totals). Money is integer
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

/** The statuses whose items do not count (SPEC: Cancelled items are excluded from totals and confirmation calculations). */
export const UNCOUNTED_ITEM_STATUSES: readonly ItemStatus[] = ['Cancelled'];

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

/** The same sum in SQL over core_order_items of order `:orderId`, in bigint so no product of integers overflows. */
const SUM_SQL = `(SELECT COALESCE(SUM(i."Qty"::bigint * (i."Price"::bigint + i."bond")), 0) FROM core_order_items i WHERE i."Order_ID" = :orderId AND i."ItemStatus" NOT IN (:...uncounted))`;

/**
 * After a change of the cart: sets core_orders.total of order `orderId` to the sum of its items and raises
 * its cart_version, in one UPDATE in the caller's transaction (callers hold the order row's lock, so the sum
 * sees every committed item change). Returns the new total, or null, leaving the order unchanged, when the
 * sum would exceed MAX_ORDER_TOTAL (the caller refuses the change with a 400 and its transaction rolls back).
 */
export async function recomputeOrderTotal(em: EntityManager, orderId: number): Promise<number | null> {
  const result = await em
    .createQueryBuilder()
    .update(Order)
    .set({ total: () => SUM_SQL, cart_version: () => 'cart_version + 1' })
    .where(`id = :orderId AND ${SUM_SQL} <= :max`, { orderId, uncounted: UNCOUNTED_ITEM_STATUSES, max: MAX_ORDER_TOTAL })
    .returning(['total'])
    .execute();
  const row = (result.raw as { total: number }[])[0];
  return row ? Number(row.total) : null;
}
