import Stripe from 'stripe';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { TestApp } from '../support/test-app';
import { drain, seedShop, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/**
 * POST /ecommerce/payment-webhook (and /payment-webhook/:appID): deliveries signed by the provider SDK's
 * own test helper with the app's payment_webhook_secret, verified on the raw bytes; each event processed
 * once, each order completed once, whatever arrives twice or at the same time.
 */
describe('payment webhook', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let other: ShopTenant;
  let client: ShopClient;

  const INVALID = { status: 'Failed', message: 'Invalid payment webhook signature' };
  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const paymentComplete = (body: Record<string, unknown>, headers = shop.headers) => t.post('/ecommerce/paymentComplete', body, headers);

  /** Nothing happened to the order: still New, no payment event, no mail. */
  async function untouched(orderID: number): Promise<void> {
    expect(await client.orderRow(orderID)).toMatchObject({ orderstatus: 'New', payment_status: null, AuthCode: null });
    expect(await sql('SELECT * FROM core_payment_events WHERE app_id = $1 AND order_id = $2', [shop.appId, orderID])).toEqual([]);
    expect(await client.mailRows(orderID)).toEqual([]);
  }

  beforeAll(async () => ({ peer, smtp, t, shop, other, client } = await startShopHarness()));
  afterAll(() => stopShopHarness({ t, smtp, peer }));
  beforeEach(async () => {
    await drain(t);
    smtp.mails.length = 0;
  });

  it('completes the order of a verified payment_intent.succeeded and records the event; the legacy path does the same', async () => {
    const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const delivery = client.paid(order.intent, { id: 'evt_main_route_1' });
    const res = await client.deliver(delivery);
    expect(res).toMatchObject({ status: 200, body: { received: true } });
    expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', AuthCode: order.intent.id });
    expect(await client.eventRows(order.orderID)).toEqual([
      {
        event_id: 'evt_main_route_1',
        app_id: shop.appId,
        type: 'payment_intent.succeeded',
        order_id: order.orderID,
        payment_intent_id: order.intent.id,
        status: 'processed',
        outcome: 'completed',
        received: expect.any(Date),
      },
    ]);

    const legacy = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    expect(await client.deliver(client.paid(legacy.intent), `/ecommerce/payment-webhook/${shop.appId}`)).toMatchObject({
      status: 200,
      body: { received: true },
    });
    expect((await client.orderRow(legacy.orderID)).orderstatus).toBe('Paid');
  });

  describe('signatures', () => {
    it("refuses a missing, malformed, expired or another app's signature, and an altered body, with 400, changing nothing", async () => {
      const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const good = client.paid(order.intent);

      expect(await client.deliver({ payload: good.payload })).toMatchObject({ status: 400, body: INVALID });
      expect(await client.deliver({ payload: good.payload, signature: '' })).toMatchObject({ status: 400, body: INVALID });
      expect(await client.deliver({ payload: good.payload, signature: 'garbage' })).toMatchObject({ status: 400, body: INVALID });
      expect(await client.deliver({ payload: good.payload, signature: 't=abc,v1=def' })).toMatchObject({ status: 400, body: INVALID });
      // Signed with the other app's secret, or with a made-up one.
      expect(await client.deliver(peer.signedEvent('payment_intent.succeeded', order.intent, other.secret))).toMatchObject({
        status: 400,
        body: INVALID,
      });
      expect(await client.deliver(peer.signedEvent('payment_intent.succeeded', order.intent, 'whsec_guess'))).toMatchObject({
        status: 400,
        body: INVALID,
      });
      // Older than the 300 s tolerance.
      const now = Math.floor(Date.now() / 1000);
      expect(await client.deliver(client.paid(order.intent, { timestamp: now - 301 }))).toMatchObject({ status: 400, body: INVALID });
      // The body changed after signing: another amount, another order, one byte of whitespace.
      expect(
        await client.deliver({ payload: good.payload.replace('"amount":2500', '"amount":1'), signature: good.signature }),
      ).toMatchObject({ status: 400, body: INVALID });
      expect(
        await client.deliver({ payload: good.payload.replace(`"orderID":"${order.orderID}"`, '"orderID":"1"'), signature: good.signature }),
      ).toMatchObject({ status: 400, body: INVALID });
      expect(await client.deliver({ payload: `${good.payload} `, signature: good.signature })).toMatchObject({
        status: 400,
        body: INVALID,
      });
      // Another header's signature on this body.
      expect(
        await client.deliver({
          payload: good.payload,
          signature: client.paid(order.intent).signature.replace(/v1=[0-9a-f]+/, `v1=${'0'.repeat(64)}`),
        }),
      ).toMatchObject({ status: 400, body: INVALID });
      await untouched(order.orderID);

      expect(await client.deliver(good)).toMatchObject({ status: 200, body: { received: true } });
      expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
    });

    it('refuses an event naming no app, an unknown app, a path app it does not name, and an app without a webhook secret', async () => {
      const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const intent = peer.succeed(order.intent.id);
      const variant = (metadata: Record<string, string>, secret = shop.secret) =>
        peer.signedEvent('payment_intent.succeeded', { ...intent, metadata }, secret);

      expect(await client.deliver(variant({ orderID: String(order.orderID) }))).toMatchObject({ status: 400, body: INVALID });
      expect(await client.deliver(variant({ appID: '999999', orderID: String(order.orderID) }))).toMatchObject({
        status: 400,
        body: INVALID,
      });
      expect(await client.deliver(variant({ appID: 'x', orderID: String(order.orderID) }))).toMatchObject({ status: 400, body: INVALID });
      expect(await client.deliver(client.paid(order.intent), `/ecommerce/payment-webhook/${other.appId}`)).toMatchObject({
        status: 400,
        body: INVALID,
      });
      expect(await client.deliver(client.paid(order.intent), '/ecommerce/payment-webhook/abc')).toMatchObject({
        status: 400,
        body: INVALID,
      });
      expect(await client.deliver({ payload: '{}', signature: 't=1,v1=00' })).toMatchObject({ status: 400, body: INVALID });
      expect(await client.deliver({ payload: 'not json', signature: 't=1,v1=00' })).toMatchObject({ status: 400 });

      // The other app's own secret on an event claiming the other app cannot complete this app's order.
      const claimOther = variant({ appID: String(other.appId), orderID: String(order.orderID) }, other.secret);
      expect(await client.deliver(claimOther)).toMatchObject({ status: 200, body: { received: true } });
      await untouched(order.orderID);
      expect(await sql('SELECT app_id, outcome FROM core_payment_events WHERE order_id = $1', [order.orderID])).toEqual([
        { app_id: other.appId, outcome: 'order_not_found' },
      ]);

      const noSecret = await seedShop(t);
      await sql('UPDATE core_sites SET payment_webhook_secret = NULL WHERE id = $1', [noSecret.appId]);
      const refused = await client.deliver(
        peer.signedEvent('payment_intent.succeeded', { ...intent, metadata: { appID: String(noSecret.appId), orderID: '1' } }, 'whsec_any'),
      );
      expect(refused.status).toBe(400);
      expect(refused.body.status).toBe('Failed');
      await untouched(order.orderID);
    });

    it("needs no site-id and is not confused by one: the tenant is the event's", async () => {
      const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const delivery = client.paid(order.intent);
      const res = await t.request('POST', '/ecommerce/payment-webhook', delivery.payload, {
        'content-type': 'application/json',
        'stripe-signature': delivery.signature,
        'site-id': String(other.appId),
      });
      expect(res).toMatchObject({ status: 200, body: { received: true } });
      expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
    });
  });

  it('answers 200 to other events and to events it cannot act on, changing nothing', async () => {
    const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    // (payment_intent.payment_failed and .canceled act: test/orders/refunds.e2e.ts)
    for (const type of ['payment_intent.created', 'payment_intent.processing', 'charge.succeeded', 'charge.captured']) {
      expect(await client.deliver(peer.signedEvent(type, order.intent, shop.secret))).toMatchObject({
        status: 200,
        body: { received: true },
      });
    }
    await untouched(order.orderID);

    // Verified, but naming an order that does not exist, or no order: 200, recorded, nothing else.
    const intent = peer.succeed(order.intent.id);
    const unknown = peer.signedEvent(
      'payment_intent.succeeded',
      { ...intent, metadata: { ...intent.metadata, orderID: '2000000000' } },
      shop.secret,
      { id: 'evt_unknown_order' },
    );
    expect(await client.deliver(unknown)).toMatchObject({ status: 200, body: { received: true } });
    const noOrder = peer.signedEvent('payment_intent.succeeded', { ...intent, metadata: { appID: String(shop.appId) } }, shop.secret, {
      id: 'evt_no_order',
    });
    expect(await client.deliver(noOrder)).toMatchObject({ status: 200, body: { received: true } });
    expect(
      await sql(
        `SELECT event_id, order_id, outcome FROM core_payment_events WHERE event_id IN ('evt_unknown_order', 'evt_no_order') ORDER BY event_id`,
      ),
    ).toEqual([
      { event_id: 'evt_no_order', order_id: null, outcome: 'order_not_found' },
      { event_id: 'evt_unknown_order', order_id: 2000000000, outcome: 'order_not_found' },
    ]);
    // Another app's order id in this app's event: not found (the order is looked up in the event's app only).
    const foreign = await new ShopClient(t, peer, other).order([{ productID: other.book, Qty: 1, Price: 2500 }]);
    const cross = peer.signedEvent(
      'payment_intent.succeeded',
      { ...intent, metadata: { appID: String(shop.appId), orderID: String(foreign.orderID) } },
      shop.secret,
    );
    expect(await client.deliver(cross)).toMatchObject({ status: 200 });
    expect((await client.orderRow(foreign.orderID)).orderstatus).toBe('New');
    await untouched(order.orderID);
  });

  it('does not complete an order whose cart changed after checkout: the payment no longer covers it and goes back (200, order New, refunded, admins told)', async () => {
    const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const added = await t.post(
      '/ecommerce/addCart',
      { _orderID: order._id, items: [{ productID: shop.tent, Qty: 1, Price: 10000 }] },
      shop.headers,
    );
    expect(added.status).toBeLessThan(300);
    expect(await client.deliver(client.paid(order.intent, { id: 'evt_short_payment' }))).toMatchObject({
      status: 200,
      body: { received: true },
    });
    expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'New', payment_status: null });
    expect((await client.eventRows(order.orderID)).map((e) => e.outcome)).toEqual(['amount_mismatch']);
    expect((await client.mailRows(order.orderID)).map((m) => [m.event, m.subject])).toEqual([
      ['order_auto_refund', `${shop.domain} - Payment refunded automatically for order #${order.orderID}`],
    ]);
    expect(await sql('SELECT source, status, amount FROM core_refunds WHERE order_id = $1', [order.orderID])).toEqual([
      { source: 'auto', status: 'succeeded', amount: 2500 },
    ]);
    expect(peer.chargeOf(order.intent.id)).toMatchObject({ amount_refunded: 2500, refunded: true });
    expect(await paymentComplete({ orderID: order._id, paymentIntentID: order.intent.id })).toMatchObject({
      status: 400,
      body: { status: 'Failed', message: 'Payment amount does not match the order total' },
    });
  });

  describe('exactly once', () => {
    it('20 concurrent deliveries of one event: one completion, one email pair, one token set', async () => {
      const order = await client.checkedOut([
        { productID: shop.ebook, Qty: 2, Price: 1500 },
        { productID: shop.voucher, Qty: 1, Price: 4000, redeemStatus: 'gift' },
      ]);
      const delivery = client.paid(order.intent, { id: 'evt_twenty_times' });
      const answers = await Promise.all(Array.from({ length: 20 }, () => client.deliver(delivery)));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      expect(answers.every((a) => a.body.received === true)).toBe(true);

      expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', AuthCode: order.intent.id });
      expect((await client.eventRows(order.orderID)).map((e) => [e.event_id, e.outcome])).toEqual([['evt_twenty_times', 'completed']]);
      expect(await client.tokenRows(order.orderID)).toHaveLength(3);
      expect((await client.mailRows(order.orderID)).map((m) => m.event)).toEqual(['order_admin', 'order_confirmation']);
      expect(await drain(t)).toMatchObject({ sent: 2 });
      expect(smtp.mails).toHaveLength(2);

      // Redelivered later, and the same payment announced by another event: nothing more.
      expect(await client.deliver(delivery)).toMatchObject({ status: 200 });
      expect(await client.deliver(client.paid(order.intent, { id: 'evt_same_intent_again' }))).toMatchObject({ status: 200 });
      expect((await client.eventRows(order.orderID)).map((e) => [e.event_id, e.outcome]).sort()).toEqual([
        ['evt_same_intent_again', 'already_complete'],
        ['evt_twenty_times', 'completed'],
      ]);
      expect(await client.tokenRows(order.orderID)).toHaveLength(3);
      expect(await client.mailRows(order.orderID)).toHaveLength(2);
    });

    it('a webhook racing paymentComplete: one completion; both answer success', async () => {
      for (let round = 0; round < 3; round++) {
        const order = await client.checkedOut([{ productID: shop.ebook, Qty: 1, Price: 1500 }], shop.customerHeaders);
        const delivery = client.paid(order.intent);
        const [hook, complete] = await Promise.all([
          client.deliver(delivery),
          paymentComplete({ orderID: order._id, paymentIntentID: order.intent.id }, shop.customerHeaders),
        ]);
        expect(hook).toMatchObject({ status: 200, body: { received: true } });
        expect(complete).toMatchObject({
          status: 200,
          body: { status: 'Success', data: { orderStatus: 'Paid', orderStatusLabel: 'Paid', paymentStatus: 'Success' } },
        });
        expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', AuthCode: order.intent.id });
        expect(await client.tokenRows(order.orderID)).toHaveLength(1);
        expect(await client.mailRows(order.orderID)).toHaveLength(2);
        expect((await client.eventRows(order.orderID)).map((e) => e.outcome)).toEqual([
          expect.stringMatching(/^(completed|already_complete)$/),
        ]);
      }
    });
  });

  describe('paymentComplete (legacy two-step flow)', () => {
    it('completes only an intent that succeeded for this app and order, then answers success again without asking the provider', async () => {
      const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const created = await t.post('/ecommerce/createPaymentIntent', { amount: 2500, currency: 'AUD', orderID: order._id }, shop.headers);
      expect(created).toMatchObject({
        status: 200,
        body: {
          status: 'Success',
          data: { clientSecret: expect.stringMatching(/_secret_/), paymentIntentID: expect.stringMatching(/^pi_/) },
        },
      });
      const intentId = created.body.data.paymentIntentID;
      expect(peer.intents.get(intentId)).toMatchObject({
        amount: 2500,
        currency: 'aud',
        metadata: { appID: String(shop.appId), orderID: String(order.orderID) },
      });

      expect(await paymentComplete({ orderID: order._id, paymentIntentID: intentId })).toMatchObject({
        status: 400,
        body: { status: 'Failed', message: 'Payment has not succeeded' },
      });
      await untouched(order.orderID);

      // An intent of another order of the app that succeeded does not pay this one.
      const another = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      peer.succeed(another.intent.id);
      expect(await paymentComplete({ orderID: order._id, paymentIntentID: another.intent.id })).toMatchObject({
        status: 400,
        body: { message: 'Payment intent does not belong to this order' },
      });
      expect(await paymentComplete({ orderID: order._id, paymentIntentID: 'pi_doesnotexist' })).toMatchObject({
        status: 404,
        body: { message: 'Payment intent not found' },
      });
      await untouched(order.orderID);

      peer.succeed(intentId);
      const done = await paymentComplete({ orderID: order._id, paymentIntentID: intentId });
      expect(done).toMatchObject({
        status: 200,
        body: { status: 'Success', data: { orderStatus: 'Paid', orderStatusLabel: 'Paid', paymentStatus: 'Success' } },
      });
      expect(await client.orderRow(order.orderID)).toMatchObject({
        orderstatus: 'Paid',
        AuthCode: intentId,
        TrxnReference: intentId,
        paymentMethodRef: 'Card',
      });
      expect(await client.mailRows(order.orderID)).toHaveLength(1); // no BillingEmail: the admin mail only

      const requests = peer.requests.length;
      expect(await paymentComplete({ orderID: order._id, paymentIntentID: intentId })).toMatchObject({
        status: 200,
        body: { data: { orderStatus: 'Paid' } },
      });
      expect(peer.requests.length).toBe(requests);
      // The webhook of the same payment arrives afterwards: nothing more.
      expect(await client.deliver(peer.signedEvent('payment_intent.succeeded', peer.intents.get(intentId)!, shop.secret))).toMatchObject({
        status: 200,
      });
      expect(await client.mailRows(order.orderID)).toHaveLength(1);
      expect((await client.eventRows(order.orderID)).map((e) => e.outcome)).toEqual(['already_complete']);
    });

    it('validates its body and answers foreign or tampered order ids like a missing order', async () => {
      const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const foreign = await new ShopClient(t, peer, other).order([{ productID: other.book, Qty: 1, Price: 2500 }]);
      const fields = async (body: Record<string, unknown>) => {
        const res = await paymentComplete(body);
        expect(res).toMatchObject({ status: 400, body: { status: 'Failed', message: 'Validation error' } });
        return res.body.errors.map((e: { field: string }) => e.field);
      };
      expect(await fields({ orderID: order._id })).toEqual(['paymentIntentID']);
      expect(await fields({ orderID: order._id, paymentIntentID: 12 })).toEqual(['paymentIntentID']);
      expect(await fields({ paymentIntentID: 'pi_x' })).toEqual(['orderID']);
      expect(await fields({ orderID: order._id, paymentIntentID: 'pi_x', production: 'yes' })).toEqual(['production']);
      for (const orderID of [foreign._id, order.orderID, 'garbage']) {
        expect(await paymentComplete({ orderID, paymentIntentID: 'pi_x' })).toMatchObject({
          status: 404,
          body: { status: 'Failed', message: 'Order not found' },
        });
      }
    });
  });

  it('shows the webhook and the payment routes in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/docs/openapi.json')).body;
    for (const path of [
      '/ecommerce/payment-webhook',
      '/ecommerce/payment-webhook/{appID}',
      '/ecommerce/checkout',
      '/ecommerce/createPaymentIntent',
      '/ecommerce/paymentComplete',
      '/ecommerce/submitOrder',
    ]) {
      expect(doc.paths[path]?.post?.summary).toEqual(expect.any(String));
    }
    for (const path of ['/ecommerce/orderStatus/{id}', '/ecommerce/genCode/{id}'])
      expect(doc.paths[path]?.get?.summary).toEqual(expect.any(String));
    expect(Stripe.webhooks.generateTestHeaderString).toEqual(expect.any(Function)); // the signing helper these tests use
  });
});
