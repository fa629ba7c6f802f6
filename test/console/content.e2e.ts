import type { BrowserContext, Locator, Page } from 'playwright-core';
import { userToken } from '../versioning/content-helpers';
import { waitFor } from '../support/wait';
import {
  axeViolations,
  ConsoleHarness,
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
 * The console's content screens in Chromium (README "Staff console", "Staff API: content tables", docs/content.md):
 * the tables with their records by stage, a stage's records, a record edited in the editor (a new draft version),
 * staged and published with the keyboard alone (then /getDataRows gives readers the new values), the history with
 * the diff of two versions, a roll back, an expiry scheduled; a content-role member sees content and no orders.
 * Each effect is checked in core_data or through the API; axe-core on every screen and dialog, screenshots under
 * docs/console/.
 */
describe('console: content, in a browser', () => {
  let h: ConsoleHarness;
  let context: BrowserContext;
  let page: Page;
  let problems: () => string[];
  let ownerEmail: string;
  /** Master ids: the book is edited, published, rolled back; the poster a draft; the tent expired. */
  let book: number;
  let poster: number;
  /** The book's first version (its Current_ID), and the one the editor saves. */
  let first: number;
  let second: number;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => h.t.dataSource.query(query, params);
  const versions = (masterId: number) =>
    sql<{ Current_ID: number; Status: string; IsCurrent: number; Published: number; Staged: number; Publish_Expire_Date: Date | null }>(
      `SELECT "Current_ID", "Status", "IsCurrent", "Published", "Staged", "Publish_Expire_Date" FROM core_data
        WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_products' AND "Master_ID" = $2 ORDER BY "Current_ID"`,
      [h.shop.appId, masterId],
    );
  /** What a reader of the shop gets: the published book (public headers, no bearer). */
  const published = async (masterId: number) => {
    const res = await h.t.post(
      '/getDataRows',
      {
        table: 'core_products',
        fields: 'title,price',
        whereConditions: { conditions: [{ field: 'meta_master_id', operator: 'equals', value: String(masterId) }] },
      },
      h.shop.headers,
    );
    expect(res.status).toBe(200);
    return (res.body.data as { title: string; price: number }[]).map(({ title, price }) => ({ title, price }));
  };
  /** A datetime-local input's value for `date` in the browser's (and this process's) time zone. */
  const local = (date: Date) => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  const tab = (name: RegExp) => page.getByRole('navigation', { name: 'Stages' }).getByRole('link', { name });

  beforeAll(async () => {
    h = await startConsoleHarness();
    book = h.shop.book;
    const content = async (action: string, body: Record<string, unknown>) => {
      const res = await h.t.post(`/content/${action}`, { table: 'core_products', ...body }, h.shop.adminHeaders);
      if (res.status !== 200 && res.status !== 201) throw new Error(`${action}: ${JSON.stringify(res.body)}`);
      return res.body.data;
    };
    poster = (await content('create', { data: { title: 'Poster', price: 1900, tax: 173, bond: 0, IsDigital: 0, IsEvent: 0 } })).Master_ID;
    await content('expire', { masterId: h.shop.tent });
    [{ Current_ID: first }] = await versions(book);
    [{ user_email: ownerEmail }] = await sql(`SELECT user_email FROM core_users WHERE id = $1`, [h.shop.adminId]);
    context = await newContext(h);
    ({ page, problems } = await watchedPage(context));
    page.setDefaultTimeout(10_000);
    await signIn(page, h.shop.appId, ownerEmail);
  }, 120_000);
  afterAll(() => stopConsoleHarness(h));
  afterEach(() => expect(problems()).toEqual([]));

  it('lists the content tables with their records by stage, as /content/tables counts them', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Content' }).click();
    await page.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
    const tables = page.getByRole('region', { name: 'Content tables' });
    const products = tables.getByRole('row').filter({ has: page.getByRole('link', { name: 'core_products', exact: true }) });
    await products.waitFor();
    const counted = (await h.t.post('/content/tables', {}, h.shop.adminHeaders)).body.data;
    const stages = counted.find((t: { table: string }) => t.table === 'core_products').stages;
    expect(stages).toEqual({ draft: 1, staged: 0, published: 3, expired: 1 });
    expect((await products.getByRole('cell').allInnerTexts()).map((text) => text.trim())).toEqual(['1', '0', '3', '1']);
    // No account table is offered as content.
    for (const account of ['core_users', 'core_customers', 'core_app_users'])
      expect(await tables.getByRole('link', { name: account, exact: true }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'content-tables');
  });

  it("lists a table's records by stage", async () => {
    await page.getByRole('link', { name: 'core_products', exact: true }).click();
    await page.getByRole('heading', { name: 'core_products', level: 1 }).waitFor();
    const records = (label: string) => page.getByRole('region', { name: label }).getByRole('rowheader');
    // Drafts first: the poster, created and never published.
    await tab(/^Drafts \(1\)$/).waitFor();
    await page.getByRole('status').getByText('Showing 1 records on page 1.').waitFor();
    expect(await tab(/^Drafts/).getAttribute('aria-current')).toBe('page');
    expect(await records('Drafts records').allInnerTexts()).toEqual([expect.stringMatching(new RegExp(`^Poster\\s+ID ${poster}$`))]);

    await tab(/^Published \(3\)$/).click();
    await page.getByRole('status').getByText('Showing 3 records on page 1.').waitFor();
    expect(new URL(page.url()).searchParams.get('stage')).toBe('published');
    expect((await records('Published records').allInnerTexts()).map((t) => t.split('\n')[0]).sort()).toEqual([
      'Book',
      'E-book',
      'Gift voucher',
    ]);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'content-rows');

    await tab(/^Expired \(1\)$/).click();
    await page.getByRole('status').getByText('Showing 1 records on page 1.').waitFor();
    expect(await records('Expired records').allInnerTexts()).toEqual([expect.stringMatching(/^Tent hire/)]);

    await tab(/^Staged \(0\)$/).click();
    await page
      .getByRole('status')
      .getByText(/^No staged records\.$/)
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  it("edits a record's fields and saves them: a new draft version, readers still see the published one", async () => {
    await tab(/^Published/).click();
    await page.getByRole('link', { name: 'Book', exact: true }).click();
    await page.getByRole('heading', { name: 'Book', level: 1 }).waitFor();
    const fields = page.getByRole('form', { name: 'Fields' });
    const title = fields.getByRole('textbox', { name: 'title', exact: true });
    const price = fields.getByRole('textbox', { name: 'price', exact: true });
    expect(await title.inputValue()).toBe('Book');
    expect(await price.inputValue()).toBe('2500');
    await title.fill('Book, second edition');
    await price.fill('2700');
    await fields.getByRole('status').getByText('Unsaved changes.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'content-editor');

    // A value the column cannot take is refused before anything is sent, on its field.
    await price.fill('twenty');
    await fields.getByRole('button', { name: 'Save changes' }).click();
    await fields.getByText('price must be a whole number').first().waitFor();
    expect(await price.getAttribute('aria-invalid')).toBe('true');
    expect(await versions(book)).toHaveLength(1);
    await price.fill('2700');

    await fields.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('Record saved').waitFor();
    const saved = await versions(book);
    expect(saved).toHaveLength(2);
    second = saved[1].Current_ID;
    expect(saved).toEqual([
      expect.objectContaining({ Current_ID: first, IsCurrent: 0, Status: 'Published', Published: 1 }),
      expect.objectContaining({ Current_ID: second, IsCurrent: 1, Status: 'Editing', Published: 0, Staged: 0 }),
    ]);
    const [row] = await sql(`SELECT title, price FROM core_products WHERE id = $1`, [second]);
    expect(row).toEqual({ title: 'Book, second edition', price: 2700 });
    await page.getByRole('heading', { name: 'Book, second edition', level: 1 }).waitFor();
    await fields.getByText(new RegExp(`^Version ${second} ·`)).waitFor();
    expect(await published(book)).toEqual([{ title: 'Book', price: 2500 }]); // the edit is a draft
  });

  it('stages and publishes the new version with the keyboard alone: /getDataRows returns its values', async () => {
    const publishing = page.getByRole('region', { name: 'Publishing' });
    const stage = publishing.getByRole('button', { name: 'Stage', exact: true });
    await page.locator('#main').focus();
    await tabTo(page, stage);
    await page.keyboard.press('Space');
    await page.getByRole('status').getByText('Record staged: the version is now Staged.').waitFor();
    expect((await versions(book))[1]).toMatchObject({ Current_ID: second, Status: 'Staged', Staged: 1, Published: 0 });
    expect(await published(book)).toEqual([{ title: 'Book', price: 2500 }]);

    const publish = publishing.getByRole('button', { name: 'Publish', exact: true });
    await publish.waitFor(); // offered once the staged version is read back
    await tabTo(page, publish);
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Record published: the version is now Published.').waitFor();
    expect(await versions(book)).toEqual([
      expect.objectContaining({ Current_ID: first, Published: 0 }),
      expect.objectContaining({ Current_ID: second, IsCurrent: 1, Status: 'Published', Published: 1 }),
    ]);
    expect(await published(book)).toEqual([{ title: 'Book, second edition', price: 2700 }]);
    await publishing.getByText('Published', { exact: true }).waitFor();
  });

  /** Waits until the locator's text matches (a list or history read again after a change), then checks it. */
  async function textOf(locator: Locator, pattern: RegExp): Promise<void> {
    await waitFor(async () => pattern.test(await locator.innerText()), 10_000).catch(() => undefined);
    expect(await locator.innerText()).toMatch(pattern);
  }

  it('shows the history and the diff of two versions as /content/diff gives it', async () => {
    const history = page.getByRole('region', { name: 'History' });
    const rows = history.getByRole('region', { name: 'Versions' }).getByRole('row');
    await rows.filter({ hasText: 'Book, second edition' }).waitFor();
    expect(await rows.count()).toBe(3); // the header and two versions, newest first
    // The history is read again after the publish: wait for the row to say so before reading it.
    await textOf(rows.nth(1), new RegExp(`^${second}\\s+Current[\\s\\S]*Published[\\s\\S]*Book, second edition`));
    expect(await rows.nth(2).innerText()).toMatch(new RegExp(`^${first}\\s[\\s\\S]*Book`));
    expect(await rows.nth(1).innerText()).not.toContain('Staged'); // a published version is staged too: nothing to say

    const compare = history.getByRole('region', { name: 'Compare two versions' });
    expect(await compare.getByRole('combobox', { name: 'Older version' }).inputValue()).toBe(String(first));
    expect(await compare.getByRole('combobox', { name: 'Newer version' }).inputValue()).toBe(String(second));
    await compare.getByRole('button', { name: 'Compare versions' }).click();
    await compare.getByRole('status').getByText(`2 fields changed from version ${first} to ${second}.`).waitFor();
    const diff = await h.t.post(
      '/content/diff',
      { table: 'core_products', masterId: book, fromCurrentId: first, toCurrentId: second },
      h.shop.adminHeaders,
    );
    const changes = diff.body.data.changes as { field: string; from: unknown; to: unknown }[];
    expect(changes.map((c) => c.field).sort()).toEqual(['price', 'title']);
    const changed = compare.getByRole('region', { name: 'Changed fields' });
    for (const change of changes) {
      const line = changed.getByRole('row').filter({ has: page.getByRole('rowheader', { name: change.field, exact: true }) });
      expect((await line.getByRole('cell').allInnerTexts()).map((t) => t.trim())).toEqual([String(change.from), String(change.to)]);
    }
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'content-history');
  });

  it('rolls back to the first version: it is current again, and readers keep the published one until it is published', async () => {
    await page.getByRole('button', { name: `Roll back to version ${first}` }).click();
    const dialog = page.getByRole('dialog', { name: `Roll back to version ${first}?` });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Yes, roll back' }).click();
    await page
      .getByRole('status')
      .getByText(`Rolled back to version ${first}: the current version is now ${first} (Rolled Back).`)
      .waitFor();
    expect(await versions(book)).toEqual([
      expect.objectContaining({ Current_ID: first, IsCurrent: 1, Status: 'Rolled Back' }),
      expect.objectContaining({ Current_ID: second, IsCurrent: 0, Published: 1 }),
    ]);
    // The editor shows the version now current.
    const fields = page.getByRole('form', { name: 'Fields' });
    await fields.getByText(new RegExp(`^Version ${first} ·`)).waitFor();
    expect(await fields.getByRole('textbox', { name: 'title', exact: true }).inputValue()).toBe('Book');
    expect(await published(book)).toEqual([{ title: 'Book, second edition', price: 2700 }]);
  });

  it('publishes the restored version with an expiry scheduled: core_data holds it, readers see it until then', async () => {
    const expires = new Date(Date.now() + 7 * 24 * 3600 * 1000);
    expires.setSeconds(0, 0);
    const publishing = page.getByRole('region', { name: 'Publishing' });
    await publishing.getByLabel('Expires at').fill(local(expires));
    await publishing.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('status').getByText('Record published: the version is now Published.').waitFor();
    const [restored, later] = await versions(book);
    expect(restored).toMatchObject({ Current_ID: first, IsCurrent: 1, Status: 'Published', Published: 1 });
    expect(restored.Publish_Expire_Date?.toISOString()).toBe(expires.toISOString());
    expect(later).toMatchObject({ Published: 0 });
    expect(await published(book)).toEqual([{ title: 'Book', price: 2500 }]);
    // The day as the console writes it, in the browser's locale.
    const shownDate = await page.evaluate(
      (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(iso)),
      expires.toISOString(),
    );
    const startsWithDay = new RegExp(`^${shownDate.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    await publishing.getByText(startsWithDay).waitFor();

    // The published stage lists its expiry.
    await page.getByRole('link', { name: 'core_products', exact: true }).click();
    await tab(/^Published/).click();
    const row = page
      .getByRole('region', { name: 'Published records' })
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: 'Book', exact: true }) });
    await textOf(row.getByRole('cell').last(), startsWithDay); // once the list read after the publish is shown
  });

  it('shows a content-role member the content screens and no orders', async () => {
    const editor = await staffMember(h, ['content']);
    const theirs = await newContext(h);
    try {
      const { page: their, problems: theirProblems } = await watchedPage(theirs);
      their.setDefaultTimeout(10_000);
      await signIn(their, h.shop.appId, editor.email);
      const nav = their.getByRole('navigation', { name: 'Main' });
      // Their home is the first screen they may use: content.
      await their.getByRole('heading', { name: 'Content', level: 1 }).waitFor();
      const offered = await nav.getByRole('link').allInnerTexts();
      expect(offered).toContain('Content');
      for (const name of ['Orders', 'Customers', 'Access tokens', 'Staff', 'Settings']) expect(offered).not.toContain(name);
      await their.getByRole('link', { name: 'core_products', exact: true }).click();
      await their.getByRole('heading', { name: 'core_products', level: 1 }).waitFor();
      expect(await axeViolations(their)).toEqual([]);

      // The orders screen is not theirs, by its address either; the API refuses them.
      await their.goto('/console/orders');
      await their.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await their.getByRole('heading', { name: 'Orders', level: 1 }).count()).toBe(0);
      expect(theirProblems()).toEqual([]);
    } finally {
      await theirs.close();
    }
    const tried = await h.t.post(
      '/ecommerce/listOrders',
      {},
      { ...h.shop.headers, authorization: `Bearer ${userToken(h.t, h.shop, editor.id)}` },
    );
    expect(tried.status).toBe(403);
    expect(tried.body).toMatchObject({ status: 'Failed', permission: 'orders.view' });
  });
});
