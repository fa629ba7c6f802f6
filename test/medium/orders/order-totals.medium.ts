import { OrdersModule } from '../../../src/orders';
import { OrderItem } from '../../../src/orders/entities';
import { MAX_ORDER_TOTAL, orderTotal } from '../../../src/orders/order-totals';
import { OrderRepository } from '../../../src/orders/repositories/order.repository';
import { Medium, startMedium } from '../support/medium';
import { Line, placeOrder, seedShop, Shop, shopContext } from '../support/shop';

/** The order total twice: in SQL (OrderRepository.recomputeTotal, after a cart change) and in TypeScript (orderTotal): they agree. */
describe('OrderRepository.recomputeTotal and orderTotal', () => {
  let medium: Medium;
  let orders: OrderRepository;
  let shop: Shop;

  beforeAll(async () => {
    medium = await startMedium(OrdersModule);
    orders = medium.get(OrderRepository);
    shop = await seedShop(medium);
  });
  afterAll(() => medium?.close());

  /**
   * An order of `lines` (every item's Price then set to `itemPrice`, when given), recomputed: the sum recomputeTotal
   * answers, the items as the repository reads them, and the total and cart version it leaves.
   */
  async function recompute(
    lines: Line[],
    itemPrice?: number,
  ): Promise<{ sql: number | null; items: OrderItem[]; row: { total: number; cart_version: number } }> {
    const order = await placeOrder(medium, shop, lines);
    await medium.sql('UPDATE core_orders SET total = 0 WHERE id = $1', [order.id]); // what recomputeTotal sets is its own sum
    // A price set afterwards: an order of such items could not be placed with its total in the integer column.
    if (itemPrice !== undefined) await medium.sql('UPDATE core_order_items SET "Price" = $2 WHERE "Order_ID" = $1', [order.id, itemPrice]);
    const ctx = shopContext(medium, shop);
    const sql = await medium.inTransaction(ctx, () => orders.recomputeTotal(ctx, order.id));
    const items = await medium.inTransaction(ctx, () => orders.itemsOf(ctx, order.id));
    const [row] = await medium.sql('SELECT total, cart_version FROM core_orders WHERE id = $1', [order.id]);
    return { sql, items, row };
  }

  it('sums Qty × (Price + bond) over the items that are not Cancelled, as orderTotal does, and raises the cart version', async () => {
    const { sql, items, row } = await recompute([
      { product: shop.book, price: 2500, qty: 3 },
      { product: shop.tent, price: 10000, bond: 5000, qty: 2 },
      { product: shop.ebook, price: 1500, digital: true, status: 'Cancelled' },
      { product: shop.voucher, price: 0, bond: 250 },
    ]);
    expect(sql).toBe(3 * 2500 + 2 * 15000 + 250);
    expect(orderTotal(items)).toBe(sql);
    expect(row).toEqual({ total: sql, cart_version: 2 });
  });

  it('an order of only Cancelled items totals 0 both ways', async () => {
    const { sql, items } = await recompute([{ product: shop.book, price: 2500, status: 'Cancelled' }]);
    expect(sql).toBe(0);
    expect(orderTotal(items)).toBe(0);
  });

  it('takes a total of exactly the limit, and leaves the order unchanged one cent over it', async () => {
    const atLimit = await recompute([
      { product: shop.book, price: MAX_ORDER_TOTAL - 1 },
      { product: shop.ebook, price: 1 },
    ]);
    expect(atLimit.sql).toBe(MAX_ORDER_TOTAL);
    const over = await recompute([
      { product: shop.book, price: MAX_ORDER_TOTAL },
      { product: shop.ebook, price: 0, bond: 1 },
    ]);
    expect(over.sql).toBeNull();
    expect(over.row).toEqual({ total: 0, cart_version: 1 });
    expect(orderTotal(over.items)).toBe(MAX_ORDER_TOTAL + 1);
  });

  it('sums past 32 bits without overflowing (bigint), and refuses that total as over the limit', async () => {
    // 1000 × 2,147,483,647 overflows a 32-bit integer product; the sum is refused, not wrapped.
    const { sql, items, row } = await recompute([{ product: shop.book, price: 1, qty: 1000 }], 2 ** 31 - 1);
    expect(sql).toBeNull();
    expect(row.total).toBe(0);
    expect(orderTotal(items)).toBe(1000 * (2 ** 31 - 1));
  });
});
