import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { freePort, SmtpPeer } from '../../messaging/support/smtp-peer';
import { seedShop, ShopClient, ShopHarness, stopShopHarness } from '../../orders/checkout-helpers';
import { PaymentPeer } from '../../support/payment-peer';
import { startTestApp } from '../../support/test-app';

/**
 * The console's browser tests (README "Staff console"): the service listening on a random port with a
 * seeded shop, the payment double and the SMTP peer (test/orders/checkout-helpers.ts), and Debian's
 * Chromium driven by playwright-core (CHROMIUM_PATH, default /usr/bin/chromium; `.ci/run` installs it).
 * The pages run under the service's own CSP: a violation fails the test (`watch`).
 */
export interface ConsoleHarness extends ShopHarness {
  baseUrl: string;
  browser: Browser;
}

export const STAFF_PASSWORD = 'Admin@1234';

/** Where the specs write their screenshots (committed, linked from the README). */
export const SCREENSHOTS = join(__dirname, '..', '..', '..', 'docs', 'console');

/**
 * The harness. The payment double delivers its own signed events to the service, as the provider does (a
 * refund's charge.refunded arrives before the refund request is answered), signed with the shop's webhook
 * secret. CONSOLE_DIR, when set, names the console build to serve (a build of its own, while console/dist is
 * being rebuilt).
 */
export async function startConsoleHarness(env: Record<string, string> = {}): Promise<ConsoleHarness> {
  const dist: Record<string, string> = process.env.CONSOLE_DIR ? { CONSOLE_DIR: process.env.CONSOLE_DIR } : {};
  const port = await freePort();
  const secret = `whsec_console${process.pid}`;
  const peer = await PaymentPeer.start({
    webhook: { url: `http://127.0.0.1:${port}/ecommerce/payment-webhook`, secret, report: () => undefined },
  });
  const smtp = await SmtpPeer.start();
  const t = await startTestApp({ PAYMENT_API_URL: peer.url, SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false', ...dist, ...env });
  const shop = { ...(await seedShop(t)), secret };
  await t.dataSource.query('UPDATE core_sites SET payment_webhook_secret = $1 WHERE id = $2', [secret, shop.appId]);
  const other = await seedShop(t);
  await t.app.listen(port, '127.0.0.1');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  return { peer, smtp, t, shop, other, client: new ShopClient(t, peer, shop), baseUrl: `http://127.0.0.1:${port}`, browser };
}

export async function stopConsoleHarness(h: Partial<ConsoleHarness>): Promise<void> {
  await h.browser?.close();
  await stopShopHarness(h);
}

/** A fresh browser context (its own cookies) at 1280 × 900, or the width given. */
export async function newContext(h: ConsoleHarness, width = 1280): Promise<BrowserContext> {
  return h.browser.newContext({ baseURL: h.baseUrl, viewport: { width, height: width < 600 ? 844 : 900 } });
}

/**
 * A page whose CSP violations, uncaught errors and failed console messages are collected: `problems()` is
 * empty on a page that runs as the service serves it.
 */
export async function watchedPage(context: BrowserContext): Promise<{ page: Page; problems: () => string[] }> {
  const page = await context.newPage();
  const seen: string[] = [];
  page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) seen.push(`console: ${message.text()}`);
  });
  return { page, problems: () => seen.splice(0) };
}

/** Signs in through the sign-in page with the shop's app id, and waits for the console's navigation. */
export async function signIn(page: Page, appId: number, email: string, password = STAFF_PASSWORD): Promise<void> {
  await page.goto('/console/');
  await page.getByLabel('Shop domain or app ID').fill(String(appId));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core on the page as it is now: the serious and critical violations (id, impact, the first targets).
 * Evaluated through the DevTools protocol, which the page's CSP does not govern, so the page keeps its CSP.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const page = globalThis as unknown as {
      axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> };
      document: unknown;
    };
    const result = await page.axe.run(page.document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.targets.join(', ')}`);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

/** A full-page screenshot under docs/console/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** `count` paid orders of the book (2500) by the shop's customer, through checkout and the signed webhook. */
export async function paidOrders(client: ShopClient, count: number): Promise<{ _id: string; orderID: number }[]> {
  const orders: { _id: string; orderID: number }[] = [];
  for (let i = 0; i < count; i++) {
    const order = await client.checkedOut([{ productID: client.shop.book, Qty: 1, Price: 2500 }]);
    const delivered = await client.deliver(client.paid(order.intent));
    if (delivered.status !== 200) throw new Error(`webhook: ${JSON.stringify(delivered.body)}`);
    orders.push(order);
  }
  return orders;
}

/** A paid order of one E-book (1500, digital) by the shop's signed-in customer: its access token is theirs. */
export async function paidEbook(client: ShopClient): Promise<{ _id: string; orderID: number }> {
  const order = await client.checkedOut([{ productID: client.shop.ebook, Qty: 1, Price: 1500 }], client.shop.customerHeaders);
  const delivered = await client.deliver(client.paid(order.intent));
  if (delivered.status !== 200) throw new Error(`webhook: ${JSON.stringify(delivered.body)}`);
  return { _id: order._id, orderID: order.orderID };
}

/** A core_users member of the shop holding exactly `roles` (not an owner), signing in with STAFF_PASSWORD (the owner's hash). */
export async function staffMember(h: ConsoleHarness, roles: string[]): Promise<{ id: number; email: string }> {
  const email = `staff-${roles.join('-') || 'none'}-${Math.random().toString(36).slice(2)}@example.test`;
  const [{ id }] = await h.t.dataSource.query(
    `INSERT INTO core_users (app_id, user_email, primary_role, staff_roles, password)
     SELECT app_id, $2, 'user', $3::varchar[], password FROM core_users WHERE id = $1 RETURNING id`,
    [h.shop.adminId, email, roles],
  );
  return { id, email };
}

interface FocusNode {
  ownerDocument: { activeElement: unknown };
  contains(other: unknown): boolean;
}

/** Whether the element has the keyboard focus (`within`: it or an element inside it). */
export function isFocused(locator: Locator, within = false): Promise<boolean> {
  return locator.evaluate((el, inside) => {
    const node = el as unknown as FocusNode;
    const active = node.ownerDocument.activeElement;
    return inside ? node.contains(active) : node === active;
  }, within);
}

/** Presses Tab until the element has the focus, as a keyboard user gets there (at most `max` times); fails if it never does. */
export async function tabTo(page: Page, locator: Locator, max = 80): Promise<void> {
  for (let i = 0; i < max && !(await isFocused(locator)); i++) await page.keyboard.press('Tab');
  if (!(await isFocused(locator))) throw new Error(`${max} presses of Tab did not reach ${locator.toString()}`);
}
