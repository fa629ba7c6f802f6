import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { TestApp } from '../support/test-app';
import { userToken } from '../versioning/content-helpers';
import { drain, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/**
 * The order timeline and staff notes (README "Order timeline and notes"), on a real purchase through the
 * payment double: checkout, the provider's event, completion, the mails through the SMTP peer, a refund and
 * a note, in time order.
 */
describe('order timeline and notes', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let other: ShopTenant;
  let client: ShopClient;

  const timeline = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/ecommerce/orderTimeline', body, headers);
  const addNote = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/ecommerce/addOrderNote', body, headers);

  beforeAll(async () => ({ peer, smtp, t, shop, other, client } = await startShopHarness()), 60_000);
  afterAll(() => stopShopHarness({ t, smtp, peer }));

  it('shows a purchase with a refund and a note in time order', async () => {
    const order = await client.checkedOut([
      { productID: shop.book, Qty: 1, Price: 2500 },
      { productID: shop.ebook, Qty: 1, Price: 1500 },
    ]);
    expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
    await drain(t);
    const refund = await t.post(
      '/ecommerce/refundOrder',
      { _orderID: order._id, amount: 1500, reason: 'E-book returned' },
      shop.adminHeaders,
    );
    expect(refund.status).toBe(200);
    await drain(t);
    const note = await addNote({ _orderID: order._id, text: '  Customer called about the e-book  ' });
    expect(note.status).toBe(200);
    expect(note.body.data).toMatchObject({ author: shop.adminId, text: 'Customer called about the e-book' });

    const res = await timeline({ _orderID: order._id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ _id: order._id, orderID: order.orderID });
    const events: any[] = res.body.data.events;
    const times = events.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const types = events.map((e) => e.type);
    const firstIndex = (type: string) => types.indexOf(type);
    for (const type of ['created', 'item_added', 'checkout', 'payment_event', 'completed', 'refund', 'mail_written', 'mail_sent', 'note'])
      expect({ type, present: firstIndex(type) >= 0 }).toEqual({ type, present: true });
    expect(types.filter((type) => type === 'item_added')).toHaveLength(2);
    expect(firstIndex('created')).toBe(0);
    expect(firstIndex('checkout')).toBeLessThan(firstIndex('payment_event'));
    expect(firstIndex('payment_event')).toBeLessThan(firstIndex('refund'));
    expect(firstIndex('completed')).toBeLessThan(firstIndex('refund'));
    expect(types[types.length - 1]).toBe('note');

    expect(events.find((e) => e.type === 'checkout').details).toMatchObject({ paymentIntentID: order.intent.id, amount: order.total });
    expect(events.find((e) => e.type === 'payment_event').details).toMatchObject({ type: 'payment_intent.succeeded', status: 'processed' });
    expect(events.find((e) => e.type === 'completed').details).toMatchObject({ orderStatus: 'Paid' });
    expect(events.find((e) => e.type === 'refund').details).toMatchObject({
      refundID: refund.body.data.refundID,
      amount: 1500,
      status: 'succeeded',
      source: 'api',
      reason: 'E-book returned',
    });
    const mails = events.filter((e) => e.type === 'mail_sent').map((e) => e.details.event);
    expect(mails).toEqual(expect.arrayContaining(['order_confirmation']));
    expect(mails.length).toBeGreaterThanOrEqual(2); // the confirmation (and the admins'), then the refund's mail
    expect(events.find((e) => e.type === 'note').details).toMatchObject({ author: shop.adminId, text: 'Customer called about the e-book' });

    // The note is audited with the change.
    const audit = await t.post('/staff/audit', { action: 'order.note' }, shop.adminHeaders);
    expect(audit.body.data[0]).toMatchObject({
      table: 'core_order_notes',
      recordId: String(note.body.data.noteID),
      changes: { order_id: { before: null, after: order.orderID }, text: { before: null, after: 'Customer called about the e-book' } },
    });
  });

  it('shows a cancellation from its audit row', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    expect((await t.post('/ecommerce/cancelOrder', { _orderID: order._id }, shop.adminHeaders)).status).toBe(200);
    const events: any[] = (await timeline({ _orderID: order._id })).body.data.events;
    expect(events.map((e) => e.type)).toEqual(
      ['created', 'item_added', 'item_changed', 'cancelled'].filter((type) => events.some((e) => e.type === type)),
    );
    expect(events[events.length - 1]).toMatchObject({
      type: 'cancelled',
      details: { action: 'order.cancel', actor: { id: shop.adminId } },
    });
  });

  it('answers 400 naming the field, 404 for another app’s order, 401/403 by permission', async () => {
    const order = await client.order([]);
    for (const [body, field] of [
      [{}, '_orderID'],
      [{ _orderID: order._id }, 'text'],
      [{ _orderID: order._id, text: '' }, 'text'],
      [{ _orderID: order._id, text: '   ' }, 'text'],
      [{ _orderID: order._id, text: 'x'.repeat(2001) }, 'text'],
      [{ _orderID: order._id, text: 5 }, 'text'],
    ] as const) {
      const res = await addNote(body);
      expect({ body, status: res.status, named: (res.body.errors ?? []).some((e: { field: string }) => e.field === field) }).toEqual({
        body,
        status: 400,
        named: true,
      });
    }
    expect((await timeline({})).status).toBe(400);
    expect((await timeline({ _orderID: 'not-an-id' })).status).toBe(404); // a tampered id names no order, as everywhere
    expect((await addNote({ _orderID: order._id, text: 'x'.repeat(2000) })).status).toBe(200);

    const foreign = await new ShopClient(t, peer, other).order([]);
    expect((await timeline({ _orderID: foreign._id })).status).toBe(404);
    expect((await addNote({ _orderID: foreign._id, text: 'hi' })).status).toBe(404);

    expect((await timeline({ _orderID: order._id }, shop.headers)).status).toBe(401);
    const [{ id: userId }] = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 AND primary_role = 'user' LIMIT 1`, [
      shop.appId,
    ]);
    const plain = { ...shop.headers, authorization: `Bearer ${userToken(t, shop, userId)}` };
    const refused = await addNote({ _orderID: order._id, text: 'hi' }, plain);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain('orders.note');
    expect(JSON.stringify((await timeline({ _orderID: order._id }, plain)).body)).toContain('orders.view');
  });
});
