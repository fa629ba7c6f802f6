import { StateMachine, Transition } from '../common/state-machine';
import { ItemStatus } from './entities';

/** What can happen to an order item: added as Pending, Ordered at completion, Cancelled (README "Orders and cart"). */
export type ItemAction = 'add' | 'changeQty' | 'remove' | 'order' | 'cancel';

/**
 * The order item status machine. Every item added to a cart starts Pending, and only a Pending item is
 * still the cart's (its Qty raised, or removed). Completion makes Pending items Ordered and leaves the other
 * statuses as they are; cancelOrder makes every item that is not Cancelled yet Cancelled. What moves an item
 * to Gift Voucher is left open by the API contract: no action of the service does.
 */
export const ORDER_ITEM_TRANSITIONS: Record<ItemAction, Transition<ItemStatus>> = {
  /** addCart, createOrder's items. */
  add: { from: [], to: 'Pending' },
  /** addCart of a product the cart already holds as a Pending, non-gift line of the same version. */
  changeQty: { from: ['Pending'] },
  /** removeCart. */
  remove: { from: ['Pending'] },
  /** Order completion, step 3. */
  order: { from: ['Pending'], to: 'Ordered' },
  /** cancelOrder. */
  cancel: { from: ['Pending', 'Ordered', 'Gift Voucher'], to: 'Cancelled' },
};

export const orderItemMachine = new StateMachine<ItemStatus, ItemAction>('order item', ORDER_ITEM_TRANSITIONS);

/** The status every item added to a cart starts in. */
export const NEW_ITEM_STATUS: ItemStatus = ORDER_ITEM_TRANSITIONS.add.to!;
