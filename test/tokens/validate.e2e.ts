import { TestApp } from '../support/test-app';
import { backdateExpiry, customerBearer, oneToken, PUBLIC_ROW_KEYS, Shop, startTwoShops, templateFor, tokenInDb } from './token-helpers';

describe('POST /ecommerce/validateToken', () => {
  let t: TestApp;
  let a: Shop;
  let b: Shop;

  beforeAll(async () => ({ t, a, b } = await startTwoShops()));
  afterAll(() => t.close());

  const validate = (body: Record<string, unknown>, headers: Record<string, string> = a.headers) =>
    t.post('/ecommerce/validateToken', body, headers);

  describe('mode 1: tokenValue and productId', () => {
    it('answers Token is valid with the token row (no order_item_id) and changes nothing', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      const res = await validate({ tokenValue: token.token_value, productId: a.digital[0] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Token is valid' });
      expect(Object.keys(res.body.data).sort()).toEqual(PUBLIC_ROW_KEYS);
      expect(res.body.data).toMatchObject({
        id: token.id,
        token_value: token.token_value,
        product_id: a.digital[0],
        customer_id: a.customers[0],
        order_id: token.order_id,
        status: 'pending',
        expiry_date: null,
        activations: 0,
        maximum_activations: 3,
        last_activated: null,
      });
      expect(await tokenInDb(t, token.id)).toMatchObject({ status: 'pending', activations: 0 });
    });

    it('needs no bearer, but an invalid bearer is refused', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      expect(
        (await validate({ tokenValue: token.token_value, productId: a.digital[0] }, { ...a.headers, authorization: 'Bearer nonsense' }))
          .status,
      ).toBe(401);
      expect((await validate({ tokenValue: token.token_value, productId: a.digital[0] }, a.customerHeaders[1])).body.message).toBe(
        'Token is valid',
      );
    });

    it('Token not found: an unknown value, a token of another product, a version id instead of the master id, another app’s token (HTTP 200, data null)', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      const failed = { status: 'Failed', message: 'Token not found', data: null };
      for (const [body, headers] of [
        [{ tokenValue: 'f'.repeat(64), productId: a.digital[0] }, a.headers],
        [{ tokenValue: token.token_value, productId: a.digital[1] }, a.headers],
        [{ tokenValue: token.token_value, productId: a.digital[0] }, b.headers],
      ] as const) {
        const res = await validate(body, headers);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(failed);
      }
      const edit = await t.post('/content/edit', { table: 'core_products', masterId: a.digital[2], data: { price: 4321 } }, a.adminHeaders);
      const version = edit.body.data.Current_ID;
      const versioned = await oneToken(t, a, a.digital[2], a.customers[0], { productVersionId: version });
      expect((await validate({ tokenValue: versioned.token_value, productId: version })).body).toEqual(failed);
      expect((await validate({ tokenValue: versioned.token_value, productId: a.digital[2] })).body).toMatchObject({
        status: 'Success',
        data: { product_id: version },
      });
    });

    it('Token product version not found when the token’s product_id has no core_data row of the app', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0], { productVersionId: 987_654 });
      const res = await validate({ tokenValue: token.token_value, productId: a.digital[0] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Failed', message: 'Token product version not found', data: { id: token.id } });
    });

    it('a gift_pending token fails: Gift token must be redeemed first', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0], { gift: true });
      const res = await validate({ tokenValue: token.token_value, productId: a.digital[0] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'Failed',
        message: 'Gift token must be redeemed first',
        data: { id: token.id, status: 'gift_pending', customer_id: null },
      });
    });

    it('Token has expired: an expired token, and a token past its expiry date, which becomes expired', async () => {
      const expired = await oneToken(t, a, a.digital[0], a.customers[0]);
      await t.post('/ecommerce/expireToken', { tokenId: expired.id }, a.adminHeaders);
      expect((await validate({ tokenValue: expired.token_value, productId: a.digital[0] })).body).toMatchObject({
        status: 'Failed',
        message: 'Token has expired',
        data: { status: 'expired' },
      });

      const due = await oneToken(t, a, a.digital[0], a.customers[0]);
      await backdateExpiry(t, due.id);
      const res = await validate({ tokenValue: due.token_value, productId: a.digital[0] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Failed', message: 'Token has expired', data: { id: due.id, status: 'expired' } });
      expect((await tokenInDb(t, due.id)).status).toBe('expired');
    });

    it('a token with an expiry date still ahead is valid', async () => {
      await templateFor(t, a, a.digital[1], { expiry_days: 10 });
      const token = await oneToken(t, a, a.digital[1], a.customers[0]);
      expect((await validate({ tokenValue: token.token_value, productId: a.digital[1] })).body).toMatchObject({
        status: 'Success',
        data: { status: 'pending' },
      });
    });

    it('Token activation limit exceeded once activations reach the maximum', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      for (let i = 0; i < 3; i++)
        expect(
          (await t.post('/ecommerce/activateToken', { tokenValue: token.token_value, productId: a.digital[0] }, a.headers)).status,
        ).toBe(200);
      const res = await validate({ tokenValue: token.token_value, productId: a.digital[0] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'Failed',
        message: 'Token activation limit exceeded',
        data: { activations: 3, maximum_activations: 3, status: 'active' },
      });
    });

    it('names invalid fields with 400', async () => {
      const missing = await validate({ tokenValue: 'abc' });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({
        status: 'Failed',
        message: 'Validation error',
        errors: [{ field: 'productId', message: 'productId is required' }],
      });
      expect((await validate({ tokenValue: 'abc', productId: 'x' })).body.errors).toEqual([
        { field: 'productId', message: 'productId must be an integer' },
      ]);
      expect((await validate({ tokenValue: 5, productId: 1 })).body.errors).toEqual([
        { field: 'tokenValue', message: 'tokenValue must be a string' },
      ]);
      expect((await validate({ tokenValue: 'a'.repeat(101), productId: 1 })).body.errors).toEqual([
        { field: 'tokenValue', message: 'tokenValue must be at most 100 characters' },
      ]);
    });
  });

  describe('mode 2: productId and a customer bearer', () => {
    it('finds the customer’s valid token for the product', async () => {
      const token = await oneToken(t, a, a.digital[2], a.customers[1]);
      const res = await validate({ productId: a.digital[2] }, a.customerHeaders[1]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Token is valid', data: { id: token.id, customer_id: a.customers[1] } });
    });

    it('No valid token found for customer and product: none of that product, or only another customer’s', async () => {
      await oneToken(t, a, a.digital[0], a.customers[0]);
      const res = await validate({ productId: a.digital[0] }, a.customerHeaders[2]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'Failed', message: 'No valid token found for customer and product', data: null });
    });

    it('skips the customer’s spent tokens for a valid one, and reports the newest one’s failure when none is valid', async () => {
      const [x, c] = [a.digital[1], a.customers[2]];
      const spent = await oneToken(t, a, x, c);
      await t.post('/ecommerce/expireToken', { tokenId: spent.id }, a.adminHeaders);
      const fresh = await oneToken(t, a, x, c);
      expect((await validate({ productId: x }, a.customerHeaders[2])).body).toMatchObject({ status: 'Success', data: { id: fresh.id } });
      await backdateExpiry(t, fresh.id);
      const res = await validate({ productId: x }, a.customerHeaders[2]);
      expect(res.body).toMatchObject({ status: 'Failed', message: 'Token has expired', data: { id: fresh.id, status: 'expired' } });
      expect((await tokenInDb(t, fresh.id)).status).toBe('expired');
    });

    it('401 without tokenValue and without a customer bearer (none, an admin’s, an invalid one)', async () => {
      for (const headers of [a.headers, a.adminHeaders, a.userHeaders, { ...a.headers, authorization: 'Bearer x.y.z' }]) {
        const res = await validate({ productId: a.digital[0] }, headers);
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ status: 'Failed', message: 'Unauthorized' });
      }
      expect((await validate({ productId: a.digital[0], tokenValue: '' }, a.headers)).status).toBe(401);
    });

    it('a customer bearer of another app is refused, and never sees this app’s tokens', async () => {
      await oneToken(t, a, a.digital[0], a.customers[0]);
      const foreign = { ...a.headers, authorization: `Bearer ${customerBearer(t, b.appId, b.customers[0])}` };
      expect((await validate({ productId: a.digital[0] }, foreign)).status).toBe(401);
      expect((await validate({ productId: a.digital[0] }, b.customerHeaders[0])).body).toEqual({
        status: 'Failed',
        message: 'No valid token found for customer and product',
        data: null,
      });
    });
  });
});
