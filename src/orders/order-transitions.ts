import { OrderStatus } from './entities';
import { ordersError } from './orders.errors';

/** What can happen to an order (SPEC "Order status"). */
export type OrderAction = 'editCart' | 'emptyCart' | 'checkout' | 'payByCard' | 'submitOrderOnly' | 'redo' | 'refund' | 'cancel';

export interface OrderTransition {
  /** The statuses the action applies to. */
  from: readonly OrderStatus[];
  /** The status it sets; none: the status stays. */
  to?: OrderStatus;
  /** How a refusal reads: "Cannot <describe> an order that is <status>". */
  describe: string;
}

/**
 * The order status machine in one table. Only a New order's cart changes: a paid order's items are what
 * was paid for (the spec's "any → New when the cart is emptied" therefore only ever applies to New).
 * Completion by card or by `Order Only` happens once, from New; REDO re-runs the completion steps of an
 * order already completed, without emails, and leaves its status.
 */
export const ORDER_TRANSITIONS: Record<OrderAction, OrderTransition> = {
  editCart: { from: ['New'], describe: 'change the cart of' },
  emptyCart: { from: ['New'], to: 'New', describe: 'empty the cart of' },
  checkout: { from: ['New'], describe: 'check out' },
  payByCard: { from: ['New'], to: 'Paid', describe: 'complete a card payment of' },
  submitOrderOnly: { from: ['New'], to: 'Ordered', describe: 'submit' },
  redo: { from: ['Paid', 'Ordered'], describe: 'redo the completion of' },
  /** Only a card payment is given back; the status stays Paid (payment_status says how much came back). */
  refund: { from: ['Paid'], describe: 'refund' },
  /** Items become Cancelled; the status stays (a Paid order is refunded first). */
  cancel: { from: ['New', 'Paid', 'Ordered'], describe: 'cancel' },
};

export function allows(action: OrderAction, status: OrderStatus): boolean {
  return ORDER_TRANSITIONS[action].from.includes(status);
}

/** Throws 400 `Cannot <action> an order that is <status>` unless the action applies. */
export function requireTransition(action: OrderAction, status: OrderStatus): OrderTransition {
  const transition = ORDER_TRANSITIONS[action];
  if (!transition.from.includes(status)) throw ordersError('ORDER_STATE', { detail: `${transition.describe} an order that is ${status}` });
  return transition;
}

/** orderstatuslabel mirrors orderstatus (SPEC "Order status"). */
export function labelOf(status: OrderStatus): string {
  return status;
}
