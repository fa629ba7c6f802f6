import { ItemStatus } from './entities';
import { orderItemMachine, ItemAction, NEW_ITEM_STATUS, ORDER_ITEM_TRANSITIONS } from './order-item-transitions';
import { UNCOUNTED_ITEM_STATUSES } from './order-totals';

const STATUSES: ItemStatus[] = ['Pending', 'Ordered', 'Cancelled', 'Gift Voucher'];

/** For each action, the item statuses it applies to and what it sets (the order item status table). */
function table(action: ItemAction): Record<ItemStatus, string> {
  return Object.fromEntries(
    STATUSES.map((s) => [s, orderItemMachine.allows(action, s) ? `→ ${orderItemMachine.next(action, s)}` : 'refused']),
  ) as Record<ItemStatus, string>;
}

describe('order item transitions', () => {
  it('every item added to a cart starts Pending', () => {
    expect(NEW_ITEM_STATUS).toBe('Pending');
    expect(ORDER_ITEM_TRANSITIONS.add).toEqual({ from: [], to: 'Pending' });
    expect(table('add')).toEqual({ Pending: 'refused', Ordered: 'refused', Cancelled: 'refused', 'Gift Voucher': 'refused' });
  });

  it('only a Pending item is still the cart’s: its Qty is raised or it is removed, and it stays Pending', () => {
    for (const action of ['changeQty', 'remove'] as const)
      expect(table(action)).toEqual({ Pending: '→ Pending', Ordered: 'refused', Cancelled: 'refused', 'Gift Voucher': 'refused' });
  });

  it('completion makes Pending items Ordered and leaves every other status as it is', () => {
    expect(table('order')).toEqual({ Pending: '→ Ordered', Ordered: 'refused', Cancelled: 'refused', 'Gift Voucher': 'refused' });
    expect(orderItemMachine.from('order')).toEqual(['Pending']);
  });

  it('cancelling makes every item that is not Cancelled yet Cancelled, and Cancelled items do not count', () => {
    expect(table('cancel')).toEqual({
      Pending: '→ Cancelled',
      Ordered: '→ Cancelled',
      Cancelled: 'refused',
      'Gift Voucher': '→ Cancelled',
    });
    expect(UNCOUNTED_ITEM_STATUSES).toEqual(['Cancelled']);
  });

  it('nothing moves an item to Gift Voucher (no route does)', () => {
    for (const action of Object.keys(ORDER_ITEM_TRANSITIONS) as ItemAction[])
      expect(ORDER_ITEM_TRANSITIONS[action].to).not.toBe('Gift Voucher');
  });
});
