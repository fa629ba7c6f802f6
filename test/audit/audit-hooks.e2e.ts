import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { TestApp } from '../support/test-app';
import { drain, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from '../orders/checkout-helpers';

/**
 * The staff actions that change something write their audit row with the change (README "Audit log"):
 * refundOrder, cancelOrder, and the content lifecycle (publish, rollback, expire, delete).
 */
describe('audit rows of staff actions', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let client: ShopClient;

  const auditOf = (table: string, recordId: number) =>
    t.post('/staff/audit', { table, recordId: String(recordId) }, shop.adminHeaders).then((r) => {
      expect(r.status).toBe(200);
      return r.body.data as any[];
    });

  beforeAll(async () => ({ peer, smtp, t, shop, client } = await startShopHarness()), 60_000);
  afterAll(() => stopShopHarness({ t, smtp, peer }));
  beforeEach(() => drain(t));

  it('refundOrder and cancelOrder: order.refund and order.cancel with the fields they changed, by the admin', async () => {
    const order = await client.checkedOut([{ productID: shop.book, Qty: 2, Price: 2500 }]);
    expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
    const refunded = await t.post('/ecommerce/refundOrder', { _orderID: order._id, amount: 1000, reason: 'Scratched' }, shop.adminHeaders);
    expect(refunded.status).toBe(200);
    const cancelled = await t.post('/ecommerce/cancelOrder', { _orderID: order._id, reason: 'Changed mind' }, shop.adminHeaders);
    expect(cancelled.status).toBe(200);

    const rows = await auditOf('core_orders', order.orderID);
    expect(rows.map((r) => r.action)).toEqual(['order.cancel', 'order.refund', 'order.refund']);
    const [cancel, rest, first] = rows;
    expect(first).toMatchObject({
      actor: { id: shop.adminId, table: 'core_users' },
      changes: {
        payment_status: { before: 'Success', after: 'Partially Refunded' },
        refunded_total: { before: 0, after: 1000 },
        refund_id: { before: null, after: refunded.body.data.refundID },
        reason: { before: null, after: 'Scratched' },
      },
    });
    expect(rest.changes).toMatchObject({ payment_status: { before: 'Partially Refunded', after: 'Refunded' } });
    expect(cancel.changes).toMatchObject({ cancelled_items: { before: 0, after: 1 }, reason: { before: null, after: 'Changed mind' } });
    expect(cancel.ip).toEqual(expect.any(String));
  });

  it('a refused cancel writes no audit row', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const res = await t.post('/ecommerce/cancelOrder', { _orderID: order._id }, shop.adminHeaders);
    expect(res.status).toBe(200);
    const again = await t.post('/ecommerce/cancelOrder', { _orderID: order._id, reason: 'x'.repeat(501) }, shop.adminHeaders);
    expect(again.status).toBe(400);
    expect((await auditOf('core_orders', order.orderID)).map((r) => r.action)).toEqual(['order.cancel']);
  });

  it('content: edit, rollback, publish, expire, delete each write content.<action> of the record', async () => {
    const masterId = shop.book;
    const post = (action: string, body: Record<string, unknown>) =>
      t.post(`/content/${action}`, { table: 'core_products', masterId, ...body }, shop.adminHeaders);
    expect((await post('edit', { data: { title: 'Book, 2nd edition' } })).status).toBeLessThan(300);
    expect((await post('rollback', { toCurrentId: masterId })).status).toBe(200);
    expect((await post('publish', {})).status).toBe(200);
    expect((await post('expire', {})).status).toBe(200);
    expect((await post('delete', {})).status).toBe(200);
    const rows = await auditOf('core_products', masterId);
    const actions = rows.map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['content.rollback', 'content.publish', 'content.expire', 'content.delete']));
    expect(actions[0]).toBe('content.delete');
    const rollback = rows.find((r) => r.action === 'content.rollback');
    expect(rollback.changes.Status).toEqual({ before: 'Published', after: 'Rolled Back' });
    expect(rollback.changes.Current_ID.after).toBe(masterId);
    expect(rows.every((r) => r.actor?.id === shop.adminId)).toBe(true);
  });
});
