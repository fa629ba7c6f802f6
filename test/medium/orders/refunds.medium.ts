import { ApiError } from '../../../src/common/api-error';
import { OrdersModule } from '../../../src/orders';
import { OrderCompletionService } from '../../../src/orders/completion/order-completion.service';
import { RefundView } from '../../../src/orders/checkout/payment-gateway.service';
import { RefundsService } from '../../../src/orders/refunds/refunds.service';
import { Medium, startMedium } from '../support/medium';
import { admin, paidIntent, placeOrder, seedShop, Shop, shopContext } from '../support/shop';

/**
 * RefundsService on its real repositories, token issuer and order mails, without HTTP and without the
 * provider: `reserve` (step 1) and `record` (step 3) with the provider's answer as the gateway hands it over.
 */
describe('RefundsService', () => {
  let medium: Medium;
  let refunds: RefundsService;
  let shop: Shop;

  beforeAll(async () => {
    medium = await startMedium(OrdersModule);
    refunds = medium.get(RefundsService);
    shop = await seedShop(medium);
  });
  afterAll(() => medium?.close());

  const staff = () => shopContext(medium, shop, admin(shop));

  /** A Paid order of 55.00 (a book and two e-books, whose two tokens it issues), completed by the real completion service. */
  async function paidOrder(): Promise<{ id: number; total: number; intentId: string }> {
    const order = await placeOrder(medium, shop, [
      { product: shop.book, price: 2500 },
      { product: shop.ebook, price: 1500, qty: 2, digital: true },
    ]);
    const intent = paidIntent(shop, order);
    const ctx = shopContext(medium, shop);
    const done = await medium.inTransaction(ctx, () =>
      medium.get(OrderCompletionService).complete(ctx, order.id, { method: 'Card', intent }),
    );
    if (done.outcome !== 'completed') throw new Error(`completion: ${done.outcome}`);
    return { ...order, intentId: intent.id };
  }

  const reserve = (orderId: number, amount?: number, key: string | null = null) => {
    const ctx = staff();
    return medium.inTransaction(ctx, () => refunds.reserve(ctx, { id: orderId, encrypted: false }, amount, 'medium test', key));
  };
  /** What the provider answers for a refund of `amount` (its webhook carries the same view). */
  const providerRefund = (order: { id: number; intentId: string }, amount: number, extra: Partial<RefundView> = {}): RefundView => ({
    id: `re_${Math.random().toString(36).slice(2, 12)}`,
    amount,
    currency: 'aud',
    status: 'succeeded',
    paymentIntentId: order.intentId,
    metadata: { appID: String(shop.site.id), orderID: String(order.id) },
    ...extra,
  });
  const record = (refund: RefundView, reservationId?: number, source: 'api' | 'provider' = 'api') => {
    const ctx = staff();
    return medium.inTransaction(ctx, () => refunds.record(ctx, refund, source, reservationId));
  };
  const orderRow = async (id: number) => (await medium.sql('SELECT * FROM core_orders WHERE id = $1', [id]))[0];
  const refundRows = (id: number) => medium.sql('SELECT amount, status, refund_id FROM core_refunds WHERE order_id = $1 ORDER BY id', [id]);
  const tokenStates = async (id: number) =>
    (await medium.sql('SELECT status, expired_reason FROM core_tokens WHERE order_id = $1 ORDER BY id', [id])).map((t) => [
      t.status,
      t.expired_reason,
    ]);
  /** The refund mails written to the order's billing email (outbox rows: the sender is off). */
  const refundMails = async (id: number) =>
    (
      await medium.sql(
        `SELECT count(*)::int AS n FROM core_notification_log
          WHERE event = 'order_refund' AND linked_table = 'core_orders' AND master_id = $1 AND email = 'buyer-' || $1 || '@example.test'`,
        [id],
      )
    )[0].n;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: ApiError) => ({ status: error.httpStatus, message: error.message, errors: error.errors }),
    );

  it('refunds part, then the rest: Partially Refunded with the tokens valid, then Refunded with the tokens expired, a mail each time', async () => {
    const order = await paidOrder();
    expect(await refundMails(order.id)).toBe(0);

    const { reservation } = await reserve(order.id, 1000);
    expect(reservation).toMatchObject({ amount: 1000, status: 'reserved', currency: 'aud', payment_intent_id: order.intentId });
    expect(await record(providerRefund(order, 1000), reservation.id)).toBe('refunded');
    expect(await orderRow(order.id)).toMatchObject({ refunded_total: 1000, payment_status: 'Partially Refunded', orderstatus: 'Paid' });
    expect(await tokenStates(order.id)).toEqual([
      ['pending', null],
      ['pending', null],
    ]);
    expect(await refundMails(order.id)).toBe(1);

    const rest = await reserve(order.id); // no amount: the whole remainder
    expect(rest.reservation.amount).toBe(4500);
    expect(await record(providerRefund(order, 4500), rest.reservation.id)).toBe('refunded');
    expect(await orderRow(order.id)).toMatchObject({ refunded_total: 5500, payment_status: 'Refunded' });
    expect(await tokenStates(order.id)).toEqual([
      ['expired', 'refund'],
      ['expired', 'refund'],
    ]);
    expect(await refundMails(order.id)).toBe(2);
    expect((await refundRows(order.id)).map((r) => [r.amount, r.status])).toEqual([
      [1000, 'succeeded'],
      [4500, 'succeeded'],
    ]);
    // Nothing is left to refund.
    expect(await refusal(reserve(order.id, 1))).toMatchObject({ status: 409, message: 'Order is not paid' });
  });

  it('refuses more than the remainder (paid − refunded − reserved), and no amount below a cent, naming amount', async () => {
    const order = await paidOrder();
    for (const amount of [5501, 0, -100]) {
      expect(await refusal(reserve(order.id, amount))).toMatchObject({ status: 400, errors: [{ field: 'amount' }] });
    }
    await reserve(order.id, 3000, 'first');
    // 3000 is held by the first reservation: 2500 remain.
    const over = await refusal(reserve(order.id, 2600, 'second'));
    expect(over).toMatchObject({
      status: 400,
      errors: [{ field: 'amount', message: 'amount must be at most the refundable remainder (2500 cents)' }],
    });
    expect((await refundRows(order.id)).map((r) => r.amount)).toEqual([3000]);
    expect((await reserve(order.id, 2500, 'second')).reservation.amount).toBe(2500);
  });

  it('refuses an order that is not paid', async () => {
    const order = await placeOrder(medium, shop, [{ product: shop.book, price: 2500 }]);
    expect(await refusal(reserve(order.id, 100))).toMatchObject({ status: 409, message: 'Order is not paid' });
    expect(await refundRows(order.id)).toEqual([]);
  });

  it('ten concurrent reservations of 10.00 on a 55.00 payment: five are reserved, five refused, never more than was paid', async () => {
    const order = await paidOrder();
    const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => reserve(order.id, 1000, `k${i}`)));
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(5);
    const rejected = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    expect(rejected.map((s) => (s.reason as ApiError).httpStatus)).toEqual([400, 400, 400, 400, 400]);
    const rows = await refundRows(order.id);
    expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(5000);
  });

  it('a refund in another currency than the order is not counted', async () => {
    const order = await paidOrder();
    const { reservation } = await reserve(order.id, 1000);
    expect(await record(providerRefund(order, 1000, { currency: 'usd' }), reservation.id)).toBe('currency_mismatch');
    expect(await orderRow(order.id)).toMatchObject({ refunded_total: 0, payment_status: 'Success' });
    expect((await refundRows(order.id)).map((r) => r.status)).toEqual(['reserved']);
  });

  it('the same refund reported twice (the answer, then the webhook) is counted once', async () => {
    const order = await paidOrder();
    const { reservation } = await reserve(order.id, 2000);
    const refund = providerRefund(order, 2000, {
      metadata: { appID: String(shop.site.id), orderID: String(order.id), refundRowID: String(reservation.id) },
    });
    expect(await record(refund, reservation.id)).toBe('refunded');
    expect(await record(refund, undefined, 'provider')).toBe('known');
    expect(await orderRow(order.id)).toMatchObject({ refunded_total: 2000, payment_status: 'Partially Refunded' });
    expect(await refundRows(order.id)).toHaveLength(1);
  });

  it('a dashboard refund the provider reports (no reservation) is recorded on the order paid with its intent', async () => {
    const order = await paidOrder();
    const dashboard = providerRefund(order, 5500, { metadata: {} });
    expect(await record(dashboard, undefined, 'provider')).toBe('refunded');
    expect(await orderRow(order.id)).toMatchObject({ refunded_total: 5500, payment_status: 'Refunded' });
    expect(await refundRows(order.id)).toEqual([{ amount: 5500, status: 'succeeded', refund_id: dashboard.id }]);
    // An intent no order of the app was paid with finds nothing.
    expect(await record(providerRefund({ id: order.id, intentId: 'pi_unknown' }, 100, { metadata: {} }), undefined, 'provider')).toBe(
      'order_not_found',
    );
  });

  it('a counted refund in full that fails at the provider afterwards comes back: totals, status and the tokens it expired', async () => {
    const order = await paidOrder();
    const { reservation } = await reserve(order.id);
    const refund = providerRefund(order, 5500);
    expect(await record(refund, reservation.id)).toBe('refunded');
    expect(await tokenStates(order.id)).toEqual([
      ['expired', 'refund'],
      ['expired', 'refund'],
    ]);

    expect(await record({ ...refund, status: 'failed' }, undefined, 'provider')).toBe('failed');
    expect(await orderRow(order.id)).toMatchObject({ refunded_total: 0, payment_status: 'Success' });
    expect(await tokenStates(order.id)).toEqual([
      ['pending', null],
      ['pending', null],
    ]);
    expect((await refundRows(order.id)).map((r) => r.status)).toEqual(['failed']);
  });
});
