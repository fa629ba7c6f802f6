import { ItemStatus } from './entities';
import { CountedItem, counts, lineTotal, MAX_ORDER_TOTAL, orderTotal, UNCOUNTED_ITEM_STATUSES } from './order-totals';

const item = (Qty: number, Price: number, bond = 0, ItemStatus: ItemStatus = 'Pending'): CountedItem => ({ Qty, Price, bond, ItemStatus });

describe('order totals', () => {
  it('counts every status but Cancelled', () => {
    expect(UNCOUNTED_ITEM_STATUSES).toEqual(['Cancelled']);
    const statuses: ItemStatus[] = ['Pending', 'Ordered', 'Gift Voucher', 'Cancelled'];
    expect(statuses.map((ItemStatus) => [ItemStatus, counts({ ItemStatus })])).toEqual([
      ['Pending', true],
      ['Ordered', true],
      ['Gift Voucher', true],
      ['Cancelled', false],
    ]);
  });

  it("a line is Qty × (Price + bond) in cents, whatever the item's status", () => {
    expect(lineTotal(item(1, 1995))).toBe(1995);
    expect(lineTotal(item(3, 1995))).toBe(5985);
    expect(lineTotal(item(2, 1000, 250))).toBe(2500); // the bond is a deposit on top of the price
    expect(lineTotal(item(4, 0, 500))).toBe(2000); // a free item with a deposit
    expect(lineTotal(item(5, 0))).toBe(0);
    expect(lineTotal(item(2, 1000, 0, 'Cancelled'))).toBe(2000);
  });

  it('the total sums the lines that count, in exact integer cents', () => {
    expect(orderTotal([])).toBe(0);
    expect(orderTotal([item(1, 1995), item(2, 1000, 250, 'Ordered'), item(1, 500, 0, 'Gift Voucher')])).toBe(1995 + 2500 + 500);
    // Cents never go through dollars: ten lines of 0.10 are exactly 1.00, where 0.1 summed ten times in floating point is not.
    expect(orderTotal(Array.from({ length: 10 }, () => item(1, 10)))).toBe(100);
    expect(Array.from({ length: 10 }, () => 0.1).reduce((sum, cents) => sum + cents, 0)).not.toBe(1);
  });

  it('leaves Cancelled items out of the total, and an order of only Cancelled items totals 0', () => {
    const kept = item(2, 1500);
    const cancelled = item(3, 9999, 100, 'Cancelled');
    expect(orderTotal([kept, cancelled])).toBe(3000);
    expect(orderTotal([cancelled])).toBe(0);
    expect(orderTotal([cancelled, kept, cancelled])).toBe(orderTotal([kept]));
  });

  it('the largest total is 999,999.99 in cents, and a cart one cent over it adds up past the limit', () => {
    expect(MAX_ORDER_TOTAL).toBe(99_999_999);
    expect(Number.isSafeInteger(MAX_ORDER_TOTAL)).toBe(true);
    expect(MAX_ORDER_TOTAL).toBeLessThan(2 ** 31); // fits the integer column
    expect(orderTotal([item(1, 99_999_998), item(1, 1)])).toBe(MAX_ORDER_TOTAL);
    expect(orderTotal([item(1, 99_999_998), item(1, 1, 1)])).toBeGreaterThan(MAX_ORDER_TOTAL);
  });

  it('sums large carts exactly: integer products stay exact far past the integer column', () => {
    // 1000 × (2,147,483,647 + 2,147,483,647): past 32 bits, still a safe integer, so the limit check sees the real sum.
    const huge = item(1000, 2 ** 31 - 1, 2 ** 31 - 1);
    expect(orderTotal([huge])).toBe(1000 * 2 * (2 ** 31 - 1));
    expect(Number.isSafeInteger(orderTotal([huge, huge]))).toBe(true);
  });
});
