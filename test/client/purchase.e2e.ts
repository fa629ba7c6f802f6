import type { AddressInfo } from 'node:net';
import { createClient, type Client, type Schemas } from '../../client/src';
import { seedShop, ShopTenant } from '../orders/checkout-helpers';
import { ApiContract } from '../support/openapi-contract';
import { PaymentPeer } from '../support/payment-peer';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A whole purchase through the generated client (client/): a customer logs in, creates an order, fills the
 * cart and checks out; the payment provider delivers its signed webhook; the client polls the order status
 * and validates the token the purchase issued. The app listens on a real port, the client talks to it
 * with fetch, and every answer the client gets is also held to the OpenAPI document (an openapi-fetch
 * middleware runs the e2e contract check), as TestApp.request does.
 */
describe('a purchase through the generated client', () => {
  let peer: PaymentPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let baseUrl: string;
  const problems: string[] = [];

  /** A client of the shop's app, checked against the document. */
  function client(headers: Record<string, string> = {}): Client {
    const api = createClient({ baseUrl, headers: { 'site-id': String(shop.appId), ...headers } });
    const contract = ApiContract.of(t.app, t.config);
    api.use({
      async onResponse({ request, response }) {
        const sent: Record<string, string> = {};
        request.headers.forEach((value, name) => (sent[name] = value));
        const found = contract.check(
          { method: request.method, url: new URL(request.url).pathname, headers: sent },
          { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: await response.clone().text() },
        );
        problems.push(...found);
        return response;
      },
    });
    return api;
  }

  beforeAll(async () => {
    peer = await PaymentPeer.start();
    t = await startTestApp({ PAYMENT_API_URL: peer.url, NOTIFY_SENDER_ENABLED: 'false' });
    shop = await seedShop(t);
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await t?.close();
    await peer?.stop();
  });

  afterEach(() => {
    expect(problems).toEqual([]);
  });

  it('logs in, orders, pays, and sees the order paid and the token valid', async () => {
    const anonymous = client();

    // A wrong password: the failure is typed too.
    const refused = await anonymous.POST('/auth/login', {
      body: { email: shop.customerEmail, password: 'Wrong@1234', authTable: 'core_customers' },
    });
    expect(refused.response.status).toBe(401);
    expect(refused.error).toEqual({ status: 'Failed', message: 'Invalid credentials' });

    const login = await anonymous.POST('/auth/login', {
      body: { email: shop.customerEmail, password: 'Cust@1234', authTable: 'core_customers' },
    });
    expect(login.response.status).toBe(200);
    const token: Schemas['LoginTokens'] = login.data!.token;
    expect(token.user.email).toBe(shop.customerEmail);
    const customer = client({ authorization: `Bearer ${token.access_token}` });

    const created = await customer.POST('/ecommerce/createOrder', { body: {} });
    expect(created.response.status).toBe(201);
    const order = created.data!.data;
    expect(order).toMatchObject({ status: 'New', total: 0 });

    const cart = await customer.POST('/ecommerce/addCart', {
      body: { _orderID: order._id, items: [{ productID: shop.ebook, Qty: 2, Price: 1500 }] },
    });
    expect(cart.response.status).toBe(200);
    expect(cart.data!.data.total).toBe(3000);
    expect(cart.data!.data.items.map((item) => [item.product_mid, item.Qty, item.ItemStatus])).toEqual([[shop.ebook, 2, 'Pending']]);

    const checkout = await customer.POST('/ecommerce/checkout', {
      body: {
        _orderID: order._id,
        amount: 3000,
        data: { firstName: 'Cy', lastName: 'Buyer', email: shop.customerEmail, address: '1 Main St', suburb: 'Carlton', postCode: '3053' },
      },
    });
    expect(checkout.response.status).toBe(201);
    const { paymentIntentID, clientSecret } = checkout.data!.data;
    expect(clientSecret).toContain(paymentIntentID);

    const pending = await customer.GET('/ecommerce/orderStatus/{id}', { params: { path: { id: order._id } } });
    expect(pending.data!.data).toMatchObject({ orderStatus: 'New', orderStatusLabel: 'New', paymentStatus: '' });

    // The customer pays at the provider, which delivers the signed event to the webhook.
    const delivery = peer.signedEvent('payment_intent.succeeded', peer.succeed(paymentIntentID), shop.secret);
    const webhook = await fetch(`${baseUrl}/ecommerce/payment-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': delivery.signature },
      body: delivery.payload,
    });
    expect(webhook.status).toBe(200);
    expect(await webhook.json()).toEqual({ received: true });

    // The client polls the status until the webhook's completion shows (it is done by the time the webhook answers).
    let status: Schemas['OrderStatusDataDto'] | undefined;
    for (let attempt = 1; attempt <= 10 && status?.orderStatus !== 'Paid'; attempt++) {
      const polled = await customer.GET('/ecommerce/orderStatus/{id}', { params: { path: { id: order._id } } });
      status = polled.data!.data;
      if (status.orderStatus !== 'Paid') await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
    expect(status).toMatchObject({ orderStatus: 'Paid', orderStatusLabel: 'Paid', paymentStatus: 'Success' });

    // The E-book's access tokens (one per unit), the customer's own, valid for the product.
    const tokens = await customer.POST('/ecommerce/getCustomerTokens', { body: { productId: shop.ebook } });
    expect(tokens.data!.data).toHaveLength(2);
    const [first] = tokens.data!.data;
    expect(first).toMatchObject({ order_id: order.orderID, status: 'pending', activations: 0, maximum_activations: 5 });

    const valid = await anonymous.POST('/ecommerce/validateToken', { body: { tokenValue: first.token_value, productId: shop.ebook } });
    expect(valid.response.status).toBe(200);
    expect(valid.data).toMatchObject({
      status: 'Success',
      message: 'Token is valid',
      data: { id: first.id, token_value: first.token_value },
    });

    // A failed check is HTTP 200 too, in its own shape: the union type says which is which.
    const wrong = await anonymous.POST('/ecommerce/validateToken', { body: { tokenValue: '0'.repeat(64), productId: shop.ebook } });
    expect(wrong.response.status).toBe(200);
    expect(wrong.data).toEqual({ status: 'Failed', message: 'Token not found', data: null });
  });
});
