import { IdCipherService } from '../../src/common/id-cipher.service';
import { qrContent, qrPng } from '../../src/orders/completion/order-qr';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { TestApp } from '../support/test-app';
import { drain, mailsTo, seedShop, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/**
 * Order completion over HTTP, end to end (README "Orders and cart"):
 * createOrder → addCart → checkout → the provider's signed payment_intent.succeeded → Paid, items
 * Ordered, the two emails through the outbox to a real SMTP server, tokens issued; submitOrder (Order
 * Only, REDO), a token provisioning failure that rolls back neither the order nor the emails,
 * orderStatus and genCode.
 */
describe('order completion', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let other: ShopTenant;
  let client: ShopClient;

  const NOT_FOUND = { status: 'Failed', message: 'Order not found' };
  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const orderStatus = (id: string, headers = shop.headers) =>
    t.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(id)}`, undefined, headers);
  const submitOrder = (body: Record<string, unknown>, headers = shop.headers) =>
    t.post('/ecommerce/submitOrder', { appID: shop.appId, ...body }, headers);

  beforeAll(async () => ({ peer, smtp, t, shop, other, client } = await startShopHarness()));
  afterAll(() => stopShopHarness({ t, smtp, peer }));
  beforeEach(async () => {
    await drain(t); // nothing of an earlier test left to send
    smtp.mails.length = 0;
  });

  it('completes a paid order: Paid, items Ordered, both emails with their recipients and contents, tokens issued, gift tokens in orderStatus', async () => {
    const order = await client.checkedOut(
      [
        { productID: shop.book, Qty: 2, Price: 2500 },
        { productID: shop.ebook, Qty: 2, Price: 1500 },
        { productID: shop.tent, Qty: 1, Price: 10000 },
        { productID: shop.voucher, Qty: 1, Price: 4000, redeemStatus: 'gift' },
      ],
      shop.customerHeaders,
    );
    expect(order.total).toBe(2 * 2500 + 2 * 1500 + (10000 + 5000) + 4000);
    const before = await orderStatus(order._id);
    expect(before.body).toMatchObject({ status: 'Success', data: { orderStatus: 'New', orderStatusLabel: 'New', paymentStatus: '' } });
    expect(before.body.data.giftTokens).toBeUndefined();

    const delivered = await client.deliver(client.paid(order.intent));
    expect(delivered.status).toBe(200);
    expect(delivered.body).toEqual({ received: true });

    const row = await client.orderRow(order.orderID);
    expect(row).toMatchObject({
      orderstatus: 'Paid',
      orderstatuslabel: 'Paid',
      payment_status: 'Success',
      paymentMethodRef: 'Card',
      AuthCode: order.intent.id,
      TrxnReference: order.intent.id,
      payment_intent_id: order.intent.id,
      BillingEmail: shop.customerEmail,
      customer_id: shop.customerId,
    });
    expect(Math.abs(new Date(row.order_date).getTime() - Date.now())).toBeLessThan(60_000);
    expect((await client.itemRows(order.orderID)).map((i) => i.ItemStatus)).toEqual(['Ordered', 'Ordered', 'Ordered', 'Ordered']);

    // Tokens: one per unit of each digital item; the e-book's from its template (owned by the purchaser), the gift's gift_pending and unowned.
    const items = await client.itemRows(order.orderID);
    const ebookItem = items.find((i) => i.product_mid === shop.ebook)!;
    const giftItem = items.find((i) => i.product_mid === shop.voucher)!;
    const tokens = await client.tokenRows(order.orderID);
    expect(tokens).toHaveLength(3);
    const ebookTokens = tokens.filter((tk) => tk.order_item_id === ebookItem.id);
    expect(ebookTokens).toHaveLength(2);
    for (const token of ebookTokens) {
      expect(token).toMatchObject({
        status: 'pending',
        customer_id: shop.customerId,
        maximum_activations: 5,
        activations: 0,
        product_id: ebookItem.product_ID,
      });
      expect(token.token_value).toMatch(/^[0-9a-f]{64}$/);
      const days = (new Date(token.expiry_date).getTime() - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(29.9);
      expect(days).toBeLessThan(30.1);
    }
    const [gift] = tokens.filter((tk) => tk.order_item_id === giftItem.id);
    expect(gift).toMatchObject({ status: 'gift_pending', customer_id: null, maximum_activations: 3, expiry_date: null });

    // Both emails were written in the completion's transaction; the sender sends them once.
    expect((await client.mailRows(order.orderID)).map((m) => [m.event, m.status])).toEqual([
      ['order_admin', 'Pending'],
      ['order_confirmation', 'Pending'],
    ]);
    expect(await drain(t)).toMatchObject({ sent: 2, failed: 0 });
    expect(smtp.mails).toHaveLength(2);

    const [admin] = mailsTo(smtp, `${shop.domain} - Order#:${order.orderID} Submitted`);
    expect(admin.envelope.from).toBe(shop.emailFrom);
    expect(admin.envelope.to.sort()).toEqual([shop.bccEmail, shop.ccEmail].sort());
    expect(admin.parsed.to).toMatchObject({ text: shop.ccEmail });
    expect(admin.parsed.cc).toBeUndefined();
    expect(admin.parsed.html).toBe(false);
    expect(admin.parsed.text).toContain(`Order ID: ${order.orderID}\n`);
    expect(admin.parsed.text).toContain(`Customer ID: ${shop.customerId}\n`);
    expect(admin.parsed.text).toContain('Total (inc GST): $270.00');

    const [confirmation] = mailsTo(smtp, `${shop.domain} - Order confirmation #${order.orderID}`);
    expect(confirmation.envelope.from).toBe(shop.emailFrom);
    expect(confirmation.envelope.to.sort()).toEqual([shop.bccEmail, shop.ccEmail, shop.customerEmail].sort());
    expect(confirmation.parsed.to).toMatchObject({ text: shop.customerEmail });
    expect(confirmation.parsed.cc).toMatchObject({ text: shop.ccEmail }); // the BCC administrator stays hidden
    const html = String(confirmation.parsed.html);
    expect(html).toContain(`Order ID: <strong class="order-id">${order.orderID}</strong>`);
    expect(html).toMatch(/Order date: <span class="order-date">\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC<\/span>/);
    expect(html).toContain('Dear Ann Shopper,');
    const lines = [...html.matchAll(/<tr class="item">([\s\S]*?)<\/tr>/g)].map((m) => m[1].replace(/\s+/g, ' '));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/Book <br \/><small class="tax">GST included: \$4\.54<\/small>.*>2<\/td>.*>\$25\.00<\/td>.*>\$50\.00<\/td>/);
    expect(lines[1]).toMatch(/E-book <br \/><small class="tax">GST included: \$2\.72<\/small>.*>2<\/td>.*>\$15\.00<\/td>.*>\$30\.00<\/td>/);
    expect(lines[2]).toMatch(/Tent hire .*GST included: \$9\.09.*Bond\/deposit: \$50\.00.*>1<\/td>.*>\$100\.00<\/td>.*>\$100\.00<\/td>/);
    expect(lines[3]).toContain(`Gift token: <code>${gift.token_value}</code>`);
    expect(html.match(/class="bond"/g)).toHaveLength(1);
    for (const token of ebookTokens) expect(html).not.toContain(token.token_value); // only gift values are mailed
    expect(html).toContain('Total (inc GST): $270.00');
    expect(html).toContain(`href="https://${shop.domain}/ecommerce/genCode/${order.orderID}"`);
    expect(html).toContain(`src="https://${shop.domain}/img/logo.png"`);
    expect(html).toContain('Thank you for your booking.');
    expect(html).not.toContain('Thank you for your order.');

    // orderStatus, now paid: the gift token with its product's title.
    const after = await orderStatus(order._id);
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual({
      orderStatus: 'Paid',
      orderStatusLabel: 'Paid',
      paymentStatus: 'Success',
      refundedTotal: 0,
      giftTokens: [
        {
          id: gift.id,
          token_value: gift.token_value,
          product_id: giftItem.product_ID,
          order_item_id: giftItem.id,
          status: 'gift_pending',
          product_title: 'Gift voucher',
        },
      ],
    });
    expect(await drain(t)).toMatchObject({ claimed: 0 });
  });

  it('closes with "Thank you for your order." without event items (a Cancelled event does not count), and omits giftTokens without gift items', async () => {
    const order = await client.order([
      { productID: shop.book, Qty: 1, Price: 2500 },
      { productID: shop.tent, Qty: 1, Price: 10000 },
    ]);
    await sql(`UPDATE core_order_items SET "ItemStatus" = 'Cancelled' WHERE "Order_ID" = $1 AND product_mid = $2`, [
      order.orderID,
      shop.tent,
    ]);
    const res = await client.checkout(order._id, 2500);
    expect(res.status).toBe(201);
    expect((await client.deliver(client.paid(peer.intents.get(res.body.data.paymentIntentID)!))).status).toBe(200);
    await drain(t);
    const [confirmation] = mailsTo(smtp, `${shop.domain} - Order confirmation #${order.orderID}`);
    const html = String(confirmation.parsed.html);
    expect(html).toContain('Thank you for your order.');
    expect(html).not.toContain('Tent hire');
    expect(html).toContain('Total (inc GST): $25.00');
    expect((await client.itemRows(order.orderID)).map((i) => i.ItemStatus)).toEqual(['Ordered', 'Cancelled']);
    expect((await orderStatus(order._id)).body.data).toEqual({
      orderStatus: 'Paid',
      orderStatusLabel: 'Paid',
      paymentStatus: 'Success',
      refundedTotal: 0,
    });
  });

  it('sends the admin email only when the order has no BillingEmail (legacy createPaymentIntent flow)', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const res = await t.post('/ecommerce/createPaymentIntent', { amount: 2500, currency: 'aud', orderID: order._id }, shop.headers);
    expect(res.status).toBe(200);
    expect((await client.deliver(client.paid(peer.intents.get(res.body.data.paymentIntentID)!))).status).toBe(200);
    expect((await client.mailRows(order.orderID)).map((m) => m.event)).toEqual(['order_admin']);
    await drain(t);
    expect(smtp.mails.map((m) => m.parsed.subject)).toEqual([`${shop.domain} - Order#:${order.orderID} Submitted`]);
  });

  it("writes no email for an app with disable_email, and mails the app's email_from when no administrator user is configured", async () => {
    const quiet = await seedShop(t);
    await sql('UPDATE core_sites SET disable_email = true WHERE id = $1', [quiet.appId]);
    const quietClient = new ShopClient(t, peer, quiet);
    const a = await quietClient.checkedOut([{ productID: quiet.book, Qty: 1, Price: 2500 }]);
    await quietClient.deliver(quietClient.paid(a.intent));
    expect((await client.orderRow(a.orderID)).orderstatus).toBe('Paid');
    expect(await client.mailRows(a.orderID)).toEqual([]);

    const plain = await seedShop(t, { recipients: false });
    const plainClient = new ShopClient(t, peer, plain);
    const b = await plainClient.checkedOut([{ productID: plain.book, Qty: 1, Price: 2500 }]);
    await plainClient.deliver(plainClient.paid(b.intent));
    await drain(t);
    const [admin] = mailsTo(smtp, `${plain.domain} - Order#:${b.orderID} Submitted`);
    expect(admin.envelope.to).toEqual([plain.emailFrom]);
    const [confirmation] = mailsTo(smtp, `${plain.domain} - Order confirmation #${b.orderID}`);
    expect(confirmation.envelope.to.sort()).toEqual([plain.customerEmail, plain.emailFrom].sort());
  });

  describe('token provisioning failure', () => {
    it('rolls back neither the order nor the emails; REDO later issues the tokens without emails, and a second REDO doubles nothing', async () => {
      const order = await client.checkedOut([
        { productID: shop.ebook, Qty: 2, Price: 1500 },
        { productID: shop.voucher, Qty: 1, Price: 4000, redeemStatus: 'gift_pending' },
      ]);
      // Every token insert of this app now fails (a CHECK added for the test, not checked against existing rows).
      await sql(`ALTER TABLE core_tokens ADD CONSTRAINT test_tokens_blocked CHECK (app_id <> ${shop.appId}) NOT VALID`);
      try {
        expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
      } finally {
        await sql('ALTER TABLE core_tokens DROP CONSTRAINT test_tokens_blocked');
      }
      expect(await client.orderRow(order.orderID)).toMatchObject({
        orderstatus: 'Paid',
        payment_status: 'Success',
        AuthCode: order.intent.id,
      });
      expect((await client.itemRows(order.orderID)).map((i) => i.ItemStatus)).toEqual(['Ordered', 'Ordered']);
      expect(await client.tokenRows(order.orderID)).toEqual([]);
      expect((await client.mailRows(order.orderID)).map((m) => m.event)).toEqual(['order_admin', 'order_confirmation']);
      expect((await client.eventRows(order.orderID)).map((e) => e.outcome)).toEqual(['completed']);
      await drain(t);
      expect(smtp.mails).toHaveLength(2);
      expect((await orderStatus(order._id)).body.data.giftTokens).toEqual([]);

      smtp.mails.length = 0;
      const redo = await submitOrder({ orderID: order._id, paymentMethod: 'REDO' }, shop.adminHeaders);
      expect(redo.status).toBe(200);
      expect(redo.body).toMatchObject({
        status: 'Success',
        message: 'Order completion re-run',
        data: { orderStatus: 'Paid', orderStatusLabel: 'Paid', paymentStatus: 'Success' },
      });
      const tokens = await client.tokenRows(order.orderID);
      expect(tokens.map((tk) => tk.status).sort()).toEqual(['gift_pending', 'pending', 'pending']);
      expect(await client.orderRow(order.orderID)).toMatchObject({
        orderstatus: 'Paid',
        paymentMethodRef: 'Card',
        AuthCode: order.intent.id,
      });

      expect((await submitOrder({ orderID: order.orderID, paymentMethod: 'REDO' }, shop.adminHeaders)).status).toBe(200);
      expect((await client.tokenRows(order.orderID)).map((tk) => tk.id)).toEqual(tokens.map((tk) => tk.id));
      expect(await client.mailRows(order.orderID)).toHaveLength(2);
      expect(await drain(t)).toMatchObject({ claimed: 0 });
      expect(smtp.mails).toHaveLength(0);
      expect((await orderStatus(order._id)).body.data.giftTokens).toHaveLength(1);
    });
  });

  describe('submitOrder', () => {
    it('Order Only: Ordered with payment_status Success and no payment reference, both emails; a retried submit answers the same', async () => {
      const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      await client.checkout(order._id, 2500); // billing fields saved (and an intent nobody pays)
      const res = await submitOrder({ orderID: order._id, paymentMethod: 'Order Only', notes: 'Pay on pickup' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'Success',
        message: 'Order submitted',
        data: { orderStatus: 'Ordered', orderStatusLabel: 'Ordered', paymentStatus: 'Success' },
      });
      expect(await client.orderRow(order.orderID)).toMatchObject({
        orderstatus: 'Ordered',
        payment_status: 'Success',
        paymentMethodRef: 'Order Only',
        AuthCode: null,
        TrxnReference: null,
        notes: 'Pay on pickup',
      });
      expect((await client.itemRows(order.orderID)).map((i) => i.ItemStatus)).toEqual(['Ordered']);
      expect((await client.mailRows(order.orderID)).map((m) => m.event)).toEqual(['order_admin', 'order_confirmation']);

      const again = await submitOrder({ orderID: order._id, paymentMethod: 'Order Only' });
      expect(again.status).toBe(200);
      expect(again.body.data.orderStatus).toBe('Ordered');
      expect(await client.mailRows(order.orderID)).toHaveLength(2);

      // An Ordered order is not paid by card afterwards: money that still arrives goes back, and the admins are told.
      const intent = peer.intents.get((await client.orderRow(order.orderID)).payment_intent_id)!;
      expect((await client.deliver(client.paid(intent))).status).toBe(200);
      expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Ordered', AuthCode: null, refunded_total: 0 });
      expect((await client.eventRows(order.orderID)).map((e) => e.outcome)).toEqual(['already_complete']);
      expect((await client.mailRows(order.orderID)).map((m) => m.event)).toEqual([
        'order_admin',
        'order_confirmation',
        'order_auto_refund',
      ]);
      expect(
        await client.t.dataSource.query('SELECT source, status, amount, payment_intent_id FROM core_refunds WHERE order_id = $1', [
          order.orderID,
        ]),
      ).toEqual([{ source: 'auto', status: 'succeeded', amount: 2500, payment_intent_id: intent.id }]);
      expect([...peer.refunds.values()].filter((r) => r.payment_intent === intent.id).map((r) => r.amount)).toEqual([2500]);
    });

    it('Order Only refuses an order with digital items for a shopper (400 naming paymentMethod); an app admin may submit it, tokens included', async () => {
      const order = await client.order([{ productID: shop.ebook, Qty: 1, Price: 1500 }]);
      const res = await submitOrder({ orderID: order._id, paymentMethod: 'Order Only' });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { field: 'paymentMethod', message: expect.stringContaining('Order Only cannot complete an order with digital items') },
      ]);
      expect((await client.orderRow(order.orderID)).orderstatus).toBe('New');

      const admin = await submitOrder({ orderID: order.orderID, paymentMethod: 'Order Only' }, shop.adminHeaders);
      expect(admin.status).toBe(200);
      expect(await client.tokenRows(order.orderID)).toHaveLength(1);
    });

    it('refuses a paid order, REDO of a New order, REDO without an admin bearer, other methods and bad bodies', async () => {
      const paid = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      await client.deliver(client.paid(paid.intent));
      expect(await submitOrder({ orderID: paid._id, paymentMethod: 'Order Only' })).toMatchObject({
        status: 400,
        body: { status: 'Failed', message: 'Cannot submit an order that is Paid' },
      });

      const fresh = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      expect(await submitOrder({ orderID: fresh._id, paymentMethod: 'REDO' }, shop.adminHeaders)).toMatchObject({
        status: 400,
        body: { status: 'Failed', message: 'Cannot redo the completion of an order that is New' },
      });
      expect(await submitOrder({ orderID: paid._id, paymentMethod: 'REDO' })).toMatchObject({
        status: 401,
        body: { status: 'Failed', message: 'Unauthorized' },
      });
      expect(await submitOrder({ orderID: paid._id, paymentMethod: 'REDO' }, shop.customerHeaders)).toMatchObject({
        status: 403,
        body: { status: 'Failed', message: 'Insufficient permissions' },
      });
      expect(
        await submitOrder({ orderID: paid._id, paymentMethod: 'REDO' }, { ...shop.headers, authorization: 'Bearer nonsense' }),
      ).toMatchObject({ status: 401 });
      expect(await submitOrder({ orderID: paid._id, paymentMethod: 'REDO' }, other.adminHeaders)).toMatchObject({
        status: 404,
        body: NOT_FOUND,
      }); // another app's admin, in its app

      const fields = async (body: Record<string, unknown>) => {
        const res = await submitOrder(body);
        expect(res.status).toBe(400);
        expect(res.body.message).toBe('Validation error');
        return res.body.errors.map((e: { field: string }) => e.field);
      };
      expect(await fields({ orderID: fresh._id, paymentMethod: 'Card' })).toEqual(['paymentMethod']);
      expect(await fields({ orderID: fresh._id, paymentMethod: 'Cash' })).toEqual(['paymentMethod']);
      expect(await fields({ orderID: fresh._id })).toEqual(['paymentMethod']);
      expect(await fields({ paymentMethod: 'Order Only' })).toEqual(['orderID']);
      expect(await fields({ orderID: true, paymentMethod: 'Order Only' })).toEqual(['orderID']);
      expect(await fields({ orderID: fresh._id, paymentMethod: 'Order Only', notes: 7 })).toEqual(['notes']);
      expect((await client.orderRow(fresh.orderID)).orderstatus).toBe('New');
    });

    it("answers unknown, tampered, another app's and guessed plain order ids like a missing order", async () => {
      const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const foreign = await new ShopClient(t, peer, other).order([{ productID: other.book, Qty: 1, Price: 2500 }]);
      const tampered = order._id.slice(0, -2) + (order._id.endsWith('AA') ? 'BB' : 'AA');
      for (const orderID of [tampered, foreign._id, 'x', order.orderID, 2_000_000_000]) {
        expect(await submitOrder({ orderID, paymentMethod: 'Order Only' })).toMatchObject({ status: 404, body: NOT_FOUND });
      }
      expect(await submitOrder({ _orderID: foreign._id, paymentMethod: 'Order Only' })).toMatchObject({ status: 404, body: NOT_FOUND });
      expect((await client.orderRow(foreign.orderID)).orderstatus).toBe('New');
    });
  });

  describe('orderStatus and genCode', () => {
    it("orderStatus answers unknown, tampered and another app's ids like a missing order", async () => {
      const order = await client.order([]);
      const foreign = await new ShopClient(t, peer, other).order([]);
      const tampered = order._id.slice(0, -2) + (order._id.endsWith('AA') ? 'BB' : 'AA');
      for (const id of [tampered, foreign._id, String(order.orderID), 'not-an-id']) {
        expect(await orderStatus(id)).toMatchObject({ status: 404, body: NOT_FOUND });
      }
      expect(t.get(IdCipherService).decryptId(shop.appId, order._id)).toBe(order.orderID);
      expect(await orderStatus(order._id)).toMatchObject({
        status: 200,
        body: { status: 'Success', data: { orderStatus: 'New', orderStatusLabel: 'New', paymentStatus: '' } },
      });
    });

    it('genCode answers a PNG QR code of https://<domain>/?code=<id>, and 400 for an id that is not a positive number', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/ecommerce/genCode/1234', headers: shop.headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.rawPayload.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(qrContent({ domain: shop.domain }, 1234)).toBe(`https://${shop.domain}/?code=1234`);
      expect(res.rawPayload.equals(await qrPng(`https://${shop.domain}/?code=1234`))).toBe(true);

      const byHost = await t.app.inject({ method: 'GET', url: '/ecommerce/genCode/1234', headers: { host: shop.domain } });
      expect(byHost.statusCode).toBe(200);
      expect(byHost.rawPayload.equals(res.rawPayload)).toBe(true);

      for (const id of ['abc', '0', '-1', '1.5', '99999999999']) {
        const bad = await t.request('GET', `/ecommerce/genCode/${id}`, undefined, shop.headers);
        expect(bad).toMatchObject({
          status: 400,
          body: { status: 'Failed', message: 'Validation error', errors: [{ field: 'id', message: 'id must be a positive integer' }] },
        });
      }
      const noApp = await t.request('GET', '/ecommerce/genCode/5');
      expect(noApp.status).toBe(400);
      expect(noApp.body.message).toMatch(/^Missing app context/);
    });
  });
});
