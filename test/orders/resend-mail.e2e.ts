import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { TestApp } from '../support/test-app';
import { drain, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/** POST /ecommerce/resendOrderMail (orders.resend): a completed order's confirmation or admin mail sent again. */
describe('resendOrderMail', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let client: ShopClient;
  const resend = (body: Record<string, unknown>) => t.post('/ecommerce/resendOrderMail', body, shop.adminHeaders);

  beforeAll(async () => ({ peer, smtp, t, shop, client } = await startShopHarness()));
  afterAll(() => stopShopHarness({ t, smtp, peer }));

  it("sends the confirmation again to the billing email, with the order's token values, and records it in the audit log", async () => {
    const order = await client.checkedOut([{ productID: shop.voucher, Qty: 1, Price: 4000, redeemStatus: 'gift' }]);
    expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
    await drain(t);
    const [token] = await client.tokenRows(order.orderID);
    smtp.mails.length = 0;

    const res = await resend({ _orderID: order._id, mail: 'confirmation' });
    expect(res).toMatchObject({ status: 200, body: { status: 'Success', data: { mails: 1 } } });
    await drain(t);
    expect(smtp.mails.map((m) => [m.envelope.to[0], m.parsed.subject])).toEqual([
      [shop.customerEmail, `${shop.domain} - Order confirmation #${order.orderID}`],
    ]);
    expect(smtp.mails[0].parsed.html).toContain(token.token_value);

    expect((await resend({ _orderID: order._id, mail: 'admin' })).body.data).toEqual({ mails: 1 });
    expect(
      await t.dataSource.query(
        `SELECT action, changes FROM core_audit_log WHERE app_id = $1 AND record_id = $2 AND action = 'order.resend' ORDER BY id`,
        [shop.appId, String(order.orderID)],
      ),
    ).toEqual([
      { action: 'order.resend', changes: { mail: { before: null, after: 'confirmation' }, mails: { before: null, after: 1 } } },
      { action: 'order.resend', changes: { mail: { before: null, after: 'admin' }, mails: { before: null, after: 1 } } },
    ]);
  });

  it('refuses an order not completed, a bad mail name, and an id that names no order of the app', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    expect(await resend({ _orderID: order._id, mail: 'confirmation' })).toMatchObject({
      status: 400,
      body: { message: 'Cannot resend the mails of an order that is New' },
    });
    expect((await resend({ _orderID: order._id, mail: 'invoice' })).body.errors).toEqual([
      { field: 'mail', message: 'mail must be one of confirmation, admin' },
    ]);
    // Not an order of this app (a tampered or unknown id): 404, as for every order route.
    expect((await resend({ _orderID: 'not-an-id', mail: 'admin' })).status).toBe(404);
  });
});
