import { SmtpPeer } from '../messaging/support/smtp-peer';
import type { PeerRefund } from '../../src/cli/payment-double';
import { PaymentPeer } from '../support/payment-peer';
import { TestApp } from '../support/test-app';
import { drain, mailsTo, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/**
 * A refund the provider counted and later reports failed or cancelled (`refund.updated`): the order's
 * totals and payment_status come back, the access tokens that refund's full refund expired are restored to
 * what they were (only those), and the app's administrators get a mail saying the money was not returned.
 */
describe('a counted refund that fails at the provider', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let client: ShopClient;

  const refundOrder = (body: Record<string, unknown>) => t.post('/ecommerce/refundOrder', body, shop.adminHeaders);
  const cancelOrder = (body: Record<string, unknown>) => t.post('/ecommerce/cancelOrder', body, shop.adminHeaders);
  const statuses = async (orderID: number) => (await client.tokenRows(orderID)).map((tk) => tk.status);
  const failedMailRows = async (orderID: number) => (await client.mailRows(orderID)).filter((m) => m.event === 'order_refund_failed');
  /** The provider reports the refund failed (a new event id each time, as the provider sends a new event per change). */
  const failed = (refund: PeerRefund, status = 'failed') =>
    client.deliver(peer.signedEvent('refund.updated', { ...refund, status, failure_reason: 'expired_or_canceled_card' }, shop.secret));

  async function paidOrder() {
    const order = await client.checkedOut([
      { productID: shop.ebook, Qty: 2, Price: 1500 },
      { productID: shop.book, Qty: 1, Price: 2500 },
    ]); // 5500, two e-book tokens
    expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
    return order;
  }

  beforeAll(async () => ({ peer, smtp, t, shop, client } = await startShopHarness()));
  afterAll(() => stopShopHarness({ t, smtp, peer }));
  beforeEach(async () => {
    peer.heal();
    await drain(t);
    smtp.mails.length = 0;
  });

  it('a full refund that fails: tokens back to what they were, paymentStatus Success, refunded_total 0, an admin mail', async () => {
    const order = await paidOrder();
    const [first] = await client.tokenRows(order.orderID);
    const activated = await t.post('/ecommerce/activateToken', { tokenValue: first.token_value, productId: shop.ebook }, shop.headers);
    expect(activated.status).toBe(200);
    expect(await statuses(order.orderID)).toEqual(['active', 'pending']);

    const refunded = await refundOrder({ _orderID: order._id });
    expect(refunded.body.data).toMatchObject({ amount: 5500, paymentStatus: 'Refunded' });
    expect(await statuses(order.orderID)).toEqual(['expired', 'expired']);
    expect((await client.tokenRows(order.orderID)).map((tk) => tk.expired_reason)).toEqual(['refund', 'refund']);

    const refund = peer.refunds.get(refunded.body.data.refundID)!;
    expect((await failed(refund)).status).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', payment_status: 'Success', refunded_total: 0 });
    expect(await client.tokenRows(order.orderID)).toEqual([
      expect.objectContaining({ status: 'active', activations: 1, expired_reason: null, expired_at: null }),
      expect.objectContaining({ status: 'pending', expired_reason: null, expired_at: null }),
    ]);
    const validated = await t.post('/ecommerce/validateToken', { tokenValue: first.token_value, productId: shop.ebook }, shop.headers);
    expect(validated.body).toMatchObject({ status: 'Success', message: 'Token is valid' });

    // The admin is told, once: the same failure reported again changes nothing and mails nothing.
    expect((await failed(refund)).status).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Success', refunded_total: 0 });
    expect(await failedMailRows(order.orderID)).toHaveLength(1);
    await drain(t);
    const mails = mailsTo(smtp, `${shop.domain} - Refund failed for order #${order.orderID}`);
    expect(mails).toHaveLength(1);
    expect(JSON.stringify(mails[0].parsed.to)).toContain(shop.ccEmail);
    expect(mails[0].parsed.text).toContain(refund.id);
    expect(mails[0].parsed.text).toContain('$55.00');
    expect(mails[0].parsed.text).toMatch(/was not returned/);
    // Refundable again here (the double does not model a failed refund, so it is not asked).
    expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', payment_status: 'Success' });
  });

  it('a partial refund that fails: Partially Refunded back to Success, tokens untouched, an admin mail', async () => {
    const order = await paidOrder();
    const part = await refundOrder({ _orderID: order._id, amount: 1500 });
    expect(part.body.data).toMatchObject({ refundedTotal: 1500, paymentStatus: 'Partially Refunded' });
    const rest = await refundOrder({ _orderID: order._id, amount: 1000 });
    expect(rest.body.data).toMatchObject({ refundedTotal: 2500, paymentStatus: 'Partially Refunded' });

    expect((await failed(peer.refunds.get(part.body.data.refundID)!, 'canceled')).status).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Partially Refunded', refunded_total: 1000 });
    expect((await failed(peer.refunds.get(rest.body.data.refundID)!)).status).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Success', refunded_total: 0 });
    expect(await statuses(order.orderID)).toEqual(['pending', 'pending']);
    expect(await failedMailRows(order.orderID)).toHaveLength(2);
  });

  it('only the tokens the refund expired come back: one expired by the admin, or by its date, stays expired', async () => {
    const order = await paidOrder();
    const [byAdmin, byDate] = await client.tokenRows(order.orderID);
    expect((await t.post('/ecommerce/expireToken', { tokenId: byAdmin.id }, shop.adminHeaders)).status).toBe(200);
    await t.dataSource.query(`UPDATE core_tokens SET expiry_date = now() - interval '1 minute' WHERE id = $1`, [byDate.id]);
    const validated = await t.post('/ecommerce/validateToken', { tokenValue: byDate.token_value, productId: shop.ebook }, shop.headers);
    expect(validated.body).toMatchObject({ status: 'Failed', message: 'Token has expired' });
    expect((await client.tokenRows(order.orderID)).map((tk) => tk.expired_reason)).toEqual(['admin', 'expiry']);

    const refunded = await refundOrder({ _orderID: order._id });
    expect(refunded.body.data.paymentStatus).toBe('Refunded');
    expect((await client.tokenRows(order.orderID)).map((tk) => tk.expired_reason)).toEqual(['admin', 'expiry']);
    expect((await failed(peer.refunds.get(refunded.body.data.refundID)!)).status).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Success', refunded_total: 0 });
    expect(await statuses(order.orderID)).toEqual(['expired', 'expired']);
  });

  it('a cancelled order whose refund fails: the money is back on the order, the tokens stay expired (cancelOrder expired them)', async () => {
    const order = await paidOrder();
    const cancelled = await cancelOrder({ _orderID: order._id, reason: 'Called off' });
    expect(cancelled.body.data).toMatchObject({ paymentStatus: 'Refunded', refundID: expect.stringMatching(/^re_/) });
    expect((await client.tokenRows(order.orderID)).map((tk) => tk.expired_reason)).toEqual(['cancel', 'cancel']);

    expect((await failed(peer.refunds.get(cancelled.body.data.refundID)!)).status).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Success', refunded_total: 0 });
    expect(await statuses(order.orderID)).toEqual(['expired', 'expired']);
    expect(await failedMailRows(order.orderID)).toHaveLength(1);
  });
});
