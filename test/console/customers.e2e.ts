import type { BrowserContext, Page } from 'playwright-core';
import { drain } from '../orders/checkout-helpers';
import {
  axeViolations,
  ConsoleHarness,
  isFocused,
  newContext,
  paidEbook,
  screenshot,
  signIn,
  staffMember,
  startConsoleHarness,
  stopConsoleHarness,
  tabTo,
  watchedPage,
} from './support/console-browser';

/**
 * The console's customers screens in Chromium (README "Staff console", "Staff API: customers"): the list and
 * its search, a customer's page with their orders and access tokens, and a reset link sent with the keyboard
 * alone, which the SMTP peer receives; axe-core on every screen and dialog, screenshots under docs/console/.
 */
describe('console: customers, in a browser', () => {
  let h: ConsoleHarness;
  let order: { _id: string; orderID: number };
  let context: BrowserContext;
  let page: Page;
  let problems: () => string[];
  let ownerEmail: string;
  let zara: number;
  let zed: number;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => h.t.dataSource.query(query, params);
  const customer = async (values: Record<string, unknown>): Promise<number> => {
    const columns = ['app_id', ...Object.keys(values)];
    const [{ id }] = await sql(
      `INSERT INTO core_customers (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      [h.shop.appId, ...Object.values(values)],
    );
    return id;
  };
  const list = () => page.getByRole('region', { name: 'Customers list' });

  beforeAll(async () => {
    h = await startConsoleHarness();
    order = await paidEbook(h.client);
    zara = await customer({ email: 'zara.okafor@example.test', firstname: 'Zara', lastname: 'Okafor', mobile: '+61400000001' });
    zed = await customer({ email: 'zed@example.test', firstname: 'Zed', lastname: 'Okonkwo' });
    [{ user_email: ownerEmail }] = await sql(`SELECT user_email FROM core_users WHERE id = $1`, [h.shop.adminId]);
    context = await newContext(h);
    ({ page, problems } = await watchedPage(context));
    page.setDefaultTimeout(10_000);
    await signIn(page, h.shop.appId, ownerEmail);
  }, 120_000);
  afterAll(() => stopConsoleHarness(h));
  afterEach(() => expect(problems()).toEqual([]));

  it('lists the customers newest first and searches them by name', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('heading', { name: 'Customers', level: 1 }).waitFor();
    const names = list().getByRole('rowheader');
    await names.first().waitFor();
    // As the API lists them: newest first, the shop's own customers only.
    const listed = await h.t.post('/staff/customers', { perPage: 20 }, h.shop.adminHeaders);
    expect(listed.body.data.map((c: { id: number }) => c.id)).toEqual([zed, zara, h.shop.customerId]);
    expect(await names.allInnerTexts()).toEqual([
      expect.stringMatching(/^Zed Okonkwo\s+ID \d+$/),
      expect.stringMatching(/^Zara Okafor\s+ID \d+$/),
      expect.stringMatching(/^Cy\s+ID \d+$/),
    ]);
    await list().getByText('zara.okafor@example.test').waitFor();
    await page.getByRole('status').getByText('Showing 3 customers on page 1.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'customers');

    const search = page.getByRole('search');
    await search.getByRole('searchbox', { name: 'Search' }).fill('okaf');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('status').getByText('Showing 1 customers on page 1.').waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('okaf');
    expect(await names.allInnerTexts()).toEqual([expect.stringMatching(/^Zara Okafor/)]);

    await search.getByRole('searchbox', { name: 'Search' }).fill('nobody-here');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('status').getByText('No customers match.').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await search.getByRole('button', { name: 'Clear search' }).click();
    await page.getByRole('status').getByText('Showing 3 customers on page 1.').waitFor();
  });

  it("shows a customer's account, orders and access tokens as the server holds them", async () => {
    await list().getByRole('link', { name: /^Cy$/ }).click();
    await page.getByRole('heading', { name: 'Cy', level: 1 }).waitFor();
    const account = page.getByRole('region', { name: 'Account' });
    await account.getByText(h.shop.customerEmail).waitFor();

    const orders = page.getByRole('region', { name: 'Orders of this customer' });
    const [row] = await sql(`SELECT customer_id FROM core_orders WHERE id = $1`, [order.orderID]);
    expect(row.customer_id).toBe(h.shop.customerId);
    const orderNumber = String(order.orderID).padStart(8, '0');
    const orderLink = orders.getByRole('link', { name: orderNumber });
    await orderLink.waitFor();
    const orderRow = orders.getByRole('row').filter({ has: page.getByRole('link', { name: orderNumber }) });
    expect(await orderRow.innerText()).toMatch(/Paid[\s\S]*Success[\s\S]*15\.00/);

    const tokens = await sql(`SELECT id, token_value, status FROM core_tokens WHERE customer_id = $1 AND app_id = $2`, [
      h.shop.customerId,
      h.shop.appId,
    ]);
    expect(tokens).toHaveLength(1);
    const tokenRegion = page.getByRole('region', { name: 'Access tokens of this customer' });
    const tokenRow = tokenRegion.getByRole('row').filter({ hasText: `ID ${tokens[0].id}` });
    await tokenRow.waitFor();
    const shown = await tokenRow.innerText();
    expect(shown).toContain(tokens[0].token_value.slice(0, 8));
    expect(shown).not.toContain(tokens[0].token_value); // shortened: the whole value only in its title
    expect(shown).toContain(tokens[0].status);
    expect(shown).toContain(`${order.orderID}`);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'customer');

    // The order's link opens the order.
    await orderLink.click();
    await page.getByRole('heading', { level: 1, name: /^Order / }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Cy', level: 1 }).waitFor();
  });

  it('sends a reset link with the keyboard alone: the mail reaches the customer, and the audit log has it', async () => {
    const before = h.smtp.mails.length;
    const send = page.getByRole('button', { name: 'Send reset link' });
    await send.waitFor();
    // From the screen's start, Tab until the button has focus (no pointer).
    await page.locator('#main').focus();
    await tabTo(page, send);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Send a password reset link?' });
    await dialog.waitFor();
    await dialog.getByText(`goes to ${h.shop.customerEmail}`).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // The confirmation has focus; Space presses it.
    const confirm = dialog.getByRole('button', { name: 'Yes, send reset link' });
    expect(await isFocused(confirm)).toBe(true);
    await page.keyboard.press('Space');
    await page.getByRole('status').getByText(`A password reset link was mailed to ${h.shop.customerEmail}.`).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(await isFocused(send)).toBe(true); // focus back on the opener

    await drain(h.t);
    const mails = h.smtp.mails
      .slice(before)
      .filter((m) => m.envelope.to.includes(h.shop.customerEmail) && m.parsed.subject?.endsWith(': reset your password'));
    expect(mails).toHaveLength(1);
    expect(mails[0].parsed.text).toMatch(/token=/);
    const audited = await sql(`SELECT actor_id, record_id FROM core_audit_log WHERE app_id = $1 AND action = 'customer.reset_link'`, [
      h.shop.appId,
    ]);
    expect(audited).toEqual([{ actor_id: h.shop.adminId, record_id: String(h.shop.customerId) }]);
  });

  it('offers no reset link to a viewer, who may still read the customer', async () => {
    const viewer = await staffMember(h, ['viewer']);
    const theirs = await newContext(h);
    try {
      const { page: their, problems: theirProblems } = await watchedPage(theirs);
      await signIn(their, h.shop.appId, viewer.email);
      await their.goto(`/console/customers/${zara}`);
      await their.getByRole('heading', { name: 'Zara Okafor', level: 1 }).waitFor();
      await their.getByRole('region', { name: 'Account' }).getByText('+61400000001').waitFor();
      expect(await their.getByRole('button', { name: 'Send reset link' }).count()).toBe(0);
      expect(theirProblems()).toEqual([]);
    } finally {
      await theirs.close();
    }
  });
});
