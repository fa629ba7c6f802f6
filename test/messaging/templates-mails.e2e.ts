import { RESERVED_EVENTS } from '../../src/messaging';
import { OrderMailsService } from '../../src/orders/completion/order-mails.service';
import { RequestContext } from '../../src/common/request-context';
import { drain, mailsTo, ShopClient, ShopHarness, startShopHarness, stopShopHarness } from '../orders/checkout-helpers';

/**
 * Templates per tenant reach real mail (docs/messaging.md "Templates per tenant"): an app's own
 * order_confirmation and order_admin replace the repository's defaults on a real purchase, through the
 * outbox to the SMTP peer, while another app keeps the defaults; a test send goes to one address only.
 */
describe('notification templates: the mails they make', () => {
  let h: ShopHarness;
  const post = (path: string, body: unknown, headers = h.shop.adminHeaders) => h.t.post(`/message/templates/${path}`, body, headers);

  beforeAll(async () => {
    h = await startShopHarness();
  }, 60_000);
  afterAll(() => stopShopHarness(h));
  beforeEach(() => {
    h.smtp.mails.length = 0;
  });

  it("documents and checks every merge field of the confirmation's handlebars context", () => {
    const ctx = new RequestContext('test', '127.0.0.1', false, { id: 1, domain: 'd.example.test', name: 'D', logo: null } as never);
    const context = h.t
      .get(OrderMailsService)
      .confirmationContext(ctx, { id: 1, currency: 'aud', order_date: new Date() } as never, [], []);
    expect(Object.keys(RESERVED_EVENTS.order_confirmation.fields).sort()).toEqual(Object.keys(context).sort());
  });

  it("sends the app's own confirmation and admin mail on a real purchase; another app keeps the defaults", async () => {
    const created = await post('create', {
      event: 'order_confirmation',
      subject: 'Thanks from [siteName]: order [orderId]',
      content:
        '<h1>Order [orderId]</h1><p>Dear [billingName],</p><p class="lines">[items]</p><table><tr><td>Total</td><td>[total]</td></tr></table><p>[closing]</p>',
      bcc: `archive-${process.pid}@example.test`,
    });
    expect(created.status).toBe(200);
    expect(
      (
        await post('create', {
          event: 'order_admin',
          subject: 'New order [orderId] on [domain]',
          content: '<p>[items]</p><p>Total [total]</p>',
        })
      ).status,
    ).toBe(200);

    const order = await h.client.checkedOut([
      { productID: h.shop.book, Qty: 2, Price: 2500 },
      { productID: h.shop.tent, Qty: 1, Price: 10000 },
    ]);
    expect((await h.client.deliver(h.client.paid(order.intent))).status).toBe(200);
    expect(await drain(h.t)).toMatchObject({ sent: 2, failed: 0 });

    const [confirmation] = mailsTo(h.smtp, `Thanks from Tenant ${h.shop.appId}: order ${order.orderID}`);
    expect(confirmation).toBeDefined();
    expect(confirmation.envelope.to).toContain(h.shop.customerEmail);
    expect(confirmation.envelope.to).toContain(`archive-${process.pid}@example.test`);
    const html = String(confirmation.parsed.html);
    expect(html).toContain(`<h1>Order ${order.orderID}</h1>`);
    expect(html).toContain('Dear Ann Shopper,');
    expect(html).toContain('2 x Book @ $25.00 = $50.00 (GST $4.54)<br />\n1 x Tent hire @ $100.00 = $100.00 (GST $9.09), bond $50.00');
    expect(html).toContain('<td>$200.00</td>');
    expect(html).toContain('Thank you for your booking.');
    expect(confirmation.parsed.text).toContain('Total\t$200.00');

    const [admin] = mailsTo(h.smtp, `New order ${order.orderID} on ${h.shop.domain}`);
    expect(admin).toBeDefined();
    expect(admin.envelope.to.sort()).toEqual([h.shop.bccEmail, h.shop.ccEmail].sort());
    expect(admin.parsed.text).toContain('2 x Book @ $25.00\n1 x Tent hire @ $100.00 + bond $50.00');

    // The app's own refund notice.
    h.smtp.mails.length = 0;
    await post('create', {
      event: 'order_refund',
      subject: 'Refund [amount] for [orderId]',
      content: '<p>[amount] back, [remaining] left: [reason]</p>',
    });
    const refunded = await h.t.post(
      '/ecommerce/refundOrder',
      { _orderID: order._id, amount: 2500, reason: 'Returned' },
      h.shop.adminHeaders,
    );
    expect(refunded.status).toBe(200);
    await drain(h.t);
    const [refund] = mailsTo(h.smtp, `Refund $25.00 for ${order.orderID}`);
    expect(refund).toBeDefined();
    expect(String(refund.parsed.html)).toContain('<p>$25.00 back, $175.00 left: Returned</p>');

    // Another app: the repository's files, as before.
    h.smtp.mails.length = 0;
    const otherClient = new ShopClient(h.t, h.peer, h.other);
    const otherOrder = await otherClient.checkedOut([{ productID: h.other.book, Qty: 1, Price: 2500 }]);
    expect((await otherClient.deliver(otherClient.paid(otherOrder.intent))).status).toBe(200);
    await drain(h.t);
    expect(h.smtp.mails.map((m) => m.parsed.subject).sort()).toEqual(
      [
        `${h.other.domain} - Order confirmation #${otherOrder.orderID}`,
        `${h.other.domain} - Order#:${otherOrder.orderID} Submitted`,
      ].sort(),
    );

    // Disabled or deleted: the default again.
    h.smtp.mails.length = 0;
    await post('update', { event: 'order_confirmation', enabled: false });
    await post('delete', { event: 'order_admin' });
    const again = await h.client.checkedOut([{ productID: h.shop.book, Qty: 1, Price: 2500 }]);
    await h.client.deliver(h.client.paid(again.intent));
    await drain(h.t);
    expect(h.smtp.mails.map((m) => m.parsed.subject).sort()).toEqual(
      [`${h.shop.domain} - Order confirmation #${again.orderID}`, `${h.shop.domain} - Order#:${again.orderID} Submitted`].sort(),
    );
  });

  it('sends a test of a template to the one address given, through the outbox and the sender', async () => {
    await post('create', {
      event: 'welcome_test',
      subject: 'Welcome [firstname]',
      content: '<p>Hello [firstname] [lastname]</p>',
      bcc: 'never-for-tests@example.test',
    });
    const res = await post('testSend', { event: 'welcome_test', email: 'tester@example.test', data: { firstname: 'Cy' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ subject: 'Welcome Cy', missingFields: ['lastname'] });
    const [row] = await h.t.dataSource.query('SELECT status, event, notification_id FROM core_notification_log WHERE id = $1', [
      res.body.data.logId,
    ]);
    expect(row).toMatchObject({ status: 'Pending', event: 'welcome_test' });
    await drain(h.t);
    expect(h.smtp.mails).toHaveLength(1);
    const [mail] = h.smtp.mails;
    expect(mail.envelope.to).toEqual(['tester@example.test']);
    expect(mail.parsed.subject).toBe('TEST: Welcome Cy');
    expect(String(mail.parsed.html)).toContain('<p>Hello Cy [lastname]</p>');
    expect(mail.parsed.text).toContain('Hello Cy [lastname]');

    expect((await post('testSend', { event: 'welcome_test', email: 'not-an-address' })).body.errors[0].field).toBe('email');
    expect((await post('testSend', { event: 'nope', email: 'a@example.test' })).status).toBe(404);
    expect((await post('testSend', { event: 'welcome_test', email: 'a@example.test' }, h.other.adminHeaders)).status).toBe(404);
  });
});
