import { TestApp } from '../support/test-app';
import { backdateExpiry, oneToken, PUBLIC_ROW_KEYS, Shop, startTwoShops, templateFor, tokenInDb } from './token-helpers';

describe('POST /ecommerce/activateToken and /ecommerce/redeemToken', () => {
  let t: TestApp;
  let a: Shop;
  let b: Shop;

  beforeAll(async () => ({ t, a, b } = await startTwoShops()));
  afterAll(() => t.close());

  const activate = (body: Record<string, unknown>, headers: Record<string, string> = a.headers) =>
    t.post('/ecommerce/activateToken', body, headers);
  const redeem = (body: Record<string, unknown>, headers: Record<string, string>) => t.post('/ecommerce/redeemToken', body, headers);

  describe('activateToken', () => {
    it('counts an activation, sets last_activated and makes the token active', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      const res = await activate({ tokenValue: token.token_value, productId: a.digital[0] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'Success',
        message: 'Token activated',
        data: { id: token.id, status: 'active', activations: 1 },
      });
      expect(Object.keys(res.body.data).sort()).toEqual(PUBLIC_ROW_KEYS);
      expect(Math.abs(new Date(res.body.data.last_activated).getTime() - Date.now())).toBeLessThan(60_000);
      const again = await activate({ tokenValue: token.token_value, productId: a.digital[0] });
      expect(again.body.data).toMatchObject({ status: 'active', activations: 2 });
    });

    it('fails with 400 { status: Failed, message, data } and the validation messages', async () => {
      const cases: [Record<string, unknown>, Record<string, string>, string, boolean][] = [];
      const plain = await oneToken(t, a, a.digital[0], a.customers[0]);
      const gift = await oneToken(t, a, a.digital[0], null, { gift: true });
      const orphan = await oneToken(t, a, a.digital[0], a.customers[0], { productVersionId: 987_001 });
      cases.push([{ tokenValue: 'e'.repeat(64), productId: a.digital[0] }, a.headers, 'Token not found', false]);
      cases.push([{ tokenValue: plain.token_value, productId: a.digital[1] }, a.headers, 'Token not found', false]);
      cases.push([{ tokenValue: plain.token_value, productId: a.digital[0] }, b.headers, 'Token not found', false]);
      cases.push([{ tokenValue: gift.token_value, productId: a.digital[0] }, a.headers, 'Gift token must be redeemed first', true]);
      cases.push([{ tokenValue: orphan.token_value, productId: a.digital[0] }, a.headers, 'Token product version not found', true]);
      for (const [body, headers, message, withRow] of cases) {
        const res = await activate(body, headers);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          status: 'Failed',
          message,
          data: withRow ? expect.objectContaining({ token_value: body.tokenValue }) : null,
        });
      }
      expect((await tokenInDb(t, gift.id)).activations).toBe(0);
    });

    it('Token activation limit exceeded after the maximum, activations stay at it', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      for (let i = 0; i < 3; i++) await activate({ tokenValue: token.token_value, productId: a.digital[0] });
      const res = await activate({ tokenValue: token.token_value, productId: a.digital[0] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 'Failed', message: 'Token activation limit exceeded', data: { activations: 3 } });
      expect((await tokenInDb(t, token.id)).activations).toBe(3);
    });

    it('a token past its expiry date: 400 Token has expired, and it stays expired (the answer commits)', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      await backdateExpiry(t, token.id);
      const res = await activate({ tokenValue: token.token_value, productId: a.digital[0] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 'Failed', message: 'Token has expired', data: { id: token.id, status: 'expired' } });
      expect(await tokenInDb(t, token.id)).toMatchObject({ status: 'expired', activations: 0 });
      expect((await activate({ tokenValue: token.token_value, productId: a.digital[0] })).body.message).toBe('Token has expired');
    });

    it('50 concurrent activations of a token with maximum 3: exactly 3 succeed', async () => {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      const results = await Promise.all(
        Array.from({ length: 50 }, () => activate({ tokenValue: token.token_value, productId: a.digital[0] })),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(3);
      const failures = results.filter((r) => r.status !== 200);
      expect(failures).toHaveLength(47);
      for (const f of failures) expect(f.body).toMatchObject({ status: 'Failed', message: 'Token activation limit exceeded' });
      expect(
        results
          .filter((r) => r.status === 200)
          .map((r) => r.body.data.activations)
          .sort(),
      ).toEqual([1, 2, 3]);
      expect(await tokenInDb(t, token.id)).toMatchObject({ activations: 3, status: 'active' });
    });

    it('names invalid fields with 400', async () => {
      const res = await activate({ productId: 1 });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'tokenValue', message: 'tokenValue is required' }]);
      expect((await activate({ tokenValue: 'x' })).body.errors).toEqual([{ field: 'productId', message: 'productId is required' }]);
    });
  });

  describe('redeemToken', () => {
    const links = (tokenId: number) =>
      t.dataSource.query(
        `SELECT parent_table, parent_id, name, linked, master_id FROM core_related WHERE name = 'core_tokens' AND linked = $1`,
        [tokenId],
      );

    it('moves a gift to the customer of the bearer: active, activations 1, ownership link', async () => {
      const gift = await oneToken(t, a, a.digital[0], a.customers[0], { gift: true });
      const res = await redeem(
        { tokenValue: gift.token_value, productId: a.digital[0], customerId: a.customers[0], customer_id: a.customers[0] },
        a.customerHeaders[1],
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Gift token redeemed' });
      expect(res.body.data).toEqual({
        id: gift.id,
        token_value: gift.token_value,
        customer_id: a.customers[1],
        status: 'active',
        activations: 1,
        master_product_id: a.digital[0],
      });
      expect(await tokenInDb(t, gift.id)).toMatchObject({ customer_id: a.customers[1], status: 'active', activations: 1 });
      expect(await links(gift.id)).toEqual([
        { parent_table: 'core_customers', parent_id: a.customers[1], name: 'core_tokens', linked: gift.id, master_id: a.customers[1] },
      ]);
      // The recipient now validates it by mode 2.
      expect((await t.post('/ecommerce/validateToken', { productId: a.digital[0] }, a.customerHeaders[1])).body).toMatchObject({
        status: 'Success',
        data: { id: gift.id },
      });
    });

    it('productId is optional; master_product_id is the master id of the token’s product version', async () => {
      const edit = await t.post('/content/edit', { table: 'core_products', masterId: a.digital[2], data: { price: 777 } }, a.adminHeaders);
      const gift = await oneToken(t, a, a.digital[2], null, { gift: true, productVersionId: edit.body.data.Current_ID });
      const res = await redeem({ tokenValue: gift.token_value }, a.customerHeaders[0]);
      expect(res.body.data).toMatchObject({ id: gift.id, master_product_id: a.digital[2] });
    });

    it('401 without a customer bearer (none, an admin’s, a user’s)', async () => {
      const gift = await oneToken(t, a, a.digital[0], null, { gift: true });
      for (const headers of [a.headers, a.adminHeaders, a.userHeaders]) {
        const res = await redeem({ tokenValue: gift.token_value }, headers);
        expect(res.status).toBe(401);
      }
      expect((await tokenInDb(t, gift.id)).status).toBe('gift_pending');
    });

    it('fails with 400 { status: Failed, message, data: null }', async () => {
      const plain = await oneToken(t, a, a.digital[0], a.customers[0]);
      const orphan = await oneToken(t, a, a.digital[0], null, { gift: true, productVersionId: 987_002 });
      const due = await oneToken(t, a, a.digital[0], null, { gift: true });
      await backdateExpiry(t, due.id);
      await templateFor(t, a, a.digital[1], { maximum_activations: 0 });
      const spent = await oneToken(t, a, a.digital[1], null, { gift: true });
      const other = await oneToken(t, a, a.digital[0], null, { gift: true });
      const cases: [Record<string, unknown>, Record<string, string>, string][] = [
        [{ tokenValue: 'd'.repeat(64) }, a.customerHeaders[0], 'Token not found'],
        [{ tokenValue: other.token_value, productId: a.digital[1] }, a.customerHeaders[0], 'Token not found'],
        [{ tokenValue: other.token_value }, b.customerHeaders[0], 'Token not found'],
        [{ tokenValue: plain.token_value }, a.customerHeaders[1], 'Token is not redeemable as a gift'],
        [{ tokenValue: orphan.token_value }, a.customerHeaders[1], 'Token product version not found'],
        [{ tokenValue: due.token_value }, a.customerHeaders[1], 'Token has expired'],
        [{ tokenValue: spent.token_value }, a.customerHeaders[1], 'Token activation limit exceeded'],
      ];
      for (const [body, headers, message] of cases) {
        const res = await redeem(body, headers);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ status: 'Failed', message, data: null });
      }
      expect(await tokenInDb(t, plain.id)).toMatchObject({ customer_id: a.customers[0], status: 'pending' });
      expect(await tokenInDb(t, other.id)).toMatchObject({ customer_id: null, status: 'gift_pending' });
    });

    it('a redeemed gift cannot be redeemed again, by anyone', async () => {
      const gift = await oneToken(t, a, a.digital[0], null, { gift: true });
      expect((await redeem({ tokenValue: gift.token_value }, a.customerHeaders[0])).status).toBe(200);
      for (const headers of [a.customerHeaders[0], a.customerHeaders[2]]) {
        expect((await redeem({ tokenValue: gift.token_value }, headers)).body).toEqual({
          status: 'Failed',
          message: 'Token is not redeemable as a gift',
          data: null,
        });
      }
    });

    it('two customers redeeming one gift at once: exactly one wins, the other gets 400', async () => {
      for (let round = 0; round < 5; round++) {
        const gift = await oneToken(t, a, a.digital[0], null, { gift: true });
        const [x, y] = await Promise.all([
          redeem({ tokenValue: gift.token_value }, a.customerHeaders[1]),
          redeem({ tokenValue: gift.token_value }, a.customerHeaders[2]),
        ]);
        expect([x.status, y.status].sort()).toEqual([200, 400]);
        const winner = x.status === 200 ? x : y;
        const loser = x.status === 200 ? y : x;
        expect(loser.body).toEqual({ status: 'Failed', message: 'Token is not redeemable as a gift', data: null });
        expect((await tokenInDb(t, gift.id)).customer_id).toBe(winner.body.data.customer_id);
        expect(await links(gift.id)).toHaveLength(1);
      }
    });

    it('names invalid fields with 400', async () => {
      const res = await redeem({}, a.customerHeaders[0]);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'tokenValue', message: 'tokenValue is required' }]);
      expect((await redeem({ tokenValue: 'x', productId: -1 }, a.customerHeaders[0])).body.errors).toEqual([
        { field: 'productId', message: 'productId must be a positive integer' },
      ]);
    });
  });
});
