import { PaymentPeer } from '../support/payment-peer';
import { startTestApp, TestApp, TestResponse } from '../support/test-app';
import { waitFor } from '../support/wait';
import { billing, seedShop, ShopClient, ShopTenant } from './checkout-helpers';

/**
 * POST /ecommerce/checkout and POST /ecommerce/createPaymentIntent against the provider's SDK pointed at
 * the local payment double: the amount is the order's total, the billing fields are saved, card data is
 * refused, the intent carries appID, orderID and customerID, and a retried checkout gets the same intent.
 */
describe('checkout', () => {
  let peer: PaymentPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let other: ShopTenant;
  let client: ShopClient;

  const NOT_FOUND = { status: 'Failed', message: 'Order not found' };
  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const fieldsOf = (res: TestResponse) => (res.body.errors ?? []).map((e: { field: string }) => e.field);
  const intentRequests = () => peer.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');

  beforeAll(async () => {
    peer = await PaymentPeer.start();
    t = await startTestApp({ PAYMENT_API_URL: peer.url, NOTIFY_SENDER_ENABLED: 'false' });
    shop = await seedShop(t);
    other = await seedShop(t);
    client = new ShopClient(t, peer, shop);
  });
  afterEach(() => peer.heal());
  afterAll(async () => {
    await t?.close();
    await peer?.stop();
  });

  it('answers 201 with clientSecret and paymentIntentID, saves the billing fields and creates the intent with appID, orderID and customerID', async () => {
    const order = await client.order([
      { productID: shop.book, Qty: 2, Price: 2500 },
      { productID: shop.tent, Qty: 1, Price: 10000 },
    ]);
    const before = intentRequests().length;
    const res = await client.checkout(order._id, 20000, { data: { ...billing(shop.customerEmail), firstName: '  Ann ' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      status: 'Success',
      data: { clientSecret: expect.stringMatching(/^pi_\w+_secret_\w+$/), paymentIntentID: expect.stringMatching(/^pi_/) },
      datetime: expect.any(String),
    });
    const intent = peer.intents.get(res.body.data.paymentIntentID)!;
    expect(intent).toMatchObject({ amount: 20000, currency: 'aud', client_secret: res.body.data.clientSecret, livemode: false });
    expect(intent.metadata).toEqual({
      appID: String(shop.appId),
      orderID: String(order.orderID),
      customerID: expect.stringMatching(/^\d+$/),
      cartVersion: '1',
    });

    const sent = intentRequests().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      apiKey: `sk_test_${shop.appId}`,
      idempotencyKey: expect.stringMatching(new RegExp(`^order-${shop.appId}-${order.orderID}-v1-20000-aud-\\d+$`)),
    });
    expect(sent[0].body).toMatchObject({ amount: '20000', currency: 'aud', metadata: intent.metadata });
    expect(JSON.stringify(sent[0].body)).not.toMatch(/Shopper|Carlton|3053|1 Main St/); // billing fields stay with the order

    expect(await client.orderRow(order.orderID)).toMatchObject({
      orderstatus: 'New',
      paymentMethodRef: 'Card',
      payment_intent_id: intent.id,
      currency: 'aud',
      total: 20000,
      BillingFirstName: 'Ann',
      BillingLastName: 'Shopper',
      BillingEmail: shop.customerEmail,
      BillingAddress: '1 Main St',
      BillingSuburb: 'Carlton',
      BillingPostCode: '3053',
      AuthCode: null,
      payment_status: null,
    });
  });

  it('returns the same intent to a retried checkout, and a new one once the cart (so the amount) changed', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const first = await client.checkout(order._id, 2500);
    const again = await Promise.all([client.checkout(order._id, 2500), client.checkout(order._id, 2500)]);
    for (const res of again) expect(res.body.data).toEqual(first.body.data);
    expect(
      [...peer.intents.values()].filter((i) => i.metadata.orderID === String(order.orderID) && i.metadata.appID === String(shop.appId)),
    ).toHaveLength(1);

    await t.post('/ecommerce/addCart', { _orderID: order._id, items: [{ productID: shop.book, Qty: 1, Price: 2500 }] }, shop.headers);
    expect(await client.checkout(order._id, 2500)).toMatchObject({
      status: 400,
      body: {
        message: 'Validation error',
        errors: [{ field: 'amount', message: 'amount must equal the order total (5000 in the smallest currency unit)' }],
      },
    });
    const changed = await client.checkout(order._id, 5000);
    expect(changed.status).toBe(201);
    expect(changed.body.data.paymentIntentID).not.toBe(first.body.data.paymentIntentID);
    expect((await client.orderRow(order.orderID)).payment_intent_id).toBe(changed.body.data.paymentIntentID);
  });

  it('refuses an amount that is not the order total (price tampering) with 400 naming amount, and asks the provider nothing', async () => {
    const order = await client.order([
      { productID: shop.tent, Qty: 1, Price: 10000 },
      { productID: shop.book, Qty: 1, Price: 2500 },
    ]);
    await sql(`UPDATE core_order_items SET "ItemStatus" = 'Cancelled' WHERE "Order_ID" = $1 AND product_mid = $2`, [
      order.orderID,
      shop.book,
    ]);
    await sql('UPDATE core_orders SET total = 1 WHERE id = $1', [order.orderID]); // a stale total column is not trusted
    const before = intentRequests().length;
    for (const amount of [1, 10000, 12500, 15001, 17500]) {
      const res = await client.checkout(order._id, amount);
      expect(res).toMatchObject({
        status: 400,
        body: {
          status: 'Failed',
          message: 'Validation error',
          errors: [{ field: 'amount', message: 'amount must equal the order total (15000 in the smallest currency unit)' }],
        },
      });
    }
    expect(intentRequests().length).toBe(before);
    expect(await client.orderRow(order.orderID)).toMatchObject({ paymentMethodRef: null, BillingEmail: null, payment_intent_id: null });
    expect((await client.checkout(order._id, 15000)).status).toBe(201);
  });

  it('refuses card data in data with 400 naming it; nothing is stored and nothing reaches the provider', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const before = intentRequests().length;
    for (const card of [
      { cardNumber: '4242424242424242' },
      { cvc: '123' },
      { card: { number: '4242424242424242', exp_month: 12 } },
      { number: '4242424242424242', exp: '12/30' },
    ]) {
      const res = await client.checkout(order._id, 2500, { data: { ...billing(shop.customerEmail), ...card } });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Validation error');
      expect(res.body.errors).toEqual([
        {
          field: 'data',
          message: expect.stringMatching(new RegExp(`^data\\.${Object.keys(card)[0]} is not accepted: data takes only the billing fields`)),
        },
      ]);
      expect(JSON.stringify(res.body)).not.toContain('4242');
    }
    expect(intentRequests().length).toBe(before);
    expect(JSON.stringify(peer.requests)).not.toContain('4242');
    const row = await client.orderRow(order.orderID);
    expect(JSON.stringify(row)).not.toContain('4242');
    expect(row).toMatchObject({ BillingEmail: null, paymentMethodRef: null });
  });

  it('validates the body with 400 naming the field, never 500', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const send = (body: Record<string, unknown>) => t.post('/ecommerce/checkout', body, shop.headers);
    const base = { _orderID: order._id, amount: 2500, data: billing(shop.customerEmail) };
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: 2500, data: base.data }, '_orderID'],
      [{ ...base, amount: undefined }, 'amount'],
      [{ ...base, amount: 25.5 }, 'amount'],
      [{ ...base, amount: '2500' }, 'amount'],
      [{ ...base, amount: 0 }, 'amount'],
      [{ ...base, amount: -2500 }, 'amount'],
      [{ ...base, amount: 1e12 }, 'amount'],
      [{ ...base, currency: 'dollars' }, 'currency'],
      [{ ...base, currency: 36 }, 'currency'],
      [{ ...base, production: 'true' }, 'production'],
      [{ ...base, data: undefined }, 'data'],
      [{ ...base, data: 'billing' }, 'data'],
      [{ ...base, data: [] }, 'data'],
      [{ ...base, data: { ...base.data, email: 'not-an-email' } }, 'data.email'],
      [{ ...base, data: { ...base.data, firstName: 7 } }, 'data.firstName'],
      [{ ...base, data: { ...base.data, postCode: 'x'.repeat(21) } }, 'data.postCode'],
      [{ ...base, data: { ...base.data, address: 'a\u0000b' } }, 'data.address'],
    ];
    for (const [body, field] of cases) {
      const res = await send(body);
      expect({ field, status: res.status, message: res.body.message }).toEqual({ field, status: 400, message: 'Validation error' });
      expect(fieldsOf(res)).toEqual([field]);
    }
    expect((await send({ amount: 2500, data: base.data })).body.errors).toEqual([{ field: '_orderID', message: '_orderID is required' }]);
    expect(await client.orderRow(order.orderID)).toMatchObject({ paymentMethodRef: null, BillingEmail: null });
    // Only some billing fields, a currency in capitals: fine.
    const partial = await send({ ...base, currency: 'AUD', data: { email: shop.customerEmail } });
    expect(partial.status).toBe(201);
    expect(await client.orderRow(order.orderID)).toMatchObject({
      BillingEmail: shop.customerEmail,
      BillingFirstName: null,
      currency: 'aud',
    });
  });

  it("answers unknown, tampered and another app's order ids like a missing order", async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const foreign = await new ShopClient(t, peer, other).order([{ productID: other.book, Qty: 1, Price: 2500 }]);
    const tampered = order._id.slice(0, -2) + (order._id.endsWith('AA') ? 'BB' : 'AA');
    for (const _orderID of [tampered, foreign._id, 'garbage']) {
      expect(await client.checkout(_orderID, 2500)).toMatchObject({ status: 404, body: NOT_FOUND });
    }
    // Another app's order through its own app context, by this app's encrypted id: not found either.
    expect(await t.post('/ecommerce/checkout', { _orderID: order._id, amount: 2500, data: {} }, other.headers)).toMatchObject({
      status: 404,
      body: NOT_FOUND,
    });
    // createPaymentIntent: a plain number only for the order's customer or an app admin.
    expect(await t.post('/ecommerce/createPaymentIntent', { orderID: order.orderID, amount: 2500 }, shop.headers)).toMatchObject({
      status: 404,
      body: NOT_FOUND,
    });
    expect((await t.post('/ecommerce/createPaymentIntent', { orderID: order.orderID, amount: 2500 }, shop.adminHeaders)).status).toBe(200);
    expect((await client.orderRow(foreign.orderID)).paymentMethodRef).toBeNull();
  });

  it('refuses an order that is paid or has nothing to pay for, and an app without the key for the mode', async () => {
    const paid = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    await client.deliver(client.paid(paid.intent));
    expect(await client.checkout(paid._id, 2500)).toMatchObject({
      status: 400,
      body: { status: 'Failed', message: 'Cannot check out an order that is Paid' },
    });

    const empty = await client.order([]);
    expect(await client.checkout(empty._id, 2500)).toMatchObject({
      status: 400,
      body: { status: 'Failed', message: 'The order has no items to pay for' },
    });

    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const before = await client.orderRow(order.orderID);
    expect(await client.checkout(order._id, 2500, { production: true })).toMatchObject({
      status: 400,
      body: {
        status: 'Failed',
        message: expect.stringMatching(/^Payments? (is|are) not configured for this app.*payment_live_private_key/),
      },
    });
    // Refused before anything is written (the billing fields and paymentMethodRef were saved first).
    expect(await client.orderRow(order.orderID)).toEqual(before);
    const intentRefused = await t.post(
      '/ecommerce/createPaymentIntent',
      { _orderID: order._id, amount: 2500, production: true },
      shop.headers,
    );
    expect(intentRefused.status).toBe(400);
    expect(await client.orderRow(order.orderID)).toEqual(before);
    await sql(`UPDATE core_sites SET payment_live_private_key = $2 WHERE id = $1`, [shop.appId, `sk_live_${shop.appId}`]);
    const live = await client.checkout(order._id, 2500, { production: true });
    expect(live.status).toBe(201);
    expect(peer.intents.get(live.body.data.paymentIntentID)!.livemode).toBe(true);

    const keyless = await seedShop(t);
    await sql('UPDATE core_sites SET payment_test_private_key = NULL WHERE id = $1', [keyless.appId]);
    const keylessClient = new ShopClient(t, peer, keyless);
    const k = await keylessClient.order([{ productID: keyless.book, Qty: 1, Price: 2500 }]);
    expect(await keylessClient.checkout(k._id, 2500)).toMatchObject({
      status: 400,
      body: {
        status: 'Failed',
        message: expect.stringMatching(/^Payments? (is|are) not configured for this app.*payment_test_private_key/),
      },
    });
  });

  it('links a placeholder order to the customer of the bearer: the intent names that customer', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    const res = await client.checkout(order._id, 2500, {}, shop.customerHeaders);
    expect(res.status).toBe(201);
    expect(peer.intents.get(res.body.data.paymentIntentID)!.metadata.customerID).toBe(String(shop.customerId));
    expect(await client.orderRow(order.orderID)).toMatchObject({ customer_id: shop.customerId, customer_is_placeholder: false });
    expect(
      await t.post(
        '/ecommerce/checkout',
        { _orderID: order._id, amount: 2500, data: {} },
        { ...shop.headers, authorization: 'Bearer nonsense' },
      ),
    ).toMatchObject({ status: 401 });
  });

  it('does not hold the order while the provider answers, and a provider failure is 502 with the billing fields kept for the retry', async () => {
    const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    peer.delayMs = 1500;
    const asked = intentRequests().length;
    const slow = client.checkout(order._id, 2500);
    await waitFor(() => intentRequests().length > asked, 5000, 'the checkout to ask the provider'); // it waits for the answer now
    const started = Date.now();
    const read = await t.post('/ecommerce/getOrder', { orderID: order._id }, shop.headers);
    const locked = await t.dataSource.transaction(async (em) =>
      em.query('SELECT id FROM core_orders WHERE id = $1 FOR UPDATE NOWAIT', [order.orderID]),
    );
    expect(read.status).toBe(200);
    expect(locked).toHaveLength(1); // NOWAIT: nobody holds the row
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await slow).status).toBe(201);

    const failing = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    peer.heal();
    peer.fail('http500');
    const res = await client.checkout(failing._id, 2500);
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ status: 'Failed', message: expect.stringMatching(/^Payment provider error: /) });
    expect(await client.orderRow(failing.orderID)).toMatchObject({
      orderstatus: 'New',
      BillingEmail: shop.customerEmail,
      payment_intent_id: null,
    });
    peer.heal();
    expect((await client.checkout(failing._id, 2500)).status).toBe(201);
  });

  describe('createPaymentIntent (legacy)', () => {
    it('answers 200 with the intent, without billing fields; validates its body', async () => {
      const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const res = await t.post('/ecommerce/createPaymentIntent', { amount: 2500, orderID: order._id }, shop.headers);
      expect(res).toMatchObject({
        status: 200,
        body: { status: 'Success', data: { clientSecret: expect.any(String), paymentIntentID: expect.stringMatching(/^pi_/) } },
      });
      expect(peer.intents.get(res.body.data.paymentIntentID)).toMatchObject({ amount: 2500, currency: 'aud' });
      expect(await client.orderRow(order.orderID)).toMatchObject({
        paymentMethodRef: 'Card',
        BillingEmail: null,
        payment_intent_id: res.body.data.paymentIntentID,
      });
      expect((await t.post('/ecommerce/createPaymentIntent', { amount: 2500, _orderID: order._id }, shop.headers)).body.data).toEqual(
        res.body.data,
      );

      const fields = async (body: Record<string, unknown>) => fieldsOf(await t.post('/ecommerce/createPaymentIntent', body, shop.headers));
      expect(await fields({ amount: 2500 })).toEqual(['orderID']);
      expect(await fields({ orderID: order._id })).toEqual(['amount']);
      expect(await fields({ orderID: order._id, amount: 2500, currency: 'a' })).toEqual(['currency']);
      expect(await fields({ orderID: order._id, amount: 2499 })).toEqual(['amount']);
      expect(await fields({ orderID: -3, amount: 2500 })).toEqual(['orderID']);
    });
  });
});
