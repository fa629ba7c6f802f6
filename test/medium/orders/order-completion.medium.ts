import { OrderCompletionService } from '../../../src/orders/completion/order-completion.service';
import { OrdersModule } from '../../../src/orders';
import { Medium, startMedium } from '../support/medium';
import { paidIntent, placeOrder, seedShop, Shop, shopContext } from '../support/shop';

/** OrderCompletionService on its real repositories, the real token issuer and order mails, without HTTP. */
describe('OrderCompletionService', () => {
  let medium: Medium;
  let completion: OrderCompletionService;
  let shop: Shop;

  beforeAll(async () => {
    medium = await startMedium(OrdersModule);
    completion = medium.get(OrderCompletionService);
    shop = await seedShop(medium);
  });
  afterAll(() => medium?.close());

  const complete = (order: { id: number; total: number }, intent = paidIntent(shop, order)) => {
    const ctx = shopContext(medium, shop);
    return medium.inTransaction(ctx, () => completion.complete(ctx, order.id, { method: 'Card', intent }));
  };
  const orderRow = async (id: number) => (await medium.sql('SELECT * FROM core_orders WHERE id = $1', [id]))[0];
  const itemStatuses = async (id: number) =>
    (await medium.sql(`SELECT "ItemStatus" FROM core_order_items WHERE "Order_ID" = $1 ORDER BY id`, [id])).map((r) => r.ItemStatus);
  const tokensOf = (id: number) => medium.sql('SELECT * FROM core_tokens WHERE order_id = $1 ORDER BY order_item_id, item_unit', [id]);
  /** The outbox rows written about the order (the sender is off: they stay Pending). */
  const mailsAbout = async (id: number) =>
    (
      await medium.sql(`SELECT count(*)::int AS n FROM core_notification_log WHERE linked_table = 'core_orders' AND master_id = $1`, [id])
    )[0].n;

  it('completes a paid order: Paid with the payment reference, Pending items Ordered, one token per digital unit, the mails written', async () => {
    const order = await placeOrder(medium, shop, [
      { product: shop.book, price: 2500 },
      { product: shop.ebook, price: 1500, qty: 2, digital: true },
      { product: shop.tent, price: 10000, bond: 5000, status: 'Cancelled' },
    ]);
    expect(order.total).toBe(5500);
    const intent = paidIntent(shop, order);
    const result = await complete(order, intent);

    expect(result.outcome).toBe('completed');
    expect(result.mails).toBeGreaterThan(0);
    expect(await mailsAbout(order.id)).toBe(result.mails);
    const row = await orderRow(order.id);
    expect(row).toMatchObject({ orderstatus: 'Paid', orderstatuslabel: 'Paid', payment_status: 'Success', paymentMethodRef: 'Card' });
    expect(row).toMatchObject({ AuthCode: intent.id, TrxnReference: intent.id, payment_livemode: false, total: 5500 });
    expect(row.order_date).not.toBeNull();
    expect(await itemStatuses(order.id)).toEqual(['Ordered', 'Ordered', 'Cancelled']);
    // The e-book's template: 5 activations, 30 days; owned by the customer.
    const tokens = await tokensOf(order.id);
    expect(tokens.map((t) => [t.item_unit, t.status, t.customer_id, t.maximum_activations])).toEqual([
      [1, 'pending', shop.customerId, 5],
      [2, 'pending', shop.customerId, 5],
    ]);
    const days = (new Date(tokens[0].expiry_date).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    expect(result.tokens.map((t) => t.id).sort()).toEqual(tokens.map((t) => t.id).sort());
  });

  it('a repeated completion finds the order complete and changes nothing: no second token set, no second mail', async () => {
    const order = await placeOrder(medium, shop, [{ product: shop.ebook, price: 1500, digital: true }]);
    const intent = paidIntent(shop, order);
    expect((await complete(order, intent)).outcome).toBe('completed');
    const mails = await mailsAbout(order.id);
    const before = await orderRow(order.id);

    const again = await complete(order, intent);
    expect(again).toMatchObject({ outcome: 'already_complete', tokens: [], mails: 0 });
    expect(await tokensOf(order.id)).toHaveLength(1);
    expect(await mailsAbout(order.id)).toBe(mails);
    expect((await orderRow(order.id)).order_date).toEqual(before.order_date);
  });

  it('ten concurrent completions of one order: one completes, the others find it complete, one token set', async () => {
    const order = await placeOrder(medium, shop, [{ product: shop.ebook, price: 1500, qty: 3, digital: true }]);
    const intent = paidIntent(shop, order);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => complete(order, intent).then((r) => r.outcome)));
    expect(outcomes.filter((o) => o === 'completed')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'already_complete')).toHaveLength(9);
    expect((await tokensOf(order.id)).map((t) => t.item_unit)).toEqual([1, 2, 3]);
  });

  it('a gift item gets gift_pending tokens with no owner', async () => {
    const order = await placeOrder(medium, shop, [{ product: shop.voucher, price: 4000, digital: true, gift: true }]);
    expect((await complete(order)).outcome).toBe('completed');
    expect((await tokensOf(order.id)).map((t) => [t.status, t.customer_id, t.gift])).toEqual([['gift_pending', null, true]]);
  });

  it('does not complete for an intent that does not pay for the order as it is: the order stays New, no token', async () => {
    const order = await placeOrder(medium, shop, [{ product: shop.ebook, price: 1500, digital: true }]);
    const base = paidIntent(shop, order);
    const wrong = [
      [{ amount: order.total - 1 }, 'amount_mismatch'],
      [{ currency: 'usd' }, 'currency_mismatch'],
      [{ metadata: { ...base.metadata, cartVersion: '0' } }, 'cart_changed'],
      [{ metadata: { ...base.metadata, orderID: String(order.id + 1) } }, 'not_for_order'],
    ] as const;
    for (const [change, outcome] of wrong) expect((await complete(order, { ...base, ...change })).outcome).toBe(outcome);
    expect(await orderRow(order.id)).toMatchObject({ orderstatus: 'New', payment_status: null, AuthCode: null });
    expect(await itemStatuses(order.id)).toEqual(['Pending']);
    expect(await tokensOf(order.id)).toEqual([]);
    // The right one still completes it.
    expect((await complete(order, base)).outcome).toBe('completed');
  });

  it("answers order_not_found for another app's order, and leaves it alone", async () => {
    const other = await seedShop(medium);
    const order = await placeOrder(medium, other, [{ product: other.book, price: 2500 }]);
    const result = await complete(order, paidIntent(shop, order));
    expect(result).toMatchObject({ outcome: 'order_not_found', order: null });
    expect((await orderRow(order.id)).orderstatus).toBe('New');
  });

  it('REDO of a completed order issues missing tokens only, with no mail and the payment fields kept', async () => {
    const order = await placeOrder(medium, shop, [{ product: shop.ebook, price: 1500, qty: 2, digital: true }]);
    const intent = paidIntent(shop, order);
    await complete(order, intent);
    const [first] = await tokensOf(order.id);
    await medium.sql('DELETE FROM core_tokens WHERE id = $1', [first.id]); // as if provisioning had failed for one unit
    const mails = await mailsAbout(order.id);

    const ctx = shopContext(medium, shop);
    const redone = await medium.inTransaction(ctx, () => completion.complete(ctx, order.id, { method: 'REDO', notes: 'reissued' }));
    expect(redone).toMatchObject({ outcome: 'redone', mails: 0 });
    expect((await tokensOf(order.id)).map((t) => t.item_unit)).toEqual([1, 2]);
    expect(await mailsAbout(order.id)).toBe(mails);
    expect(await orderRow(order.id)).toMatchObject({ orderstatus: 'Paid', AuthCode: intent.id, notes: 'reissued' });
  });
});
