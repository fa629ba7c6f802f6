import { StateMachine, Transition } from '../common/state-machine';
import { OrderStatus } from './entities';
import { ordersError } from './orders.errors';

/** What can happen to an order: New at creation and when its cart is emptied, then Paid or Ordered (README "Orders and cart"). */
export type OrderAction =
  | 'create'
  | 'editCart'
  | 'emptyCart'
  | 'reconcile'
  | 'checkout'
  | 'payByCard'
  | 'recordPaymentFailure'
  | 'submitOrderOnly'
  | 'redo'
  | 'refund'
  | 'cancel';

export interface OrderTransition extends Transition<OrderStatus> {
  /** How a refusal reads: "Cannot <describe> an order that is <status>". */
  describe: string;
}

/**
 * The order status machine in one table. Only a New order's cart changes: a paid order's items are what
 * was paid for (the contract's "any → New when the cart is emptied" therefore only ever applies to New).
 * Completion by card or by `Order Only` happens once, from New; REDO re-runs the completion steps of an
 * order already completed, without emails, and leaves its status.
 */
export const ORDER_TRANSITIONS: Record<OrderAction, OrderTransition> = {
  /** createOrder: every order starts New. */
  create: { from: [], to: 'New', describe: 'create' },
  editCart: { from: ['New'], describe: 'change the cart of' },
  emptyCart: { from: ['New'], to: 'New', describe: 'empty the cart of' },
  /** A customer bearer takes over a placeholder (guest) order; after payment an order's customer never changes. */
  reconcile: { from: ['New'], describe: 'take over' },
  checkout: { from: ['New'], describe: 'check out' },
  payByCard: { from: ['New'], to: 'Paid', describe: 'complete a card payment of' },
  /** A failed or cancelled payment attempt is noted (payment_status Failed) while a later payment can still complete the order. */
  recordPaymentFailure: { from: ['New'], describe: 'record a failed payment of' },
  submitOrderOnly: { from: ['New'], to: 'Ordered', describe: 'submit' },
  redo: { from: ['Paid', 'Ordered'], describe: 'redo the completion of' },
  /** Only a card payment is given back; the status stays Paid (payment_status says how much came back). */
  refund: { from: ['Paid'], describe: 'refund' },
  /** Items become Cancelled; the status stays (a Paid order is refunded first). */
  cancel: { from: ['New', 'Paid', 'Ordered'], describe: 'cancel' },
};

export const orderMachine = new StateMachine<OrderStatus, OrderAction, OrderTransition>('order', ORDER_TRANSITIONS);

/** The status every order starts in. */
export const NEW_ORDER_STATUS: OrderStatus = ORDER_TRANSITIONS.create.to!;

export function allows(action: OrderAction, status: OrderStatus): boolean {
  return orderMachine.allows(action, status);
}

/** Throws 400 `Cannot <action> an order that is <status>` unless the action applies. */
export function requireTransition(action: OrderAction, status: OrderStatus): OrderTransition {
  return orderMachine.require(action, status, (transition) =>
    ordersError('ORDER_STATE', { detail: `${transition.describe} an order that is ${status}` }),
  );
}

/** Whether `status` is the one `action` leaves an order in (a completion someone else already made, say). */
export function isOutcomeOf(action: OrderAction, status: OrderStatus | undefined): boolean {
  return status !== undefined && ORDER_TRANSITIONS[action].to === status;
}

/** A completed order (Paid or Ordered): what REDO re-runs. */
export function isCompleted(status: OrderStatus): boolean {
  return orderMachine.allows('redo', status);
}

/** orderstatuslabel mirrors orderstatus: clients read either column. */
export function labelOf(status: OrderStatus): string {
  return status;
}
