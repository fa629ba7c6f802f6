import { TestApp, TestResponse } from '../support/test-app';
import { backdateExpiry, oneToken, Shop, startTwoShops, templateFor, tokenInDb } from './token-helpers';

/**
 * Concurrent requests on one token (a house rule: money and ownership are invariants): every check-then-act runs
 * under the token's row lock or as one conditional UPDATE, so whatever order the database picks, the
 * outcome is one that some serial order of the same requests gives. Each race runs many rounds of
 * parallel HTTP requests through the app.
 */
const ROUNDS = 25;
const DAY = 86_400_000;
const NOT_A_GIFT = 'Token is not redeemable as a gift';
const EXPIRED = 'Token has expired';

describe('token races', () => {
  let t: TestApp;
  let a: Shop;
  let limited: number;

  beforeAll(async () => {
    ({ t, a } = await startTwoShops());
    limited = a.digital[1];
    await templateFor(t, a, limited, { maximum_activations: 2 });
  });
  afterAll(() => t.close());

  const redeem = (tokenValue: string, customer: number) => t.post('/ecommerce/redeemToken', { tokenValue }, a.customerHeaders[customer]);
  const activate = (tokenValue: string, productId = a.digital[0]) =>
    t.post('/ecommerce/activateToken', { tokenValue, productId }, a.headers);
  const validate = (tokenValue: string) => t.post('/ecommerce/validateToken', { tokenValue, productId: a.digital[0] }, a.headers);
  const expire = (tokenId: number) => t.post('/ecommerce/expireToken', { tokenId }, a.adminHeaders);
  const extend = (tokenId: number, days: number) => t.post('/ecommerce/extendToken', { tokenId, days }, a.adminHeaders);
  const links = async (tokenId: number): Promise<number[]> =>
    (await t.dataSource.query(`SELECT parent_id FROM core_related WHERE name = 'core_tokens' AND linked = $1`, [tokenId])).map(
      (r: { parent_id: number }) => r.parent_id,
    );
  const ok = (responses: TestResponse[]) => responses.filter((r) => r.status === 200);
  const messages = (responses: TestResponse[]) => [...new Set(responses.filter((r) => r.status !== 200).map((r) => r.body.message))].sort();

  /** The owner a gift ended with: the winning redeem's customer (exactly one link), or none. */
  async function expectOwner(tokenId: number, redeems: TestResponse[]): Promise<void> {
    const winners = ok(redeems);
    expect(winners.length).toBeLessThanOrEqual(1);
    const owner = winners[0]?.body.data.customer_id ?? null;
    expect((await tokenInDb(t, tokenId)).customer_id).toBe(owner);
    expect(await links(tokenId)).toEqual(owner === null ? [] : [owner]);
  }

  it('redeem racing redeem by three customers: exactly one wins and owns it', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const gift = await oneToken(t, a, a.digital[0], null, { gift: true });
      const redeems = await Promise.all(Array.from({ length: 6 }, (_, i) => redeem(gift.token_value, i % 3)));
      expect(ok(redeems)).toHaveLength(1);
      expect(messages(redeems)).toEqual([NOT_A_GIFT]);
      await expectOwner(gift.id, redeems);
      expect(await tokenInDb(t, gift.id)).toMatchObject({ status: 'active', activations: 1 });
    }
  });

  it('redeem racing expire: the token ends expired, owned by at most one; a redeem after the acknowledgement fails', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const gift = await oneToken(t, a, a.digital[0], null, { gift: true });
      const late: Promise<TestResponse>[] = [];
      const expired = expire(gift.id).then((res) => {
        late.push(redeem(gift.token_value, 2));
        return res;
      });
      const [expiredRes, ...redeems] = await Promise.all([
        expired,
        redeem(gift.token_value, 0),
        redeem(gift.token_value, 1),
        redeem(gift.token_value, 0),
      ]);
      expect(expiredRes.status).toBe(200);
      const after = await Promise.all(late);
      expect(after[0]).toMatchObject({ status: 400 });
      expect((await tokenInDb(t, gift.id)).status).toBe('expired');
      await expectOwner(gift.id, redeems);
      for (const message of messages([...redeems, ...after])) expect([NOT_A_GIFT, EXPIRED]).toContain(message);
    }
  });

  it('activate racing activate at the limit: exactly maximum_activations succeed', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const token = await oneToken(t, a, limited, a.customers[0]);
      const results = await Promise.all(Array.from({ length: 8 }, () => activate(token.token_value, limited)));
      expect(
        ok(results)
          .map((r) => r.body.data.activations)
          .sort(),
      ).toEqual([1, 2]);
      expect(messages(results)).toEqual(['Token activation limit exceeded']);
      expect(await tokenInDb(t, token.id)).toMatchObject({ status: 'active', activations: 2 });
    }
  });

  it('activate racing expire: the token ends expired, activations count the successes, none after the acknowledgement', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      const late: Promise<TestResponse>[] = [];
      const expired = expire(token.id).then((res) => {
        late.push(activate(token.token_value), validate(token.token_value));
        return res;
      });
      const [expiredRes, ...activations] = await Promise.all([expired, ...Array.from({ length: 5 }, () => activate(token.token_value))]);
      expect(expiredRes.status).toBe(200);
      const after = await Promise.all(late);
      expect(after.map((r) => r.body.message)).toEqual([EXPIRED, EXPIRED]);
      expect(await tokenInDb(t, token.id)).toMatchObject({ status: 'expired', activations: ok(activations).length });
      expect(messages(activations).filter((m) => m !== EXPIRED && m !== 'Token activation limit exceeded')).toEqual([]);
    }
  });

  it('extend racing the expiry a validation or an activation finds: the token ends active with the new expiry', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const token = await oneToken(t, a, a.digital[0], a.customers[0]);
      expect((await activate(token.token_value)).status).toBe(200);
      await backdateExpiry(t, token.id);
      const [extended, ...checks] = await Promise.all([
        extend(token.id, 5),
        validate(token.token_value),
        activate(token.token_value),
        validate(token.token_value),
        activate(token.token_value),
      ]);
      expect(extended.status).toBe(200);
      const newExpiry = new Date(extended.body.data.newExpiry).getTime();
      expect(Math.abs(newExpiry - (Date.now() + 5 * DAY))).toBeLessThan(60_000);
      // A validation after both activations finds the limit (3) reached.
      for (const check of checks)
        expect(['Token is valid', 'Token activated', EXPIRED, 'Token activation limit exceeded']).toContain(check.body.message);
      const row = await tokenInDb(t, token.id);
      expect(row).toMatchObject({
        status: 'active',
        activations: 1 + ok(checks).filter((r) => r.body.message === 'Token activated').length,
      });
      expect(new Date(row.expiry_date).getTime()).toBe(newExpiry);
    }
  });

  it('extend racing redeem of a gift whose date passed: the redeem either wins or finds it expired, never an error', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const gift = await oneToken(t, a, a.digital[0], null, { gift: true });
      await backdateExpiry(t, gift.id);
      const [extended, ...redeems] = await Promise.all([extend(gift.id, 5), redeem(gift.token_value, 0), redeem(gift.token_value, 1)]);
      expect(extended.status).toBe(200);
      for (const message of messages(redeems)) expect([EXPIRED, NOT_A_GIFT]).toContain(message);
      await expectOwner(gift.id, redeems);
      expect((await tokenInDb(t, gift.id)).status).toBe(ok(redeems).length ? 'active' : 'gift_pending');
    }
  });

  it('extend racing redeem of an expired gift: it stays a gift until one customer redeems it, never ownerless and active', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const gift = await oneToken(t, a, a.digital[0], null, { gift: true });
      expect((await expire(gift.id)).status).toBe(200);
      const [extended, ...redeems] = await Promise.all([extend(gift.id, 5), redeem(gift.token_value, 0), redeem(gift.token_value, 1)]);
      expect(extended.status).toBe(200);
      for (const message of messages(redeems)) expect([EXPIRED, NOT_A_GIFT]).toContain(message);
      await expectOwner(gift.id, redeems);
      expect((await tokenInDb(t, gift.id)).status).toBe(ok(redeems).length ? 'active' : 'gift_pending');
      if (!ok(redeems).length) expect((await redeem(gift.token_value, 2)).status).toBe(200);
    }
  });
});
