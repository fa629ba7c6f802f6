import { SessionTokensService } from '../../src/auth';
import { IdCipherService } from '../../src/common/id-cipher.service';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { prng } from '../support/prng';
import { TestApp, TestResponse } from '../support/test-app';
import { billing, drain, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

const SEED = Number(process.env.SHOP_INVARIANTS_SEED ?? 20261125);
const RUNS = Number(process.env.SHOP_INVARIANTS_RUNS ?? 24);

/**
 * Random interleavings of everything that can happen to one order and its tokens, over HTTP against the
 * real database and the payment double: addCart, removeCart, checkout, submitOrder, paymentComplete, the
 * webhook (delivered twice), redeem, expire and extend, by the order's guest, a customer holding its
 * encrypted id and a customer guessing its number. After each run the shop's invariants must hold:
 * - a Paid order was paid, in its currency, exactly its priced items (not Cancelled) as they are now,
 *   and the intent was made for its cart version;
 * - the tokens of an order equal the digital units it was paid for (none for New, none unpaid);
 * - no order changed customer after payment (its non-gift tokens belong to its customer);
 * - no token is active without an owner.
 */
describe('shop invariants under random interleavings', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let client: ShopClient;
  let ann: Record<string, string>;
  let mallory: Record<string, string>;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);

  async function customer(name: string): Promise<Record<string, string>> {
    const res = await t.post('/customers/signup', { email: `${name}${process.pid}@example.test`, password: 'Cust@1234' }, shop.headers);
    const id = t.get(IdCipherService).decryptId(shop.appId, res.body._id)!;
    const bearer = t.get(SessionTokensService).sign({ userId: id, appId: shop.appId, authTable: 'core_customers', role: null }, 'access');
    return { ...shop.headers, authorization: `Bearer ${bearer}` };
  }

  beforeAll(async () => {
    ({ peer, smtp, t, shop, client } = await startShopHarness());
    ann = await customer('ann');
    mallory = await customer('mallory');
  });
  afterAll(() => stopShopHarness({ t, smtp, peer }));

  it(`${RUNS} runs from seed ${SEED} keep every invariant`, async () => {
    const random = prng(SEED);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
    const lines = [
      { productID: shop.book, Qty: 1, Price: 2500 },
      { productID: shop.ebook, Qty: 2, Price: 1500 },
      { productID: shop.voucher, Qty: 1, Price: 4000, redeemStatus: 'gift' as const },
    ];
    const orders: number[] = [];

    for (let run = 0; run < RUNS; run++) {
      const order = await client.order([pick(lines)]);
      orders.push(order.orderID);
      const intents: string[] = [];
      const holder = () => pick([shop.headers, ann]); // who holds the encrypted id: the guest, or Ann signing in

      const operations: Record<string, () => Promise<unknown>> = {
        addCart: () => t.post('/ecommerce/addCart', { _orderID: order._id, items: [pick(lines)] }, holder()),
        removeCart: () => t.post('/ecommerce/removeCart', { sessionID: order._id, productID: pick(lines).productID }, holder()),
        checkout: async () => {
          const seen = await t.post('/ecommerce/getOrder', { _orderID: order._id }, shop.headers);
          const res = await t.post(
            '/ecommerce/checkout',
            { _orderID: order._id, amount: seen.body.data?.total ?? 0, data: billing('buyer@example.test') },
            holder(),
          );
          if (res.status === 201) intents.push(res.body.data.paymentIntentID);
        },
        submitOrder: () => t.post('/ecommerce/submitOrder', { orderID: order._id, paymentMethod: 'Order Only' }, holder()),
        webhookTwice: async () => {
          const intent = intents.at(-1);
          if (!intent) return;
          const delivery = client.paid(peer.intents.get(intent)!);
          await Promise.all([client.deliver(delivery), client.deliver(delivery)]);
        },
        paymentComplete: async () => {
          const intent = intents.at(-1);
          if (!intent) return;
          peer.succeed(intent);
          await t.post('/ecommerce/paymentComplete', { orderID: order._id, paymentIntentID: intent }, holder());
        },
        guess: () =>
          Promise.all([
            t.post('/ecommerce/getOrder', { orderID: order.orderID }, mallory).then(expectNotFound),
            t.post('/ecommerce/addCart', { orderID: order.orderID, items: [pick(lines)] }, mallory).then(expectNotFound),
          ]),
        redeem: async () => {
          const status = await t.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(order._id)}`, undefined, shop.headers);
          const gift = status.body.data?.giftTokens?.[0];
          if (gift) await Promise.all([ann, mallory].map((who) => t.post('/ecommerce/redeemToken', { tokenValue: gift.token_value }, who)));
        },
        expireOrExtend: async () => {
          const tokens = await client.tokenRows(order.orderID);
          if (!tokens.length) return;
          const token = pick(tokens);
          await Promise.all([
            t.post('/ecommerce/expireToken', { tokenId: token.id }, shop.adminHeaders),
            t.post('/ecommerce/extendToken', { tokenId: token.id, days: 3 }, shop.adminHeaders),
          ]);
        },
      };
      const names = Object.keys(operations);
      // Two or three waves of three to five concurrent operations: each wave races, waves follow each other.
      const waves = 2 + Math.floor(random() * 2);
      for (let wave = 0; wave < waves; wave++) {
        const batch = Array.from({ length: 3 + Math.floor(random() * 3) }, () => operations[pick(names)]);
        await Promise.all(batch.map((operation) => operation()));
      }
      // Finally the payment of the last checkout arrives, as it would.
      await operations.webhookTwice();
    }
    await drain(t);

    for (const orderId of orders) await expectInvariants(orderId);
    // The runs did reach the states that matter.
    const statuses = await sql(`SELECT orderstatus, count(*)::int AS n FROM core_orders WHERE id = ANY($1) GROUP BY 1`, [orders]);
    expect(statuses.find((s) => s.orderstatus === 'Paid')?.n ?? 0).toBeGreaterThan(0);
  });

  function expectNotFound(res: TestResponse): void {
    expect(res).toMatchObject({ status: 404, body: { message: 'Order not found' } });
  }

  async function expectInvariants(orderId: number): Promise<void> {
    const order = await client.orderRow(orderId);
    const items = (await client.itemRows(orderId)).filter((item) => item.ItemStatus !== 'Cancelled');
    const tokens = await client.tokenRows(orderId);
    const context = {
      orderId,
      order: { status: order.orderstatus, total: order.total, cart_version: order.cart_version },
      items: items.map((i) => [i.product_mid, i.Qty, i.ItemStatus]),
    };
    const digitalUnits = items.filter((item) => item.IsDigital === 1).reduce((sum, item) => sum + item.Qty, 0);
    const priced = items.reduce((sum, item) => sum + item.Qty * (item.Price + item.bond), 0);

    // Money: every payment the provider took for the order paid for it, or went back whole.
    const kept = [...peer.intents.values()]
      .filter((intent) => intent.metadata.orderID === String(orderId) && intent.status === 'succeeded' && intent.id !== order.AuthCode)
      .map((intent) => [intent.id, intent.amount - peer.chargeOf(intent.id).amount_refunded]);
    expect({ ...context, kept }).toEqual({ ...context, kept: kept.map(([id]) => [id, 0]) });
    if (order.orderstatus === 'New') {
      expect({ ...context, tokens: tokens.length }).toEqual({ ...context, tokens: 0 });
      return;
    }
    expect({ ...context, pending: items.filter((item) => item.ItemStatus === 'Pending').length }).toEqual({ ...context, pending: 0 });
    expect({ ...context, total: Number(order.total) }).toEqual({ ...context, total: priced });
    if (order.orderstatus === 'Paid') {
      const intent = peer.intents.get(order.AuthCode)!;
      expect({ ...context, paid: [intent.status, intent.amount, intent.currency, intent.metadata.cartVersion] }).toEqual({
        ...context,
        paid: ['succeeded', priced, order.currency, String(order.cart_version)],
      });
    } else {
      expect({ ...context, status: order.orderstatus, digitalUnits }).toEqual({ ...context, status: 'Ordered', digitalUnits: 0 }); // Order Only by a shopper
    }
    expect({ ...context, tokens: tokens.length }).toEqual({ ...context, tokens: digitalUnits });
    for (const token of tokens) {
      const item = items.find((i) => i.id === token.order_item_id)!;
      if (!item.RedeemStatus)
        expect({ ...context, token: token.id, owner: token.customer_id }).toEqual({
          ...context,
          token: token.id,
          owner: order.customer_id,
        });
      if (token.status === 'active')
        expect({ ...context, token: token.id, owned: token.customer_id !== null }).toEqual({ ...context, token: token.id, owned: true });
    }
    // After payment, nobody takes the order over, not even with its capability.
    const before = order.customer_id;
    await t.post(
      '/ecommerce/addCart',
      { _orderID: client.t.get(IdCipherService).encryptId(shop.appId, orderId), items: [{ productID: shop.book, Qty: 1, Price: 2500 }] },
      mallory,
    );
    expect((await client.orderRow(orderId)).customer_id).toBe(before);
  }
});
