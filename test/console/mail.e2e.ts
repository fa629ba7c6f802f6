import type { BrowserContext, Page } from 'playwright-core';
import { drain } from '../orders/checkout-helpers';
import {
  axeViolations,
  ConsoleHarness,
  newContext,
  paidOrders,
  screenshot,
  signIn,
  startConsoleHarness,
  stopConsoleHarness,
  watchedPage,
} from './support/console-browser';
import { description } from './support/described';

const SUBJECT = 'Your order [orderId] from [siteName] is confirmed';
const CONTENT = '<p>Dear [billingName],</p>\n<p>Thanks for shopping with us.</p>\n<p>[items]</p>\n<p>Total [total]</p>';
const BOUNCE = 'bounce@example.test';

/**
 * The console's mail screens in Chromium (README "Staff console"): the order confirmation made a template of the
 * shop's own with the live preview, a test send and the next order's mail at the SMTP peer; the send log with its
 * filters, one mail opened, and a mail the SMTP peer refused retried from the console until it arrives. axe-core on
 * every screen, screenshots under docs/console/.
 */
describe('console: mail templates and the send log, in a browser', () => {
  let h: ConsoleHarness;
  let context: BrowserContext;
  let page: Page;
  let problems: () => string[];
  let ownerEmail: string;
  let siteName: string;
  let orderID: number;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => h.t.dataSource.query(query, params);
  const mailsTo = (email: string) => h.smtp.mails.filter((mail) => mail.envelope.to.includes(email));
  const logRow = async (where: string, params: unknown[]) =>
    (
      await sql(
        `SELECT id, status, attempts, subject, last_error FROM core_notification_log WHERE app_id = $1 AND ${where} ORDER BY id DESC`,
        [h.shop.appId, ...params],
      )
    )[0];

  beforeAll(async () => {
    // One refusal by the mail server makes a mail Failed (the default gives it 5 tries with a backoff).
    h = await startConsoleHarness({ NOTIFY_MAX_ATTEMPTS: '1' });
    [{ user_email: ownerEmail }] = await sql(`SELECT user_email FROM core_users WHERE app_id = $1 AND firstname = 'Ada'`, [h.shop.appId]);
    [{ name: siteName }] = await sql(`SELECT name FROM core_sites WHERE id = $1`, [h.shop.appId]);
    await drain(h.t);
    context = await newContext(h);
    ({ page, problems } = await watchedPage(context));
    await signIn(page, h.shop.appId, ownerEmail);
    page.setDefaultTimeout(5000);
  }, 120_000);
  afterAll(() => stopConsoleHarness(h));
  afterEach(() => expect(problems()).toEqual([]));

  it('makes the order confirmation a template of the shop: created, edited with the live preview, saved', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Mail templates' }).click();
    await page.getByRole('heading', { name: 'Mail templates', level: 1 }).waitFor();
    await page.getByRole('region', { name: 'New template' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    const form = page.getByRole('region', { name: 'New template' });
    await form.getByLabel('Event').fill('order_confirmation');
    await form.getByLabel('Subject').fill('Thanks from [siteName]: order [orderId]');
    await form.getByLabel('Content (HTML)').fill('<p>Dear [billingName],</p><p>[items]</p><p>Total [total]</p>');
    await form.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Template order_confirmation', level: 1 }).waitFor();
    const preview = page.getByRole('region', { name: 'Preview', exact: true });
    await preview.getByText('Thanks from Sample Shop: order 1001', { exact: true }).waitFor();

    // Typing changes the preview, rendered by the service with the order mail's sample data, before any save.
    const editor = page.getByRole('region', { name: 'Edit', exact: true });
    await editor.getByLabel('Subject').fill(SUBJECT);
    await editor.getByLabel('Content (HTML)').fill(CONTENT);
    await editor.getByRole('status').getByText('Unsaved changes.').waitFor();
    await preview.getByText('Your order 1001 from Sample Shop is confirmed', { exact: true }).waitFor();
    const frame = page.frameLocator('iframe[title="Mail preview (HTML)"]');
    await frame.getByText('Thanks for shopping with us.').waitFor();
    await frame.getByText('Dear Ann Shopper,').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'template-editor');

    // Markup that does not balance is refused, with the message next to the field; nothing is saved.
    await editor.getByLabel('Content (HTML)').fill('<p><b>Dear [billingName]</p>');
    await editor.getByRole('button', { name: 'Save template' }).click();
    await editor.getByLabel('Content (HTML)').and(page.locator('[aria-invalid="true"]')).waitFor();
    expect(await description(editor.getByLabel('Content (HTML)'))).toMatch(/<\/p>.*line 1/i);
    await page.getByRole('alert').getByText('Validation error').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await editor.getByLabel('Content (HTML)').fill(CONTENT);

    await editor.getByRole('button', { name: 'Save template' }).click();
    await editor.getByRole('status').getByText('Saved as version 2.').waitFor();
    expect(
      await sql(`SELECT subject, content, enabled FROM core_notifications WHERE app_id = $1 AND event = 'order_confirmation'`, [
        h.shop.appId,
      ]),
    ).toEqual([{ subject: SUBJECT, content: CONTENT, enabled: true }]);
    const versions = page.getByRole('region', { name: 'Template versions' });
    await versions.getByRole('button', { name: 'Restore version 1' }).waitFor();

    await page.getByRole('link', { name: 'Mail templates' }).first().click();
    const row = page.getByRole('region', { name: 'Templates' }).getByRole('row', { name: /order_confirmation/ });
    await row.getByText(SUBJECT).waitFor();
    await row.getByText('Order mail').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'templates');
    await row.getByRole('link', { name: 'order_confirmation' }).click();
    await page.getByRole('heading', { name: 'Template order_confirmation', level: 1 }).waitFor();
  });

  it('sends a test with the keyboard alone: it arrives at the SMTP peer', async () => {
    const test = page.getByRole('region', { name: 'Test send' });
    await test.getByLabel('Send a test to').focus();
    await page.keyboard.type('me@example.test');
    await page.keyboard.press('Enter');
    await test
      .getByRole('status')
      .getByText(/^Test mail queued \(send log #\d+\): Your order 1001 from Sample Shop is confirmed\.$/)
      .waitFor();

    await drain(h.t);
    const [mail] = mailsTo('me@example.test');
    expect(mail.parsed.subject).toBe('TEST: Your order 1001 from Sample Shop is confirmed');
    expect(mail.parsed.html).toContain('Thanks for shopping with us.');
    expect(mail.envelope.to).toEqual(['me@example.test']); // a test goes to its address alone
  });

  it("puts the change into the next order's confirmation at the SMTP peer", async () => {
    h.smtp.mails.length = 0;
    [{ orderID }] = await paidOrders(h.client, 1);
    await drain(h.t);
    const [mail] = mailsTo(h.shop.customerEmail);
    expect(mail.parsed.subject).toBe(`Your order ${orderID} from ${siteName} is confirmed`);
    expect(mail.parsed.html).toContain('<p>Dear Ann Shopper,</p>');
    expect(mail.parsed.html).toContain('<p>Thanks for shopping with us.</p>');
    expect(mail.parsed.text).toContain('Thanks for shopping with us.');
  });

  it('filters the send log and opens a mail', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Send log' }).click();
    await page.getByRole('heading', { name: 'Send log', level: 1 }).waitFor();
    const mails = page.getByRole('region', { name: 'Mails' });
    await mails.getByRole('link', { name: /^TEST: Your order 1001/ }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'send-log');

    const filters = page.getByRole('search', { name: 'Filter mails' });
    await filters.getByLabel('Status').selectOption('Sent');
    await filters.getByLabel('Event').fill('order_confirmation');
    await filters.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').getByText('Showing 2 mails, page 1.').waitFor(); // the test send and the order's
    await filters.getByLabel('Recipient').fill(h.shop.customerEmail.toUpperCase());
    await filters.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').getByText('Showing 1 mail, page 1.').waitFor();
    const subject = `Your order ${orderID} from ${siteName} is confirmed`;
    expect(await mails.getByRole('row').count()).toBe(2); // the header and the one mail
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ status: 'Sent', event: 'order_confirmation' });

    await mails.getByRole('link', { name: subject }).click();
    await page.getByRole('heading', { name: subject, level: 1 }).waitFor();
    const delivery = page.getByRole('region', { name: 'Delivery' });
    await delivery.getByText(h.shop.customerEmail, { exact: true }).waitFor();
    await delivery.getByText(`Order ${orderID}`, { exact: true }).waitFor();
    await page.frameLocator('iframe[title="Mail body (HTML)"]').getByText('Thanks for shopping with us.').waitFor();
    expect(await delivery.getByRole('button', { name: 'Retry' }).count()).toBe(0); // only a Failed mail is retried
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'mail');
  });

  it('retries a mail the SMTP peer refused: Failed, back in the queue from the console, then delivered', async () => {
    // A test send to an address the SMTP peer refuses (550): after one refusal the mail is Failed.
    h.smtp.rejectRecipients.add(BOUNCE);
    await page.goto('/console/mail/templates/order_confirmation');
    const test = page.getByRole('region', { name: 'Test send' });
    await test.getByLabel('Send a test to').fill(BOUNCE);
    await test.getByRole('button', { name: 'Send test' }).click();
    await test
      .getByRole('status')
      .getByText(/^Test mail queued/)
      .waitFor();
    await drain(h.t);
    const failed = await logRow('email = $2', [BOUNCE]);
    expect(failed).toMatchObject({ status: 'Failed', attempts: 1, last_error: expect.stringContaining('550') });
    expect(mailsTo(BOUNCE)).toEqual([]);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Send log' }).click();
    const filters = page.getByRole('search', { name: 'Filter mails' });
    await filters.getByLabel('Status').selectOption('Failed');
    await filters.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').getByText('Showing 1 mail, page 1.').waitFor();
    await page.getByRole('region', { name: 'Mails' }).getByRole('link', { name: failed.subject }).click();
    const delivery = page.getByRole('region', { name: 'Delivery' });
    await delivery.getByText(/^550 /).waitFor(); // the last error
    expect(await axeViolations(page)).toEqual([]);

    h.smtp.rejectRecipients.delete(BOUNCE);
    await delivery.getByRole('button', { name: 'Retry' }).click();
    await delivery.getByRole('status').getByText('The mail is back in the queue: the sender takes it now.').waitFor();
    await delivery.locator('dd').getByText('Pending', { exact: true }).waitFor();
    expect(await delivery.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(await logRow('id = $2', [failed.id])).toMatchObject({ status: 'Pending', attempts: 0 });
    const audit = await h.t.post('/staff/audit', { action: 'mail.retry' }, h.shop.adminHeaders);
    expect(audit.body.data).toEqual([
      expect.objectContaining({
        recordId: String(failed.id),
        changes: expect.objectContaining({ status: { before: 'Failed', after: 'Pending' } }),
      }),
    ]);

    await drain(h.t);
    const [arrived] = mailsTo(BOUNCE);
    expect(arrived.parsed.subject).toBe(failed.subject);
    expect(await logRow('id = $2', [failed.id])).toMatchObject({ status: 'Sent', attempts: 1, last_error: null });
    await page.reload();
    await page.getByRole('region', { name: 'Delivery' }).locator('dd').getByText('Sent', { exact: true }).waitFor();
  });
});
