import { RequestContext } from '../../../src/common/request-context';
import { DigitalItem, TokenIssuerService, TokensModule, TokensService } from '../../../src/tokens';
import { Medium, startMedium } from '../support/medium';
import { seedShop, Shop, shopContext } from '../support/shop';

/**
 * The tokens module's services on their real repositories and links, without HTTP: TokenIssuerService as
 * order completion calls it (inside the caller's transaction), TokensService as the token routes call it
 * (validate outside a transaction, activate inside one).
 */
describe('TokenIssuerService and TokensService', () => {
  let medium: Medium;
  let issuer: TokenIssuerService;
  let tokens: TokensService;
  let shop: Shop;

  beforeAll(async () => {
    medium = await startMedium(TokensModule);
    issuer = medium.get(TokenIssuerService);
    tokens = medium.get(TokensService);
    shop = await seedShop(medium);
  });
  afterAll(() => medium?.close());

  let items = 0;
  /** `quantity` units of a product (a master id, its own first version) on a fresh order item (core_tokens' key is global). */
  const item = (product: number, extra: Partial<DigitalItem> = {}): DigitalItem => {
    const orderItemId = 2_000_000 + process.pid * 1000 + ++items;
    return { orderId: orderItemId, orderItemId, productVersionId: product, productMasterId: product, quantity: 1, gift: false, ...extra };
  };
  const issue = (items: DigitalItem[], ctx: RequestContext = shopContext(medium, shop)) =>
    medium.inTransaction(ctx, () => issuer.issue(ctx, shop.customerId, items));
  const activate = (value: string, product: number, ctx: RequestContext = shopContext(medium, shop)) =>
    medium.inTransaction(ctx, () => tokens.activate(ctx, value, product));
  const validate = (value: string, product: number, ctx: RequestContext = shopContext(medium, shop)) =>
    tokens.validate(ctx, value, product);
  const row = async (id: number) => (await medium.sql('SELECT * FROM core_tokens WHERE id = $1', [id]))[0];
  const failure = (outcome: { ok: boolean; failure?: string }) => (outcome.ok ? 'ok' : outcome.failure);

  describe('issue', () => {
    it("one token per unit on the template's terms (5 activations, 30 days), owned by the purchaser and linked to them", async () => {
      const issued = await issue([item(shop.ebook, { quantity: 3 })]);
      expect(issued.map((t) => [t.status, t.customer_id, t.maximum_activations, t.activations])).toEqual(
        Array.from({ length: 3 }, () => ['pending', shop.customerId, 5, 0]),
      );
      expect(new Set(issued.map((t) => t.token_value)).size).toBe(3);
      for (const token of issued) expect(token.token_value).toMatch(/^[0-9a-f]{64}$/);
      const days = (issued[0].expiry_date!.getTime() - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(29.9);
      expect(days).toBeLessThan(30.1);
      const links = await medium.sql(
        `SELECT linked FROM core_related WHERE app_id = $1 AND parent_table = 'core_customers' AND parent_id = $2 AND name = 'core_tokens' ORDER BY linked`,
        [shop.site.id, shop.customerId],
      );
      expect(links.map((l) => l.linked)).toEqual(expect.arrayContaining(issued.map((t) => t.id)));
    });

    it('without a template: the defaults (pending, 3 activations, no expiry); a gift: gift_pending, no owner, whatever the template', async () => {
      const [plain] = await issue([item(shop.book)]);
      expect(plain).toMatchObject({ status: 'pending', maximum_activations: 3, expiry_date: null, customer_id: shop.customerId });
      const [gift] = await issue([item(shop.ebook, { gift: true })]);
      expect(gift).toMatchObject({ status: 'gift_pending', customer_id: null });
    });

    it('a repeated issue for the same items issues nothing new and answers the same tokens', async () => {
      const items = [item(shop.ebook, { quantity: 2 }), item(shop.book)];
      const first = await issue(items);
      const again = await issue(items);
      expect(again.map((t) => t.id).sort()).toEqual(first.map((t) => t.id).sort());
      const count = await medium.sql('SELECT count(*)::int AS n FROM core_tokens WHERE order_item_id = ANY($1)', [
        items.map((i) => i.orderItemId),
      ]);
      expect(count[0].n).toBe(3);
    });

    it('five concurrent issues of one order item make one token set', async () => {
      const one = item(shop.ebook, { quantity: 4 });
      await Promise.all(Array.from({ length: 5 }, () => issue([one])));
      const units = await medium.sql('SELECT item_unit FROM core_tokens WHERE order_item_id = $1 ORDER BY item_unit', [one.orderItemId]);
      expect(units.map((u) => u.item_unit)).toEqual([1, 2, 3, 4]);
    });

    it("runs in the caller's transaction: a rollback leaves no token", async () => {
      const one = item(shop.ebook);
      const ctx = shopContext(medium, shop);
      await expect(
        medium.inTransaction(ctx, async () => {
          await issuer.issue(ctx, shop.customerId, [one]);
          throw new Error('the completion failed later');
        }),
      ).rejects.toThrow('the completion failed later');
      expect(await medium.sql('SELECT id FROM core_tokens WHERE order_item_id = $1', [one.orderItemId])).toEqual([]);
      // And outside a transaction it refuses to run at all.
      await expect(issuer.issue(shopContext(medium, shop), shop.customerId, [one])).rejects.toThrow(/inside a transaction/);
    });
  });

  describe('validate and activate', () => {
    it('a fresh token is valid for its product and validating changes nothing; another product, an unknown value and another app find nothing', async () => {
      const [token] = await issue([item(shop.ebook)]);
      const valid = await validate(token.token_value, shop.ebook);
      expect(valid).toMatchObject({ ok: true, row: { id: token.id, activations: 0, status: 'pending' } });
      expect(await row(token.id)).toMatchObject({ activations: 0, status: 'pending' });
      expect(failure(await validate(token.token_value, shop.book))).toBe('TOKEN_NOT_FOUND');
      expect(failure(await validate('f'.repeat(64), shop.ebook))).toBe('TOKEN_NOT_FOUND');
      const other = await seedShop(medium);
      expect(failure(await validate(token.token_value, shop.ebook, shopContext(medium, other)))).toBe('TOKEN_NOT_FOUND');
    });

    it('activation counts up to the maximum and makes the token active; past it, the activation limit', async () => {
      const [token] = await issue([item(shop.ebook)]); // 5 activations
      for (let n = 1; n <= 5; n++)
        expect(await activate(token.token_value, shop.ebook)).toMatchObject({ ok: true, row: { activations: n, status: 'active' } });
      expect(failure(await activate(token.token_value, shop.ebook))).toBe('ACTIVATION_LIMIT');
      expect(failure(await validate(token.token_value, shop.ebook))).toBe('ACTIVATION_LIMIT');
      expect((await row(token.id)).activations).toBe(5);
    });

    it('a token past its expiry date is expired: validation says so and marks it, activation too', async () => {
      const [token] = await issue([item(shop.ebook)]);
      await medium.sql(`UPDATE core_tokens SET expiry_date = now() - interval '1 minute' WHERE id = $1`, [token.id]);
      expect(failure(await activate(token.token_value, shop.ebook))).toBe('TOKEN_EXPIRED');
      expect(failure(await validate(token.token_value, shop.ebook))).toBe('TOKEN_EXPIRED');
      expect(await row(token.id)).toMatchObject({ status: 'expired', activations: 0, expired_reason: 'expiry' });
    });

    it('a gift token must be redeemed before it validates or activates', async () => {
      const [gift] = await issue([item(shop.ebook, { gift: true })]);
      expect(failure(await validate(gift.token_value, shop.ebook))).toBe('GIFT_NOT_REDEEMED');
      expect(failure(await activate(gift.token_value, shop.ebook))).toBe('GIFT_NOT_REDEEMED');
      expect((await row(gift.id)).activations).toBe(0);
    });

    it('twelve concurrent activations of a token with 5 left: exactly 5 succeed', async () => {
      const [token] = await issue([item(shop.ebook)]);
      const outcomes = await Promise.all(Array.from({ length: 12 }, () => activate(token.token_value, shop.ebook).then(failure)));
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(5);
      expect(outcomes.filter((o) => o === 'ACTIVATION_LIMIT')).toHaveLength(7);
      expect((await row(token.id)).activations).toBe(5);
    });
  });
});
