import { createCipheriv, randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { SessionTokensService } from '../../src/auth';
import { IdCipherService } from '../../src/common/id-cipher.service';
import { product } from '../versioning/content-helpers';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { billing, drain, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/**
 * The shop as a hostile client tries it (docs/security.md): each case is one way that took paid goods or
 * another customer's order, and the property that now holds.
 */
describe('shop integrity', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let client: ShopClient;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);

  /** A customer who just signed up, with a bearer of their own. */
  async function newCustomer(): Promise<Record<string, string>> {
    const email = `mallory${Math.random().toString(36).slice(2)}@example.test`;
    const res = await t.post('/customers/signup', { email, password: 'Mall@1234' }, shop.headers);
    expect(res.status).toBe(200);
    const id = t.get(IdCipherService).decryptId(shop.appId, res.body._id)!;
    const bearer = t.get(SessionTokensService).sign({ userId: id, appId: shop.appId, authTable: 'core_customers', role: null }, 'access');
    return { ...shop.headers, authorization: `Bearer ${bearer}` };
  }

  beforeAll(async () => ({ peer, smtp, t, shop, client } = await startShopHarness()));
  afterAll(() => stopShopHarness({ t, smtp, peer }));
  beforeEach(() => drain(t));

  describe('1. an order belongs to whoever holds its capability', () => {
    it('a plain order id gives a customer nothing of a paid guest order, and the owner never changes', async () => {
      const guest = await client.checkedOut([{ productID: shop.voucher, Qty: 1, Price: 4000, redeemStatus: 'gift' }]);
      expect((await client.deliver(client.paid(guest.intent))).status).toBe(200);
      const before = await client.orderRow(guest.orderID);
      expect(before).toMatchObject({ orderstatus: 'Paid', customer_is_placeholder: true });

      const mallory = await newCustomer();
      for (const body of [{ orderID: guest.orderID }, { orderID: guest.orderID, appID: shop.appId }]) {
        expect(await t.post('/ecommerce/getOrder', body, mallory)).toMatchObject({
          status: 404,
          body: { status: 'Failed', message: 'Order not found' },
        });
      }
      for (const route of ['addCart', 'removeCart', 'submitOrder', 'paymentComplete', 'createPaymentIntent']) {
        const res = await t.post(
          `/ecommerce/${route}`,
          {
            orderID: guest.orderID,
            items: [{ productID: shop.book, Qty: 1, Price: 2500 }],
            productID: shop.book,
            paymentMethod: 'Order Only',
            paymentIntentID: guest.intent.id,
            amount: 4000,
          },
          mallory,
        );
        expect([400, 404]).toContain(res.status);
        expect(res.status === 404 || res.body.errors?.length > 0).toBe(true);
      }
      // Even with the capability, a customer bearer cannot take over an order that was paid.
      const read = await t.post('/ecommerce/getOrder', { _orderID: guest._id }, mallory);
      expect(read.status).toBe(200);
      expect(await client.orderRow(guest.orderID)).toMatchObject({ customer_id: before.customer_id, customer_is_placeholder: true });
    });

    it('enumerating plain ids claims no guest order; the encrypted id reconciles a New one, through a change only', async () => {
      const guests = await Promise.all([1, 2, 3].map(() => client.order([{ productID: shop.book, Qty: 1, Price: 2500 }])));
      const mallory = await newCustomer();
      for (const guest of guests) {
        expect((await t.post('/ecommerce/getOrder', { orderID: guest.orderID }, mallory)).status).toBe(404);
        expect(
          (await t.post('/ecommerce/addCart', { orderID: guest.orderID, items: [{ productID: shop.book, Qty: 1, Price: 2500 }] }, mallory))
            .status,
        ).toBe(404);
        expect(
          (await t.post('/ecommerce/checkout', { orderID: guest.orderID, amount: 2500, data: billing('m@example.test') }, mallory)).status,
        ).not.toBe(201);
      }
      const rows = await sql('SELECT customer_is_placeholder, total FROM core_orders WHERE id = ANY($1) ORDER BY id', [
        guests.map((g) => g.orderID),
      ]);
      expect(rows).toEqual(guests.map(() => ({ customer_is_placeholder: true, total: 2500 })));

      // Reading with the capability does not move the order; adding to its cart does (the guest signed in).
      const [first] = guests;
      const ann = await newCustomer();
      expect((await t.post('/ecommerce/getOrder', { _orderID: first._id }, ann)).status).toBe(200);
      expect((await client.orderRow(first.orderID)).customer_is_placeholder).toBe(true);
      expect(
        (await t.post('/ecommerce/addCart', { _orderID: first._id, items: [{ productID: shop.book, Qty: 1, Price: 2500 }] }, ann)).status,
      ).toBe(200);
      expect((await client.orderRow(first.orderID)).customer_is_placeholder).toBe(false);
      // Now it is Ann's: another customer, even with the capability, finds nothing.
      expect((await t.post('/ecommerce/getOrder', { _orderID: first._id }, mallory)).status).toBe(404);
      expect((await t.post('/ecommerce/getOrder', { orderID: first.orderID }, ann)).status).toBe(200);
    });

    it('a legacy bracket-form id is malleable, so it is no capability: an IV flipped to another id forges nothing', async () => {
      const mine = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }], shop.customerHeaders);
      const guest = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      // A legacy value of the customer's own order, as the old system handed it out (AES-CBC, IV in the value).
      const iv = randomBytes(16);
      const cipher = createCipheriv('aes-256-cbc', t.config.encryption.key, iv);
      const ciphertext = Buffer.concat([cipher.update(String(mine.orderID)), cipher.final()]).toString('hex');
      const legacy = (ivBytes: Buffer) => `[${ivBytes.toString('hex')}:${ciphertext}]`;
      expect((await t.post('/ecommerce/getOrder', { orderID: legacy(iv) }, shop.customerHeaders)).status).toBe(200);

      // Flipping IV bits turns it into the guest's order id without the key.
      const padded = (text: string) => Buffer.concat([Buffer.from(text), Buffer.alloc(16 - text.length, 16 - text.length)]);
      const flipped = Buffer.from(iv.map((byte, i) => byte ^ padded(String(mine.orderID))[i] ^ padded(String(guest.orderID))[i]));
      expect(t.get(IdCipherService).decryptId(shop.appId, legacy(flipped))).toBe(guest.orderID);
      const mallory = await newCustomer();
      for (const headers of [shop.headers, mallory]) {
        expect((await t.post('/ecommerce/getOrder', { orderID: legacy(flipped) }, headers)).status).toBe(404);
        expect((await t.post('/ecommerce/getOrder', { _orderID: legacy(flipped) }, headers)).status).toBe(404);
        expect(
          (await t.post('/ecommerce/addCart', { sessionID: legacy(flipped), productID: shop.book, quantity: 1, price: 2500 }, headers))
            .status,
        ).toBe(404);
        expect((await t.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(legacy(flipped))}`, undefined, headers)).status).toBe(
          404,
        );
      }
      expect(await client.orderRow(guest.orderID)).toMatchObject({ customer_is_placeholder: true, total: 2500 });
      expect((await t.post('/ecommerce/getOrder', { _orderID: legacy(flipped) }, shop.adminHeaders)).status).toBe(200); // an admin may name any order
    });
  });

  describe('2. a check and the act it guards see the same order', () => {
    it('submitOrder (Order Only) raced with addCart of digital items never issues unpaid tokens', async () => {
      for (let i = 0; i < 30; i++) {
        const order = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
        await Promise.all([
          t.post('/ecommerce/submitOrder', { orderID: order._id, paymentMethod: 'Order Only' }, shop.headers),
          t.post('/ecommerce/addCart', { _orderID: order._id, items: [{ productID: shop.ebook, Qty: 5, Price: 1500 }] }, shop.headers),
        ]);
        const row = await client.orderRow(order.orderID);
        const digital = (await client.itemRows(order.orderID)).filter((item) => item.IsDigital === 1);
        if (row.orderstatus === 'Ordered') expect(digital).toEqual([]);
        expect(await client.tokenRows(order.orderID)).toEqual([]);
      }
    });

    it('a payment for the same amount but another cart does not complete the order', async () => {
      // Priced and paid: a book and an e-book (4000); then swapped for a 4000 gift voucher before the event.
      const order = await client.checkedOut([
        { productID: shop.book, Qty: 1, Price: 2500 },
        { productID: shop.ebook, Qty: 1, Price: 1500 },
      ]);
      for (const productID of [shop.book, shop.ebook])
        expect((await t.post('/ecommerce/removeCart', { sessionID: order._id, productID }, shop.headers)).status).toBe(200);
      expect(
        (
          await t.post(
            '/ecommerce/addCart',
            { _orderID: order._id, items: [{ productID: shop.voucher, Qty: 1, Price: 4000, redeemStatus: 'gift' }] },
            shop.headers,
          )
        ).status,
      ).toBe(200);
      expect(Number((await client.orderRow(order.orderID)).total)).toBe(4000);

      expect(await client.deliver(client.paid(order.intent, { id: 'evt_swapped_cart' }))).toMatchObject({
        status: 200,
        body: { received: true },
      });
      expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'New', payment_status: null });
      expect((await client.eventRows(order.orderID)).map((e) => e.outcome)).toEqual(['cart_changed']);
      expect(await client.tokenRows(order.orderID)).toEqual([]);
      const complete = await t.post('/ecommerce/paymentComplete', { orderID: order._id, paymentIntentID: order.intent.id }, shop.headers);
      expect(complete).toMatchObject({
        status: 409,
        body: { status: 'Failed', message: 'The cart changed after this payment was made: check out again' },
      });

      // Checking out the new cart makes a new intent, and that payment completes it.
      const again = await client.checkout(order._id, 4000);
      expect(again.status).toBe(201);
      expect(again.body.data.paymentIntentID).not.toBe(order.intent.id);
      expect((await client.deliver(client.paid(peer.intents.get(again.body.data.paymentIntentID)!))).status).toBe(200);
      expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
      expect(await client.tokenRows(order.orderID)).toHaveLength(1);
    });
  });

  describe('3. money is an amount, a currency and a mode', () => {
    it("checkout refuses a currency other than the app's, naming currency, and charges in the app's currency", async () => {
      const order = await client.order([{ productID: shop.book, Qty: 4, Price: 2500 }]);
      const res = await client.checkout(order._id, 10000, { currency: 'vnd' });
      expect(res).toMatchObject({
        status: 400,
        body: { status: 'Failed', errors: [{ field: 'currency', message: expect.stringContaining('aud') }] },
      });
      expect((await client.orderRow(order.orderID)).paymentMethodRef).toBeNull();

      await sql(`UPDATE core_sites SET currency = 'usd' WHERE id = $1`, [shop.appId]);
      try {
        const usd = await client.checkout(order._id, 10000);
        expect(usd.status).toBe(201);
        expect(peer.intents.get(usd.body.data.paymentIntentID)).toMatchObject({ amount: 10000, currency: 'usd' });
        expect((await client.orderRow(order.orderID)).currency).toBe('usd');
        const created = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
        expect((await t.post('/ecommerce/getOrder', { _orderID: created._id }, shop.headers)).body.data.currency).toBe('usd');
        expect((await client.checkout(order._id, 10000, { currency: 'AUD' })).body.errors).toEqual([
          { field: 'currency', message: expect.stringContaining('usd') },
        ]);
      } finally {
        await sql(`UPDATE core_sites SET currency = 'aud' WHERE id = $1`, [shop.appId]);
      }
    });

    it('a signed event whose intent is in another currency, for the same number, completes nothing', async () => {
      const order = await client.checkedOut([{ productID: shop.book, Qty: 4, Price: 2500 }]);
      const paid = peer.succeed(order.intent.id);
      const delivery = peer.signedEvent('payment_intent.succeeded', { ...paid, currency: 'vnd' }, shop.secret, { id: 'evt_vnd' });
      expect(await client.deliver(delivery)).toMatchObject({ status: 200, body: { received: true } });
      expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'New', payment_status: null });
      expect((await client.eventRows(order.orderID)).map((e) => e.outcome)).toEqual(['currency_mismatch']);
      expect(await client.tokenRows(order.orderID)).toEqual([]);
    });
  });

  describe('4. webhook freshness both ways', () => {
    it('refuses a correctly signed event an hour in the future (and one an hour old), changing nothing', async () => {
      const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const now = Math.floor(Date.now() / 1000);
      for (const timestamp of [now + 3600, now - 3600]) {
        const res = await client.deliver(client.paid(order.intent, { timestamp, id: `evt_at_${timestamp}` }));
        expect(res).toMatchObject({ status: 400, body: { status: 'Failed', message: 'Invalid payment webhook signature' } });
      }
      expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'New' });
      expect(await client.eventRows(order.orderID)).toEqual([]);
      expect((await client.deliver(client.paid(order.intent, { timestamp: now + 60 }))).status).toBe(200); // clock skew within the tolerance
      expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
    });
  });
});

describe("shop integrity on a production instance: only the app's payment mode completes orders", () => {
  const PRODUCTION_ENV = {
    NODE_ENV: 'production',
    JWT_ACCESS_SECRET: 'prod-like-access-3f9a1c7e5b2d8f4a6c0e1b3d5f7a9c2e4',
    JWT_REFRESH_SECRET: 'prod-like-refresh-8b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2',
  };
  let peer: PaymentPeer;
  let t: TestApp;
  let appId: number;
  let book: number;
  let headers: Record<string, string>;
  let secret: string;

  const api = (route: string, body: Record<string, unknown>) => t.post(`/api/v2/ecommerce/${route}`, body, headers);
  const orderRow = async (id: number) => (await t.dataSource.query('SELECT * FROM core_orders WHERE id = $1', [id]))[0];

  async function newOrder(): Promise<{ _id: string; orderID: number }> {
    const created = await api('createOrder', { items: [{ productID: book, quantity: 1, price: 2500 }] });
    expect(created.status).toBe(201);
    return created.body.data;
  }

  beforeAll(async () => {
    peer = await PaymentPeer.start();
    t = await startTestApp({ ...PRODUCTION_ENV, PAYMENT_API_URL: peer.url, NOTIFY_SENDER_ENABLED: 'false' });
    const site = siteFixture({ payment_live_private_key: `sk_live_${Date.now()}` });
    const seeded = await t.seed({
      site,
      tables: { core_products: [product('Book', { price: 2500, tax: 227, meta_status: 'Published' })] },
    });
    appId = seeded.appID;
    book = seeded.ids.core_products[0];
    headers = { 'site-id': String(appId) };
    secret = site.payment_webhook_secret as string;
  });
  afterAll(async () => {
    await t?.close();
    await peer?.stop();
  });

  it('checkout uses the live key whatever `production` says; a test-mode intent completes nothing', async () => {
    const order = await newOrder();
    const res = await api('checkout', { _orderID: order._id, amount: 2500, production: false, data: billing('ann@example.test') });
    expect(res.status).toBe(201);
    const live = peer.intents.get(res.body.data.paymentIntentID)!;
    expect(live.livemode).toBe(true);

    // A test-mode intent with this order's metadata, made with the app's test key and paid with a test card.
    const { port } = new URL(peer.url);
    const testKey = new Stripe(`sk_test_${appId}`, { host: '127.0.0.1', port: Number(port), protocol: 'http', maxNetworkRetries: 0 });
    const forged = peer.intents.get(
      (await testKey.paymentIntents.create({ amount: 2500, currency: 'aud', metadata: { ...live.metadata } })).id,
    )!;
    expect(forged.livemode).toBe(false);
    peer.succeed(forged.id);
    // paymentComplete asks with the live key, which does not know a test-mode intent.
    const complete = await api('paymentComplete', { orderID: order._id, paymentIntentID: forged.id, production: false });
    expect(complete).toMatchObject({ status: 404, body: { status: 'Failed', message: 'Payment intent not found' } });
    const event = peer.signedEvent('payment_intent.succeeded', peer.intents.get(forged.id)!, secret, { id: 'evt_test_mode' });
    const delivered = await t.request('POST', '/api/v2/ecommerce/payment-webhook', event.payload, {
      'content-type': 'application/json',
      'stripe-signature': event.signature,
    });
    expect(delivered.status).toBe(200);
    expect(await orderRow(order.orderID)).toMatchObject({ orderstatus: 'New', payment_status: null });

    // The live payment completes it.
    const paid = peer.signedEvent('payment_intent.succeeded', peer.succeed(live.id), secret, { id: 'evt_live_mode' });
    expect(
      (
        await t.request('POST', '/api/v2/ecommerce/payment-webhook', paid.payload, {
          'content-type': 'application/json',
          'stripe-signature': paid.signature,
        })
      ).status,
    ).toBe(200);
    expect(await orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', AuthCode: live.id });
  });

  it('an app marked payment_test_mode pays in test mode, and /getApp hands out its test public key', async () => {
    await t.dataSource.query('UPDATE core_sites SET payment_test_mode = true WHERE id = $1', [appId]);
    try {
      const app = await t.post('/api/v2/getApp', {}, headers);
      expect(app.body).toMatchObject({ payment_test_public_key: `pk_test_${appId}` });
      expect(app.body.payment_live_public_key).toBeUndefined();
      const order = await newOrder();
      const res = await api('checkout', { _orderID: order._id, amount: 2500, production: true, data: billing('ann@example.test') });
      expect(res.status).toBe(201);
      const intent = peer.intents.get(res.body.data.paymentIntentID)!;
      expect(intent.livemode).toBe(false);
      peer.succeed(intent.id);
      expect(await api('paymentComplete', { orderID: order._id, paymentIntentID: intent.id })).toMatchObject({
        status: 200,
        body: { data: { orderStatus: 'Paid' } },
      });
    } finally {
      await t.dataSource.query('UPDATE core_sites SET payment_test_mode = false WHERE id = $1', [appId]);
    }
  });
});
