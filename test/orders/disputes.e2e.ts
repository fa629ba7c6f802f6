import type { PeerIntent } from '../support/payment-peer';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { TestApp } from '../support/test-app';
import { drain, mailsTo, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/**
 * Disputes (chargebacks) of a card payment, as the provider reports them: `charge.dispute.created` marks
 * the order paid with the charge's intent `Disputed` and mails the admins; `charge.dispute.closed` lost
 * expires the order's tokens (the status stays Disputed), won puts the status back as the refunds left it.
 * Each event applies once; a dispute of another app's payment changes nothing.
 */
describe('disputes of a payment', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let other: ShopTenant;
  let client: ShopClient;

  const refundOrder = (body: Record<string, unknown>) => t.post('/ecommerce/refundOrder', body, shop.adminHeaders);
  const statuses = async (orderID: number) => (await client.tokenRows(orderID)).map((tk) => tk.status);
  const disputeMails = async (orderID: number) => (await client.mailRows(orderID)).filter((m) => m.event === 'order_dispute');

  /** The provider's Dispute object of a paid intent. */
  function disputeOf(intent: PeerIntent, status: string, extra: Record<string, unknown> = {}) {
    return {
      id: `dp_${intent.id.slice(3)}`,
      object: 'dispute',
      amount: intent.amount,
      currency: intent.currency,
      charge: peer.chargeOf(intent.id).id,
      payment_intent: intent.id,
      status,
      reason: 'fraudulent',
      metadata: {},
      livemode: false,
      created: Math.floor(Date.now() / 1000),
      ...extra,
    };
  }
  const created = (intent: PeerIntent, options: { id?: string } = {}) =>
    client.deliver(peer.signedEvent('charge.dispute.created', disputeOf(intent, 'needs_response'), shop.secret, options));
  const closed = (intent: PeerIntent, status: 'won' | 'lost', options: { id?: string } = {}) =>
    client.deliver(peer.signedEvent('charge.dispute.closed', disputeOf(intent, status), shop.secret, options));

  async function paidOrder() {
    const order = await client.checkedOut([
      { productID: shop.ebook, Qty: 2, Price: 1500 },
      { productID: shop.book, Qty: 1, Price: 2500 },
    ]); // 5500, two e-book tokens
    expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
    return { ...order, intent: peer.intents.get(order.intent.id)! };
  }

  beforeAll(async () => ({ peer, smtp, t, shop, other, client } = await startShopHarness()));
  afterAll(() => stopShopHarness({ t, smtp, peer }));
  beforeEach(async () => {
    peer.heal();
    await drain(t);
    smtp.mails.length = 0;
  });

  it('created: Disputed, an admin mail, refunds refused with 409; a redelivery (or the same dispute again) changes nothing twice', async () => {
    const order = await paidOrder();
    const answer = await created(order.intent, { id: 'evt_dispute_created_1' });
    expect(answer).toMatchObject({ status: 200, body: { received: true } });
    expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', payment_status: 'Disputed', refunded_total: 0 });
    expect(await statuses(order.orderID)).toEqual(['pending', 'pending']); // open: the goods stay until the dispute is lost
    const status = await t.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(order._id)}`, undefined, shop.headers);
    expect(status.body.data).toMatchObject({ orderStatus: 'Paid', paymentStatus: 'Disputed' });
    const listed = await t.post('/ecommerce/listOrders', { paymentStatus: 'Disputed', perPage: 100 }, shop.adminHeaders);
    expect(listed.body.data.map((o: { orderID: number }) => o.orderID)).toContain(order.orderID);

    expect(await refundOrder({ _orderID: order._id, amount: 1000 })).toMatchObject({
      status: 409,
      body: { status: 'Failed', message: 'The payment of this order is disputed: it cannot be refunded' },
    });
    expect([...peer.refunds.values()].filter((r) => r.payment_intent === order.intent.id)).toEqual([]);

    expect((await created(order.intent, { id: 'evt_dispute_created_1' })).status).toBe(200); // the same event again
    expect((await created(order.intent)).status).toBe(200); // the same dispute in another event
    expect(await disputeMails(order.orderID)).toHaveLength(1);
    expect((await client.eventRows(order.orderID)).filter((e) => e.type === 'charge.dispute.created').map((e) => e.outcome)).toEqual([
      'disputed',
      'known',
    ]);
    await drain(t);
    const mails = mailsTo(smtp, `${shop.domain} - Payment disputed for order #${order.orderID}`);
    expect(mails).toHaveLength(1);
    expect(JSON.stringify(mails[0].parsed.to)).toContain(shop.ccEmail);
    expect(mails[0].parsed.text).toContain('$55.00');
    expect(mails[0].parsed.text).toContain('fraudulent');
  });

  it('closed lost: the tokens expire (reason dispute), the status stays Disputed, a mail; nothing after that changes it', async () => {
    const order = await paidOrder();
    expect((await created(order.intent)).status).toBe(200);
    const lost = peer.signedEvent('charge.dispute.closed', disputeOf(order.intent, 'lost'), shop.secret);
    expect((await client.deliver(lost)).status).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Disputed', refunded_total: 0 });
    expect(await client.tokenRows(order.orderID)).toEqual([
      expect.objectContaining({ status: 'expired', expired_reason: 'dispute' }),
      expect.objectContaining({ status: 'expired', expired_reason: 'dispute' }),
    ]);
    expect(await disputeMails(order.orderID)).toHaveLength(2);

    expect((await client.deliver(lost)).status).toBe(200); // redelivered
    expect((await closed(order.intent, 'won')).status).toBe(200); // a contradicting late event
    expect((await created(order.intent)).status).toBe(200); // a late created
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Disputed' });
    expect(await statuses(order.orderID)).toEqual(['expired', 'expired']);
    expect(await disputeMails(order.orderID)).toHaveLength(2);
    await drain(t);
    expect(mailsTo(smtp, `${shop.domain} - Dispute lost for order #${order.orderID}`)).toHaveLength(1);
  });

  it('closed won: back to what the refunds left (Success, or Partially Refunded), the tokens untouched', async () => {
    const order = await paidOrder();
    expect((await created(order.intent)).status).toBe(200);
    expect((await closed(order.intent, 'won')).status).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Success', refunded_total: 0 });
    expect(await statuses(order.orderID)).toEqual(['pending', 'pending']);
    expect((await created(order.intent)).status).toBe(200); // late: the dispute is closed
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Success' });

    const refunded = await paidOrder();
    expect((await refundOrder({ _orderID: refunded._id, amount: 1500 })).body.data.paymentStatus).toBe('Partially Refunded');
    expect((await created(refunded.intent)).status).toBe(200);
    expect((await client.orderRow(refunded.orderID)).payment_status).toBe('Disputed');
    expect((await closed(refunded.intent, 'won')).status).toBe(200);
    expect(await client.orderRow(refunded.orderID)).toMatchObject({ payment_status: 'Partially Refunded', refunded_total: 1500 });
    await drain(t);
    expect(mailsTo(smtp, `${shop.domain} - Dispute won for order #${order.orderID}`)).toHaveLength(1);
  });

  it('a dispute lost after a refund in full that then fails: the tokens stay expired', async () => {
    const order = await paidOrder();
    const refund = await refundOrder({ _orderID: order._id });
    expect(refund.body.data.paymentStatus).toBe('Refunded');
    expect((await created(order.intent)).status).toBe(200);
    expect((await closed(order.intent, 'lost')).status).toBe(200);
    const failed = { ...peer.refunds.get(refund.body.data.refundID)!, status: 'failed' };
    expect((await client.deliver(peer.signedEvent('refund.updated', failed, shop.secret))).status).toBe(200);
    expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Disputed', refunded_total: 0 });
    expect(await client.tokenRows(order.orderID)).toEqual([
      expect.objectContaining({ status: 'expired', expired_reason: 'dispute' }),
      expect.objectContaining({ status: 'expired', expired_reason: 'dispute' }),
    ]);
  });

  it("another app's payment: nothing changes (its own secret is needed, and an event claiming this app finds no order)", async () => {
    const theirs = new ShopClient(t, peer, other);
    const order = await theirs.checkedOut([{ productID: other.ebook, Qty: 1, Price: 1500 }]);
    expect((await theirs.deliver(theirs.paid(order.intent))).status).toBe(200);
    const intent = peer.intents.get(order.intent.id)!;

    // Names only their intent: checked with their secret, so this app's signature is refused.
    expect((await created(intent)).status).toBe(400);
    // Claims this app in its metadata: verified as this app's, and no order of this app was paid with the intent.
    const claimed = disputeOf(intent, 'needs_response', { metadata: { appID: String(shop.appId) } });
    expect((await client.deliver(peer.signedEvent('charge.dispute.created', claimed, shop.secret))).status).toBe(200);
    const lost = disputeOf(intent, 'lost', { metadata: { appID: String(shop.appId) } });
    expect((await client.deliver(peer.signedEvent('charge.dispute.closed', lost, shop.secret))).status).toBe(200);
    expect(await theirs.orderRow(order.orderID)).toMatchObject({ payment_status: 'Success' });
    expect(await theirs.tokenRows(order.orderID)).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect(await disputeMails(order.orderID)).toEqual([]);
    const recorded: { outcome: string }[] = await t.dataSource.query(
      `SELECT outcome FROM core_payment_events WHERE app_id = $1 AND type LIKE 'charge.dispute.%' AND payment_intent_id = $2`,
      [shop.appId, intent.id],
    );
    expect(recorded.map((e) => e.outcome)).toEqual(['order_not_found', 'order_not_found']);
  });
});
