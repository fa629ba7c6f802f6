import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { userToken } from '../versioning/content-helpers';
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

/**
 * The console's orders screens and its session, in Chromium (README "Staff console"): each staff task done
 * as staff do it, its effect checked on the server (the payment double, the database, the API), axe-core on
 * every screen, screenshots under docs/console/.
 */
describe('console: orders and the session, in a browser', () => {
  let h: ConsoleHarness;
  let orders: { _id: string; orderID: number }[];
  let context: BrowserContext;
  let page: Page;
  let problems: () => string[];
  let ownerEmail: string;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => h.t.dataSource.query(query, params);
  const orderLink = (orderID: number) => page.getByRole('link', { name: String(orderID).padStart(8, '0') });

  beforeAll(async () => {
    h = await startConsoleHarness();
    orders = await paidOrders(h.client, 3);
    [{ user_email: ownerEmail }] = await sql(`SELECT user_email FROM core_users WHERE app_id = $1 AND firstname = 'Ada'`, [h.shop.appId]);
    context = await newContext(h);
    ({ page, problems } = await watchedPage(context));
    await signIn(page, h.shop.appId, ownerEmail);
  }, 120_000);
  afterAll(() => stopConsoleHarness(h));
  afterEach(() => expect(problems()).toEqual([]));

  it('lists the orders, newest first, with no serious accessibility violation, at 1280 px and 390 px', async () => {
    await page.getByRole('link', { name: 'Orders' }).first().click();
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    for (const order of orders) await orderLink(order.orderID).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'orders');

    const narrow = await newContext(h, 390);
    try {
      const small = await narrow.newPage();
      await signIn(small, h.shop.appId, ownerEmail);
      await small.getByRole('link', { name: 'Orders' }).first().click();
      await small.getByRole('link', { name: String(orders[0].orderID).padStart(8, '0') }).waitFor();
      expect(await axeViolations(small)).toEqual([]);
      await screenshot(small, 'orders-390');
    } finally {
      await narrow.close();
    }
  });

  it('refunds part of an order: the payment double refunds it, and the timeline shows it', async () => {
    const [order] = orders;
    await orderLink(order.orderID).click();
    await page.getByRole('heading', { level: 1, name: /^Order / }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'order');

    const refund = page.getByRole('region', { name: 'Refund' });
    await refund.getByLabel('Amount (AUD)').fill('10.00');
    await refund.getByRole('textbox', { name: 'Reason' }).fill('Damaged cover');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this order?' });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Confirm refund' }).click();
    await refund.getByText(/^Left to refund: \S*15\.00 of \S*25\.00$/).waitFor();

    const [{ payment_intent_id: intent }] = await sql(`SELECT payment_intent_id FROM core_orders WHERE id = $1`, [order.orderID]);
    expect([...h.peer.refunds.values()].filter((r) => r.payment_intent === intent).map((r) => r.amount)).toEqual([1000]);
    const timeline = await h.t.post('/ecommerce/orderTimeline', { _orderID: order._id }, h.shop.adminHeaders);
    expect(timeline.body.data.events.filter((e: { type: string }) => e.type === 'refund')).toEqual([
      expect.objectContaining({ summary: expect.stringMatching(/^Refund of 1000 aud/) }),
    ]);
    // The double delivered its charge.refunded before answering: the staff member's refund is audited all the same.
    const audit = await h.t.post('/staff/audit', { action: 'order.refund' }, h.shop.adminHeaders);
    expect(audit.body.data).toEqual([
      expect.objectContaining({
        recordId: String(order.orderID),
        changes: expect.objectContaining({ refund_amount: { before: null, after: 1000 } }),
      }),
    ]);
    const timelineRegion = page.getByRole('region', { name: 'Timeline' });
    await timelineRegion.getByText(/^Refund of \S*10\.00: succeeded$/).waitFor();
    await timelineRegion.getByText('Reason: Damaged cover').waitFor();
  });

  it('adds a note and resends the confirmation', async () => {
    await page.getByRole('region', { name: 'Note' }).getByRole('textbox').fill('Customer called about the cover');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByRole('region', { name: 'Timeline' }).getByText('Customer called about the cover').waitFor();
    const [{ n }] = await sql(`SELECT count(*)::int AS n FROM core_order_notes WHERE order_id = $1`, [orders[0].orderID]);
    expect(n).toBe(1);

    const before = (await sql(`SELECT count(*)::int AS n FROM core_notification_log WHERE master_id = $1`, [orders[0].orderID]))[0].n;
    await page.getByRole('button', { name: 'Resend confirmation' }).click();
    await page
      .getByRole('status')
      .getByText(/sent|queued|resent/i)
      .first()
      .waitFor();
    const after = (await sql(`SELECT count(*)::int AS n FROM core_notification_log WHERE master_id = $1`, [orders[0].orderID]))[0].n;
    expect(after).toBeGreaterThan(before);
  });

  it('cancels an order: the rest is refunded and its items are Cancelled', async () => {
    const order = orders[1];
    await page.goto(`/console/orders/${encodeURIComponent(order._id)}`);
    await page.getByRole('button', { name: 'Cancel order' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this order?' });
    await dialog.getByRole('button', { name: 'Yes, cancel order' }).click();
    await page.getByText(/Order cancelled: 1 item cancelled/).waitFor();
    const items = await sql(`SELECT "ItemStatus" AS status FROM core_order_items WHERE "Order_ID" = $1`, [order.orderID]);
    expect(items.map((item) => item.status)).toEqual(['Cancelled']);
    const [{ payment_intent_id: intent }] = await sql(`SELECT payment_intent_id FROM core_orders WHERE id = $1`, [order.orderID]);
    expect([...h.peer.refunds.values()].filter((r) => r.payment_intent === intent).map((r) => r.amount)).toEqual([2500]);
  });

  it('keeps the staff member signed in across a reload, and refuses a forged cross-site POST', async () => {
    await page.reload();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Sign in to the staff console' }).count()).toBe(0);

    // Another site's page posts a form to the session routes: no CSRF token, and the SameSite=Strict cookies stay home.
    const forged: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="POST" action="${h.baseUrl}/console/session/sign-out"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => forged.listen(0, '127.0.0.1', resolve));
    try {
      const evil = await context.newPage();
      const answer = evil.waitForResponse((response) => response.url().endsWith('/console/session/sign-out'));
      await evil.goto(`http://localhost:${(forged.address() as AddressInfo).port}/`);
      // Refused before any guard: a form's content type is not one the service reads (415); with another, the CSRF check (403).
      expect([403, 415]).toContain((await answer).status());
      await evil.close();
    } finally {
      await new Promise((resolve) => forged.close(resolve));
    }
    await page.reload();
    await page.getByRole('navigation', { name: 'Main' }).waitFor(); // still signed in
  });

  it('offers no refund to a member without orders.refund, and the API refuses it with 403', async () => {
    const [{ id }] = await sql(`SELECT id FROM core_users WHERE app_id = $1 AND firstname = 'Bea'`, [h.shop.appId]);
    await sql(`UPDATE core_users SET staff_roles = ARRAY['support']::varchar[] WHERE id = $1`, [id]);
    const [{ user_email: email }] = await sql(`SELECT user_email FROM core_users WHERE id = $1`, [id]);
    const support = await newContext(h);
    try {
      const { page: theirs, problems: theirProblems } = await watchedPage(support);
      await signIn(theirs, h.shop.appId, email);
      await theirs.goto(`/console/orders/${encodeURIComponent(orders[2]._id)}`);
      await theirs.getByRole('heading', { level: 1, name: /^Order / }).waitFor();
      await theirs.getByRole('button', { name: 'Resend confirmation' }).waitFor(); // support may resend
      expect(await theirs.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
      expect(await theirs.getByRole('button', { name: 'Cancel order' }).count()).toBe(0);
      expect(theirProblems()).toEqual([]);

      const tried = await h.t.post(
        '/ecommerce/refundOrder',
        { _orderID: orders[2]._id, amount: 100 },
        { ...h.shop.headers, authorization: `Bearer ${userToken(h.t, h.shop, id)}` },
      );
      expect(tried.status).toBe(403);
      expect(tried.body).toMatchObject({ status: 'Failed', permission: 'orders.refund' });
    } finally {
      await support.close();
    }
  });

  it('signs out: the session ends, and a reload asks to sign in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the staff console' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the staff console' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in');
  });
});
