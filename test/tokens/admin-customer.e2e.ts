import { TestApp } from '../support/test-app';
import { oneToken, Shop, startTwoShops, templateFor, tokenInDb } from './token-helpers';

const DAY = 86_400_000;

describe('getToken, expireToken, extendToken (admin) and getCustomerTokens (customer)', () => {
  let t: TestApp;
  let a: Shop;
  let b: Shop;

  beforeAll(async () => ({ t, a, b } = await startTwoShops()));
  afterAll(() => t.close());

  const getToken = (id: number | string, headers: Record<string, string> = a.adminHeaders) =>
    t.request('GET', `/ecommerce/getToken/${id}`, undefined, headers);
  const expire = (body: Record<string, unknown>, headers: Record<string, string> = a.adminHeaders) =>
    t.post('/ecommerce/expireToken', body, headers);
  const extend = (body: Record<string, unknown>, headers: Record<string, string> = a.adminHeaders) =>
    t.post('/ecommerce/extendToken', body, headers);

  describe('who may call them', () => {
    it('401 without a bearer, 403 with a customer’s or a non-admin user’s, 401 with an admin of another app', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      const foreignAdmin = { ...a.headers, authorization: b.adminHeaders.authorization };
      for (const [headers, status] of [
        [a.headers, 401],
        [a.customerHeaders[0], 403],
        [a.userHeaders, 403],
        [foreignAdmin, 401],
      ] as const) {
        expect((await getToken(token.id, headers)).status).toBe(status);
        expect((await expire({ tokenId: token.id }, headers)).status).toBe(status);
        expect((await extend({ tokenId: token.id, days: 1 }, headers)).status).toBe(status);
      }
      expect((await getToken(token.id, a.customerHeaders[0])).body).toMatchObject({
        status: 'Failed',
        message: 'Insufficient permissions',
      });
      expect(await tokenInDb(t, token.id)).toMatchObject({ status: 'pending', expiry_date: null });
    });
  });

  describe('getToken/:id', () => {
    it('answers the token row including order_item_id', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      const res = await getToken(token.id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Token found' });
      expect(res.body.data).toEqual({ ...token, created_date: token.created_date.toISOString() });
      expect(res.body.data.order_item_id).toBe(token.order_item_id);
    });

    it('404 Token not found for an unknown id and for another app’s token; 400 for an id that is not one', async () => {
      const foreign = await oneToken(t, b, b.digital[0], b.customers[0]);
      for (const id of [999_999_999, foreign.id]) {
        const res = await getToken(id);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ status: 'Failed', message: 'Token not found', data: null });
      }
      for (const id of ['abc', '0', '-1', '1.5', '99999999999']) {
        const res = await getToken(id);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          status: 'Failed',
          message: 'Validation error',
          errors: [{ field: 'id', message: 'id must be a positive integer' }],
        });
      }
    });
  });

  describe('expireToken', () => {
    it('expires a token of any status', async () => {
      for (const extra of [{}, { gift: true }]) {
        const token = await oneToken(t, a, a.digital[0], a.customers[0], extra);
        const res = await expire({ tokenId: token.id });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ status: 'Success', message: 'Token expired' });
        expect((await tokenInDb(t, token.id)).status).toBe('expired');
        expect((await expire({ tokenId: token.id })).status).toBe(200);
      }
    });

    it('404 for another app’s token (unchanged) or an unknown id; 400 naming tokenId', async () => {
      const foreign = await oneToken(t, b, b.digital[0], b.customers[0]);
      const res = await expire({ tokenId: foreign.id });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 'Failed', message: 'Token not found', data: null });
      expect((await tokenInDb(t, foreign.id)).status).toBe('pending');
      expect((await expire({ tokenId: 999_999_999 })).status).toBe(404);
      const bad = await expire({});
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([{ field: 'tokenId', message: 'tokenId is required' }]);
    });
  });

  describe('extendToken', () => {
    it('an expired token without expiry: active again, expiry now + days', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      await expire({ tokenId: token.id });
      const res = await extend({ tokenId: token.id, days: 2 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Token extended by 2 day(s)' });
      const newExpiry = new Date(res.body.data.newExpiry).getTime();
      expect(Math.abs(newExpiry - (Date.now() + 2 * DAY))).toBeLessThan(60_000);
      const row = await tokenInDb(t, token.id);
      expect(row.status).toBe('active');
      expect(new Date(row.expiry_date).getTime()).toBe(newExpiry);
      expect(
        (await t.post('/ecommerce/validateToken', { tokenValue: token.token_value, productId: a.digital[0] }, a.headers)).body.message,
      ).toBe('Token is valid');
    });

    it('a future expiry moves forward from itself; the status of a pending token stays', async () => {
      await templateFor(t, a, a.digital[1], { expiry_days: 10 });
      const token = await oneToken(t, a, a.digital[1], a.customers[0]);
      const res = await extend({ tokenId: token.id, days: 1 });
      expect(res.body.message).toBe('Token extended by 1 day(s)');
      expect(new Date(res.body.data.newExpiry).getTime()).toBe(token.expiry_date!.getTime() + DAY);
      expect((await tokenInDb(t, token.id)).status).toBe('pending');
    });

    it('a past expiry moves forward from now', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      await t.dataSource.query(`UPDATE core_tokens SET expiry_date = now() - interval '30 days', status = 'expired' WHERE id = $1`, [
        token.id,
      ]);
      const res = await extend({ tokenId: token.id, days: 3 });
      expect(Math.abs(new Date(res.body.data.newExpiry).getTime() - (Date.now() + 3 * DAY))).toBeLessThan(60_000);
      expect((await tokenInDb(t, token.id)).status).toBe('active');
    });

    it('400 tokenId and days (>= 1) are required, naming the field', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      for (const [body, field] of [
        [{ tokenId: token.id }, 'days'],
        [{ tokenId: token.id, days: 0 }, 'days'],
        [{ tokenId: token.id, days: 1.5 }, 'days'],
        [{ tokenId: token.id, days: '2' }, 'days'],
        [{ tokenId: token.id, days: 36_501 }, 'days'],
        [{ days: 2 }, 'tokenId'],
        [{ tokenId: 'x', days: 2 }, 'tokenId'],
      ] as const) {
        const res = await extend(body);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ status: 'Failed', message: 'tokenId and days (>= 1) are required', errors: [{ field }] });
      }
      expect((await tokenInDb(t, token.id)).expiry_date).toBeNull();
    });

    it('404 for another app’s token, unchanged', async () => {
      const foreign = await oneToken(t, b, b.digital[0], b.customers[0]);
      const res = await extend({ tokenId: foreign.id, days: 5 });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 'Failed', message: 'Token not found', data: null });
      expect((await tokenInDb(t, foreign.id)).expiry_date).toBeNull();
    });
  });

  describe('getCustomerTokens', () => {
    it('answers only the bearer’s tokens, without customer_id and order_item_id; a body customer id is ignored', async () => {
      const mine = [await oneToken(t, a, a.digital[2], a.customers[1]), await oneToken(t, a, a.digital[0], a.customers[1])];
      const theirs = await oneToken(t, a, a.digital[2], a.customers[2]);
      await oneToken(t, a, a.digital[2], null, { gift: true });
      const res = await t.post(
        '/ecommerce/getCustomerTokens',
        { customerId: a.customers[2], customer_id: a.customers[2] },
        a.customerHeaders[1],
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Tokens found' });
      expect(res.body.data.map((r: any) => r.id)).toEqual(mine.map((m) => m.id));
      expect(res.body.data.map((r: any) => r.id)).not.toContain(theirs.id);
      expect(Object.keys(res.body.data[0]).sort()).toEqual([
        'activations',
        'created_date',
        'expiry_date',
        'id',
        'last_activated',
        'maximum_activations',
        'order_id',
        'product_id',
        'status',
        'token_value',
      ]);
    });

    it('filters by product master id; an empty array when none match', async () => {
      const mine = await oneToken(t, a, a.digital[2], a.customers[0]);
      await oneToken(t, a, a.digital[0], a.customers[0]);
      const res = await t.post('/ecommerce/getCustomerTokens', { productId: a.digital[2] }, a.customerHeaders[0]);
      expect(res.body.data.map((r: any) => r.id)).toEqual([mine.id]);
      const none = await t.post('/ecommerce/getCustomerTokens', { productId: 999_999 }, a.customerHeaders[0]);
      expect(none.status).toBe(200);
      expect(none.body.data).toEqual([]);
      expect((await t.post('/ecommerce/getCustomerTokens', {}, b.customerHeaders[1])).body.data).toEqual([]); // a customer without tokens
    });

    it('401 without a customer bearer; 400 naming productId', async () => {
      for (const headers of [a.headers, a.adminHeaders])
        expect((await t.post('/ecommerce/getCustomerTokens', {}, headers)).status).toBe(401);
      const bad = await t.post('/ecommerce/getCustomerTokens', { productId: 'x' }, a.customerHeaders[0]);
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([{ field: 'productId', message: 'productId must be an integer' }]);
    });
  });

  it('documents every token endpoint in the OpenAPI document', async () => {
    const res = await t.request('GET', '/docs/openapi.json');
    const paths = Object.keys(res.body.paths);
    for (const path of [
      'validateToken',
      'activateToken',
      'redeemToken',
      'expireToken',
      'extendToken',
      'getToken/{id}',
      'getCustomerTokens',
    ])
      expect(paths).toContain(`/ecommerce/${path}`);
  });
});
