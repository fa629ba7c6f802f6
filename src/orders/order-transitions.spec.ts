import { OrderStatus } from './entities';
import {
  allows,
  isCompleted,
  isOutcomeOf,
  labelOf,
  NEW_ORDER_STATUS,
  ORDER_TRANSITIONS,
  OrderAction,
  requireTransition,
} from './order-transitions';

const STATUSES: OrderStatus[] = ['New', 'Paid', 'Ordered'];

/** For each action, the statuses it applies to and what it sets (the order status table). */
function table(action: OrderAction): Record<OrderStatus, string> {
  return Object.fromEntries(STATUSES.map((s) => [s, allows(action, s) ? `→ ${ORDER_TRANSITIONS[action].to ?? s}` : 'refused'])) as Record<
    OrderStatus,
    string
  >;
}

describe('order transitions', () => {
  it('only a New order has a cart that changes, and emptying it leaves it New', () => {
    expect(table('editCart')).toEqual({ New: '→ New', Paid: 'refused', Ordered: 'refused' });
    expect(table('emptyCart')).toEqual({ New: '→ New', Paid: 'refused', Ordered: 'refused' });
    expect(table('checkout')).toEqual({ New: '→ New', Paid: 'refused', Ordered: 'refused' });
  });

  it('a card payment makes a New order Paid, Order Only makes it Ordered, each once', () => {
    expect(table('payByCard')).toEqual({ New: '→ Paid', Paid: 'refused', Ordered: 'refused' });
    expect(table('submitOrderOnly')).toEqual({ New: '→ Ordered', Paid: 'refused', Ordered: 'refused' });
  });

  it('REDO re-runs a completed order and keeps its status', () => {
    expect(table('redo')).toEqual({ New: 'refused', Paid: '→ Paid', Ordered: '→ Ordered' });
  });

  it('only a Paid order is refunded, and any order can be cancelled, each keeping its status', () => {
    expect(table('refund')).toEqual({ New: 'refused', Paid: '→ Paid', Ordered: 'refused' });
    expect(table('cancel')).toEqual({ New: '→ New', Paid: '→ Paid', Ordered: '→ Ordered' });
  });

  it('a refusal is a 400 that names the action and the status', () => {
    expect(() => requireTransition('editCart', 'Paid')).toThrow('Cannot change the cart of an order that is Paid');
    let refusal: unknown;
    try {
      requireTransition('payByCard', 'Ordered');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ httpStatus: 400, message: 'Cannot complete a card payment of an order that is Ordered' });
    expect(requireTransition('payByCard', 'New').to).toBe('Paid');
  });

  it('an order starts New; only a New order changes customer or notes a failed payment', () => {
    expect(NEW_ORDER_STATUS).toBe('New');
    expect(ORDER_TRANSITIONS.create).toMatchObject({ from: [], to: 'New' });
    expect(table('reconcile')).toEqual({ New: '→ New', Paid: 'refused', Ordered: 'refused' });
    expect(table('recordPaymentFailure')).toEqual({ New: '→ New', Paid: 'refused', Ordered: 'refused' });
  });

  it('a completed order is one REDO applies to; the outcome of an action is its to-status', () => {
    expect(STATUSES.filter(isCompleted)).toEqual(['Paid', 'Ordered']);
    expect(isOutcomeOf('payByCard', 'Paid')).toBe(true);
    expect(isOutcomeOf('payByCard', 'Ordered')).toBe(false);
    expect(isOutcomeOf('submitOrderOnly', 'Ordered')).toBe(true);
    expect(isOutcomeOf('redo', 'Paid')).toBe(false); // REDO sets no status
    expect(isOutcomeOf('payByCard', undefined)).toBe(false);
  });

  it('the label mirrors the status', () => {
    expect(STATUSES.map(labelOf)).toEqual(STATUSES);
  });
});
