import type { BrowserContext, Page } from 'playwright-core';
import { drain } from '../orders/checkout-helpers';
import {
  axeViolations,
  ConsoleHarness,
  newContext,
  screenshot,
  signIn,
  startConsoleHarness,
  stopConsoleHarness,
  watchedPage,
} from './support/console-browser';
import { description } from './support/described';

const INVITEE = 'ivy.invited@example.test';
const NEW_SECRET = 'sk_test_consoleRotated9876';

/**
 * The console's owner screens in Chromium (README "Staff console"): staff and roles (an invitation with roles done
 * with the keyboard alone, a change of roles, a removal, the last owner kept with the API's message in the dialog),
 * tenant settings (a bad value named next to its field, the shop's name and currency changed, a secret write-only
 * and shown masked), and the audit log showing those changes with before and after. Each effect is checked in the
 * database or through the API; axe-core on every screen and dialog; screenshots under docs/console/.
 */
describe('console: staff, settings and the audit log, in a browser', () => {
  let h: ConsoleHarness;
  let context: BrowserContext;
  let page: Page;
  let problems: () => string[];
  let owner: { id: number; user_email: string };
  let olly: { id: number };
  let inviteeId: number;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => h.t.dataSource.query(query, params);
  const member = async (id: number) =>
    (await sql(`SELECT staff_roles, primary_role, password IS NOT NULL AS "passwordSet" FROM core_users WHERE id = $1`, [id]))[0];
  const staffTable = () => page.getByRole('region', { name: 'Staff members' });
  const status = () => page.getByRole('main').getByRole('status').first();

  beforeAll(async () => {
    h = await startConsoleHarness();
    [owner] = await sql(`SELECT id, user_email FROM core_users WHERE app_id = $1 AND firstname = 'Ada'`, [h.shop.appId]);
    [olly] = await sql(`SELECT id FROM core_users WHERE app_id = $1 AND firstname = 'Olly'`, [h.shop.appId]);
    await drain(h.t);
    context = await newContext(h);
    ({ page, problems } = await watchedPage(context));
    await signIn(page, h.shop.appId, owner.user_email);
    page.setDefaultTimeout(5000);
  }, 120_000);
  afterAll(() => stopConsoleHarness(h));
  afterEach(() => expect(problems()).toEqual([]));

  it('invites a staff member with roles, with the keyboard alone: the account and the invitation mail', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Staff' }).click();
    await page.getByRole('heading', { name: 'Staff', level: 1 }).waitFor();
    await staffTable().getByRole('row', { name: /Ada/ }).getByText('You').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    const invite = page.getByRole('region', { name: 'Invite a staff member' });
    await invite.getByLabel('Email').focus();
    await page.keyboard.type(INVITEE);
    await page.keyboard.press('Tab');
    await page.keyboard.type('Ivy');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Invited');
    await page.keyboard.press('Tab'); // Owner
    await page.keyboard.press('Tab'); // Orders
    await page.keyboard.press('Tab'); // Content
    await page.keyboard.press('Tab'); // Support
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab'); // Viewer
    await page.keyboard.press('Space');
    const checked = async (role: string) => invite.getByRole('checkbox', { name: new RegExp(`^${role}:`) }).isChecked();
    expect(await Promise.all(['Owner', 'Orders', 'Content', 'Support', 'Viewer'].map(checked))).toEqual([false, false, false, true, true]);
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Invite');
    await page.keyboard.press('Enter');

    await status().getByText(`Invitation sent to ${INVITEE}: they set a password through the link in it.`).waitFor();
    const row = staffTable().getByRole('row', { name: /Ivy Invited/ });
    await row.getByText('Invited', { exact: true }).waitFor(); // no password yet
    expect((await row.getByRole('list', { name: 'Roles of Ivy Invited' }).innerText()).split('\n')).toEqual(['support', 'viewer']);

    [{ id: inviteeId }] = await sql(`SELECT id FROM core_users WHERE app_id = $1 AND user_email = $2`, [h.shop.appId, INVITEE]);
    expect(await member(inviteeId)).toEqual({ staff_roles: ['support', 'viewer'], primary_role: 'user', passwordSet: false });
    await drain(h.t);
    expect(h.smtp.mails.filter((mail) => mail.envelope.to.includes(INVITEE))).toHaveLength(1);
    await screenshot(page, 'staff');
  });

  it("changes a member's roles in a dialog", async () => {
    await staffTable().getByRole('button', { name: 'Change roles of Ivy Invited' }).click();
    const dialog = page.getByRole('dialog', { name: 'Roles of Ivy Invited' });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('checkbox', { name: /^Viewer:/ }).uncheck();
    await dialog.getByRole('checkbox', { name: /^Orders:/ }).check();
    await dialog.getByRole('button', { name: 'Save roles' }).click();
    await status().getByText(`Roles of ${INVITEE}: orders, support.`).waitFor();
    expect(await dialog.count()).toBe(0);
    expect((await member(inviteeId)).staff_roles.sort()).toEqual(['orders', 'support']);

    // Olly (an admin: an owner) becomes an orders member, so Ada is the shop's last owner.
    await staffTable().getByRole('button', { name: 'Change roles of Olly' }).click();
    const theirs = page.getByRole('dialog', { name: 'Roles of Olly' });
    await theirs.getByRole('checkbox', { name: /^Owner:/ }).uncheck();
    await theirs.getByRole('checkbox', { name: /^Orders:/ }).check();
    await theirs.getByRole('button', { name: 'Save roles' }).click();
    await status()
      .getByText(/^Roles of \S+: orders\.$/)
      .waitFor();
    expect(await member(olly.id)).toMatchObject({ staff_roles: ['orders'], primary_role: 'user' });
  });

  it('removes a member, and keeps the last owner: the API says why in the dialog', async () => {
    await staffTable().getByRole('button', { name: 'Remove Ivy Invited' }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${INVITEE}?` });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Yes, remove' }).click();
    await status().getByText(`${INVITEE} was removed: no roles, no password, signed out everywhere.`).waitFor();
    expect(await member(inviteeId)).toMatchObject({ staff_roles: [], passwordSet: false });
    await staffTable()
      .getByRole('row', { name: /Ivy Invited/ })
      .getByText('No roles')
      .waitFor();
    expect(await staffTable().getByRole('button', { name: 'Remove Ivy Invited' }).count()).toBe(0);

    await staffTable().getByRole('button', { name: 'Remove Ada' }).click();
    const last = page.getByRole('dialog', { name: `Remove ${owner.user_email}?` });
    await last.getByRole('button', { name: 'Yes, remove' }).click();
    await last.getByRole('alert').getByText('An app keeps at least one owner: make another staff member owner first').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await last.waitFor({ state: 'hidden' });
    expect(await page.locator(':focus').getAttribute('aria-label')).toBe('Remove Ada'); // focus back on the opener
    expect(await member(owner.id)).toMatchObject({ primary_role: 'admin', passwordSet: true });
    const listed = await h.t.post('/staff/list', {}, h.shop.adminHeaders);
    expect(listed.body.data.filter((m: { roles: string[] }) => m.roles.includes('owner')).map((m: { id: number }) => m.id)).toEqual([
      owner.id,
    ]);
  });

  it('changes the settings: a bad value named at its field, then the name and currency, and a write-only secret', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const [before] = await sql(`SELECT name, currency, payment_test_private_key FROM core_sites WHERE id = $1`, [h.shop.appId]);
    const secret = page.getByLabel('Test secret key (new value)');
    expect(await secret.getAttribute('type')).toBe('password');
    expect(await secret.inputValue()).toBe('');
    const masked = (await h.t.post('/staff/settings', {}, h.shop.adminHeaders)).body.data.payment_test_private_key;
    expect(masked).toMatch(/^sk_test_…/);
    expect(await description(secret)).toContain(`Current: ${masked}.`);
    expect(await page.content()).not.toContain(before.payment_test_private_key);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel('Shop name').fill('Console Books');
    await page.getByLabel('Currency').fill('zzz');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const currency = page.getByLabel('Currency');
    await currency.and(page.locator('[aria-invalid="true"]')).waitFor();
    expect(await description(currency)).toContain('must be an ISO 4217 currency code such as aud, eur or usd (got "zzz")');
    expect(await page.getByLabel('Shop name').getAttribute('aria-invalid')).toBeNull();
    expect(await axeViolations(page)).toEqual([]);
    // All or nothing: the good name was not saved with the bad currency.
    expect(await sql(`SELECT name, currency FROM core_sites WHERE id = $1`, [h.shop.appId])).toEqual([
      { name: before.name, currency: before.currency },
    ]);

    await currency.fill('EUR');
    await secret.fill(NEW_SECRET);
    await page.getByRole('main').getByRole('status').getByText('3 unsaved changes.').waitFor();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page
      .getByRole('main')
      .getByRole('status')
      .getByText(/^Saved: /)
      .waitFor();
    expect(await sql(`SELECT name, currency, payment_test_private_key FROM core_sites WHERE id = $1`, [h.shop.appId])).toEqual([
      { name: 'Console Books', currency: 'eur', payment_test_private_key: NEW_SECRET },
    ]);
    const api = await h.t.post('/staff/settings', {}, h.shop.adminHeaders);
    expect(api.body.data).toMatchObject({ name: 'Console Books', currency: 'eur', payment_test_private_key: 'sk_test_…9876' });

    // The form is made again from the saved settings: the secret field empty, the new key shown masked only.
    expect(await page.getByLabel('Currency').inputValue()).toBe('eur');
    expect(await page.getByLabel('Test secret key (new value)').inputValue()).toBe('');
    expect(await description(page.getByLabel('Test secret key (new value)'))).toContain('Current: sk_test_…9876.');
    expect(await page.content()).not.toContain(NEW_SECRET);
    await screenshot(page, 'settings');
  });

  it('shows those changes in the audit log, with before and after', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const entries = page.getByRole('region', { name: 'Audit entries' });
    await entries.getByRole('row', { name: /settings\.update/ }).waitFor();
    expect(await entries.getByRole('rowheader').allInnerTexts()).toEqual([
      'settings.update',
      'staff.remove',
      'staff.roles',
      'staff.roles',
      'staff.invite',
    ]);
    const settings = entries.getByRole('row', { name: /settings\.update/ });
    await settings.getByText(/^name: .+ → Console Books$/).waitFor();
    await settings.getByText(/^currency: aud → eur$/).waitFor();
    await settings.getByText('payment_test_private_key: [masked] → [masked]').waitFor();
    await settings.getByText(`Staff ${owner.id}`).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'audit');

    // Filtered to one action: the role change of the invited member, before and after.
    const filters = page.getByRole('search', { name: 'Filter the audit log' });
    await filters.getByLabel('Action').fill('staff.roles');
    await filters.getByLabel('Record ID').fill(String(inviteeId));
    await filters.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('main').getByRole('status').getByText('Showing 1 entries on page 1.').waitFor();
    await entries.getByText('roles: ["support","viewer"] → ["orders","support"]').waitFor();

    const audit = await h.t.post('/staff/audit', { action: 'staff.roles', recordId: String(inviteeId) }, h.shop.adminHeaders);
    expect(audit.body.data).toEqual([
      expect.objectContaining({
        actor: { id: owner.id, table: 'core_users' },
        changes: { roles: { before: ['support', 'viewer'], after: ['orders', 'support'] } },
      }),
    ]);
  });
});
