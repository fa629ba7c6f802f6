import type { BrowserContext, Page } from 'playwright-core';
import { userToken } from '../versioning/content-helpers';
import {
  axeViolations,
  ConsoleHarness,
  isFocused,
  newContext,
  screenshot,
  signIn,
  staffMember,
  startConsoleHarness,
  stopConsoleHarness,
  tabTo,
  watchedPage,
} from './support/console-browser';

/**
 * The console's access tokens screen in Chromium (README "Staff console", "Digital access tokens"): tokens by
 * product and by customer as listTokens gives them, a token extended with the keyboard alone (its expiry moves
 * in the database) and one expired (its status), and no extend or expire offered without tokens.manage; axe-core
 * on the screen and its dialogs, a screenshot under docs/console/.
 */
describe('console: access tokens, in a browser', () => {
  let h: ConsoleHarness;
  let context: BrowserContext;
  let page: Page;
  let problems: () => string[];
  let ownerEmail: string;
  /** The customer's E-book tokens (two units), and the gift voucher's token nobody has redeemed. */
  let ebookTokens: number[];
  let giftToken: number;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => h.t.dataSource.query(query, params);
  const table = () => page.getByRole('region', { name: 'Access tokens list' });
  const listedIds = async () =>
    (await table().getByRole('rowheader').allInnerTexts()).map((text) => Number(/ID (\d+)/.exec(text)![1])).sort((a, b) => a - b);
  const filters = () => page.getByRole('search');
  const search = async (values: { product?: string; customer?: string }) => {
    await filters()
      .getByRole('textbox', { name: 'Product ID' })
      .fill(values.product ?? '');
    await filters()
      .getByRole('textbox', { name: 'Customer ID' })
      .fill(values.customer ?? '');
    await filters().getByRole('button', { name: 'Search', exact: true }).click();
  };

  beforeAll(async () => {
    h = await startConsoleHarness();
    const order = await h.client.checkedOut(
      [
        { productID: h.shop.ebook, Qty: 2, Price: 1500 },
        { productID: h.shop.voucher, Qty: 1, Price: 4000, redeemStatus: 'gift' },
      ],
      h.shop.customerHeaders,
    );
    const delivered = await h.client.deliver(h.client.paid(order.intent));
    if (delivered.status !== 200) throw new Error(`webhook: ${JSON.stringify(delivered.body)}`);
    const tokens = await sql(`SELECT id, gift FROM core_tokens WHERE order_id = $1 ORDER BY id`, [order.orderID]);
    ebookTokens = tokens.filter((t) => !t.gift).map((t) => t.id);
    [giftToken] = tokens.filter((t) => t.gift).map((t) => t.id);
    expect(ebookTokens).toHaveLength(2);
    expect(giftToken).toBeDefined();
    [{ user_email: ownerEmail }] = await sql(`SELECT user_email FROM core_users WHERE id = $1`, [h.shop.adminId]);
    context = await newContext(h);
    ({ page, problems } = await watchedPage(context));
    page.setDefaultTimeout(10_000);
    await signIn(page, h.shop.appId, ownerEmail);
  }, 120_000);
  afterAll(() => stopConsoleHarness(h));
  afterEach(() => expect(problems()).toEqual([]));

  it('lists the tokens, and filters them by product and by customer as listTokens does', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Access tokens' }).click();
    await page.getByRole('heading', { name: 'Access tokens', level: 1 }).waitFor();
    await page.getByRole('status').getByText('Showing 3 tokens on page 1.').waitFor();
    expect(await listedIds()).toEqual([...ebookTokens, giftToken].sort((a, b) => a - b));
    const gift = table()
      .getByRole('row')
      .filter({ hasText: `ID ${giftToken}` });
    expect(await gift.innerText()).toMatch(/gift_pending[\s\S]*Gift/);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'tokens');

    await search({ product: String(h.shop.ebook) });
    await page.getByRole('status').getByText('Showing 2 tokens on page 1.').waitFor();
    expect(new URL(page.url()).searchParams.get('productID')).toBe(String(h.shop.ebook));
    expect(await listedIds()).toEqual(ebookTokens);
    const byProduct = await h.t.post('/ecommerce/listTokens', { productID: h.shop.ebook }, h.shop.adminHeaders);
    expect(byProduct.body.data.map((t: { id: number }) => t.id).sort((a: number, b: number) => a - b)).toEqual(ebookTokens);

    await search({ product: String(h.shop.voucher) });
    await page.getByRole('status').getByText('Showing 1 tokens on page 1.').waitFor();
    expect(await listedIds()).toEqual([giftToken]);

    // By customer: the gift nobody has redeemed has no owner, so it is not the customer's.
    await search({ customer: String(h.shop.customerId) });
    await page.getByRole('status').getByText('Showing 2 tokens on page 1.').waitFor();
    expect(new URL(page.url()).searchParams.get('customerId')).toBe(String(h.shop.customerId));
    expect(await listedIds()).toEqual(ebookTokens);
    for (const owner of await table()
      .getByRole('link', { name: /^Customer / })
      .allInnerTexts())
      expect(owner).toBe(`Customer ${h.shop.customerId}`);

    await search({ customer: '999999' });
    await page.getByRole('status').getByText('No tokens match these filters.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await filters().getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('status').getByText('Showing 3 tokens on page 1.').waitFor();
  });

  it('extends a token with the keyboard alone: its expiry moves by the days given in the database', async () => {
    const id = ebookTokens[0];
    const [{ expiry_date: before }] = await sql(`SELECT expiry_date FROM core_tokens WHERE id = $1`, [id]);
    expect(before).toBeInstanceOf(Date); // the template's 30 days

    const extend = page.getByRole('button', { name: `Extend token ${id}` });
    await page.locator('#main').focus();
    await tabTo(page, extend);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Extend token ${id}` });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // Focus moved into the modal dialog (its first control, the days) and stays there.
    expect(await isFocused(dialog, true)).toBe(true);
    const days = dialog.getByRole('spinbutton', { name: 'Days to add' });
    await tabTo(page, days, 5);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('45');
    await page.keyboard.press('Tab');
    expect(await isFocused(dialog.getByRole('button', { name: 'Extend token' }))).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText(`Token ${id} now expires`).waitFor();
    await dialog.waitFor({ state: 'hidden' });

    const [{ expiry_date: after, status }] = await sql(`SELECT expiry_date, status FROM core_tokens WHERE id = $1`, [id]);
    expect(after.getTime() - before.getTime()).toBe(45 * 24 * 3600 * 1000); // the later of now and the expiry, plus 45 days
    expect(status).toBe('pending');
    const row = table()
      .getByRole('row')
      .filter({ hasText: `ID ${id}` });
    // The new expiry's day as the console writes it, in the browser's locale.
    const shown = await page.evaluate(
      (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(iso)),
      after.toISOString(),
    );
    await row.getByText(new RegExp(`^${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)).waitFor();
  });

  it('expires a token: its status in the database is expired, and it is no longer offered to expire', async () => {
    const id = ebookTokens[1];
    await page.getByRole('button', { name: `Expire token ${id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Expire token ${id}?` });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Yes, expire token' }).click();
    await page.getByRole('status').getByText(`Token ${id} expired.`).waitFor();
    const [{ status }] = await sql(`SELECT status FROM core_tokens WHERE id = $1`, [id]);
    expect(status).toBe('expired');
    const row = table()
      .getByRole('row')
      .filter({ hasText: `ID ${id}` });
    await row.getByText('expired', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: `Expire token ${id}` }).count()).toBe(0);
    await page.getByRole('button', { name: `Extend token ${id}` }).waitFor(); // extending brings it back
  });

  it('offers no extend or expire to a member without tokens.manage, and the API refuses them with 403', async () => {
    const support = await staffMember(h, ['support']); // orders.view: the tokens, but not tokens.manage
    const theirs = await newContext(h);
    try {
      const { page: their, problems: theirProblems } = await watchedPage(theirs);
      await signIn(their, h.shop.appId, support.email);
      await their.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Access tokens' }).click();
      await their.getByRole('status').getByText('Showing 3 tokens on page 1.').waitFor();
      expect(await their.getByRole('button', { name: /^(Extend|Expire) token/ }).count()).toBe(0);
      expect(await their.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
      expect(await axeViolations(their)).toEqual([]);
      expect(theirProblems()).toEqual([]);
    } finally {
      await theirs.close();
    }
    const bearer = { ...h.shop.headers, authorization: `Bearer ${userToken(h.t, h.shop, support.id)}` };
    const tried = await h.t.post('/ecommerce/expireToken', { tokenId: giftToken }, bearer);
    expect(tried.status).toBe(403);
    expect(tried.body).toMatchObject({ status: 'Failed', permission: 'tokens.manage' });
    expect((await sql(`SELECT status FROM core_tokens WHERE id = $1`, [giftToken]))[0].status).toBe('gift_pending');
  });
});
