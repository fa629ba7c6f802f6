import { ShopClient, ShopHarness, startShopHarness, stopShopHarness } from '../orders/checkout-helpers';
import { TestApp } from '../support/test-app';
import { oneToken, seedShop, Shop, tokenInDb } from './token-helpers';

const DAY = 86_400_000;

/**
 * Gift tokens stay gifts (PROPERTY 7): a gift nobody redeemed is still a gift after it expired and was
 * extended — gift_pending with the new expiry, refused by validateToken and activateToken, redeemable —
 * while a redeemed gift (it has an owner) and any other token become active, as the token statuses of README "Digital access tokens" say.
 */
describe('gift tokens stay gifts through expireToken and extendToken', () => {
  let h: ShopHarness;
  let t: TestApp;
  let client: ShopClient;
  let s: Shop;

  beforeAll(async () => {
    h = await startShopHarness();
    ({ t, client } = h);
    s = await seedShop(t);
  });
  afterAll(() => stopShopHarness(h));

  const expire = (tokenId: number, headers = s.adminHeaders) => t.post('/ecommerce/expireToken', { tokenId }, headers);
  const extend = (tokenId: number, days: number, headers = s.adminHeaders) => t.post('/ecommerce/extendToken', { tokenId, days }, headers);
  const redeem = (tokenValue: string, headers: Record<string, string>) => t.post('/ecommerce/redeemToken', { tokenValue }, headers);
  const check = (path: 'validateToken' | 'activateToken', tokenValue: string, productId: number, headers: Record<string, string>) =>
    t.post(`/ecommerce/${path}`, { tokenValue, productId }, headers);

  it('a bought gift, expired and extended, is gift_pending again with the new expiry: refused by validate and activate, then redeemed', async () => {
    const { shop } = h;
    const order = await client.checkedOut([{ productID: shop.voucher, Qty: 1, Price: 4000, redeemStatus: 'gift' }], shop.customerHeaders);
    expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
    const [gift] = await client.tokenRows(order.orderID);
    expect(gift).toMatchObject({ status: 'gift_pending', customer_id: null, gift: true });

    expect((await expire(gift.id, shop.adminHeaders)).status).toBe(200);
    const extended = await extend(gift.id, 3, shop.adminHeaders);
    expect(extended.body).toMatchObject({ status: 'Success', message: 'Token extended by 3 day(s)' });
    const newExpiry = new Date(extended.body.data.newExpiry).getTime();
    expect(Math.abs(newExpiry - (Date.now() + 3 * DAY))).toBeLessThan(60_000);
    const row = (await t.request('GET', `/ecommerce/getToken/${gift.id}`, undefined, shop.adminHeaders)).body.data;
    expect(row).toMatchObject({ status: 'gift_pending', customer_id: null, activations: 0 });
    expect(new Date(row.expiry_date).getTime()).toBe(newExpiry);

    const refused = { status: 'Failed', message: 'Gift token must be redeemed first' };
    const validated = await check('validateToken', gift.token_value, shop.voucher, shop.headers);
    expect(validated.status).toBe(200);
    expect(validated.body).toMatchObject(refused);
    const activated = await check('activateToken', gift.token_value, shop.voucher, shop.headers);
    expect(activated.status).toBe(400);
    expect(activated.body).toMatchObject(refused);
    expect(await tokenInDb(t, gift.id)).toMatchObject({ status: 'gift_pending', activations: 0 });

    const redeemed = await redeem(gift.token_value, shop.customerHeaders);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.data).toMatchObject({ id: gift.id, customer_id: shop.customerId, status: 'active', activations: 1 });
    expect((await check('activateToken', gift.token_value, shop.voucher, shop.headers)).body).toMatchObject({
      status: 'Success',
      data: { activations: 2 },
    });
  });

  it('a redeemed gift, expired and extended, becomes active and stays its owner’s', async () => {
    const gift = await oneToken(t, s, s.digital[0], null, { gift: true });
    expect((await redeem(gift.token_value, s.customerHeaders[0])).status).toBe(200);
    await expire(gift.id);
    expect((await extend(gift.id, 2)).status).toBe(200);
    expect(await tokenInDb(t, gift.id)).toMatchObject({ status: 'active', customer_id: s.customers[0], gift: true });
    expect((await redeem(gift.token_value, s.customerHeaders[1])).body).toEqual({
      status: 'Failed',
      message: 'Token is not redeemable as a gift',
      data: null,
    });
    expect((await check('validateToken', gift.token_value, s.digital[0], s.headers)).body.message).toBe('Token is valid');
  });

  it('a token that is not a gift becomes active, also one without an owner (a guest’s purchase)', async () => {
    for (const owner of [s.customers[0], null]) {
      const token = await oneToken(t, s, s.digital[0], owner);
      await expire(token.id);
      expect((await extend(token.id, 1)).status).toBe(200);
      expect(await tokenInDb(t, token.id)).toMatchObject({ status: 'active', customer_id: owner, gift: false });
    }
  });

  it('an expired gift nobody redeemed: redeemToken answers Token has expired until it is extended', async () => {
    const gift = await oneToken(t, s, s.digital[0], null, { gift: true });
    await expire(gift.id);
    expect(await redeem(gift.token_value, s.customerHeaders[2])).toMatchObject({
      status: 400,
      body: { status: 'Failed', message: 'Token has expired', data: null },
    });
    await extend(gift.id, 1);
    expect((await extend(gift.id, 1)).status).toBe(200); // a second extension only moves the expiry
    expect((await tokenInDb(t, gift.id)).status).toBe('gift_pending');
    expect((await redeem(gift.token_value, s.customerHeaders[2])).body.data).toMatchObject({
      customer_id: s.customers[2],
      status: 'active',
    });
  });

  it('the table refuses an unexpired gift without an owner that is not gift_pending, and a gift_pending token that is not one', async () => {
    const gift = await oneToken(t, s, s.digital[0], null, { gift: true });
    const plain = await oneToken(t, s, s.digital[0], null);
    await expect(t.dataSource.query(`UPDATE core_tokens SET status = 'active' WHERE id = $1`, [gift.id])).rejects.toThrow(
      /core_tokens_gift_check/,
    );
    await expect(t.dataSource.query(`UPDATE core_tokens SET status = 'gift_pending' WHERE id = $1`, [plain.id])).rejects.toThrow(
      /core_tokens_gift_check/,
    );
  });
});
