import { ChildProcess, spawn } from 'node:child_process';
import { dropDatabase } from '../support/database';
import { SmtpPeer, freePort } from '../messaging/support/smtp-peer';
import { ensureBuilt, SERVICE_MAIN } from '../support/cluster';
import { PaymentPeer } from '../support/payment-peer';
import { createTestDatabase, startTestApp, TEST_ENV, TestApp } from '../support/test-app';
import { waitFor, waitForJobRuns } from '../support/wait';
import { billing, seedShop, ShopTenant } from './checkout-helpers';

interface Instance {
  child: ChildProcess;
  url: string;
  lines: string[];
}

/**
 * An order completed by a process that dies between the commit and the send (SIGKILL: no shutdown hook
 * runs): the two emails are outbox rows of the completion's transaction, so the instances started
 * afterwards send each exactly once, even two of them at the same time.
 */
describe('order completion survives a crash between commit and send', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let db: { name: string; url: string };
  let t: TestApp;
  let shop: ShopTenant;
  const running: Instance[] = [];

  async function start(env: Record<string, string>): Promise<Instance> {
    const port = await freePort();
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [SERVICE_MAIN], {
      env: {
        ...inherited,
        ...TEST_ENV,
        LOG_LEVEL: 'warn',
        DATABASE_URL: db.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        PAYMENT_API_URL: peer.url,
        SMTP_URL: smtp.url,
        NOTIFY_POLL_INTERVAL_MS: '200',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const instance: Instance = { child, url: `http://127.0.0.1:${port}`, lines: [] };
    child.stdout!.on('data', (chunk) => instance.lines.push(String(chunk)));
    child.stderr!.on('data', (chunk) => instance.lines.push(String(chunk)));
    running.push(instance);
    for (let i = 0; i < 600; i++) {
      if (child.exitCode !== null) throw new Error(`service exited: ${instance.lines.join('')}`);
      if (
        await fetch(`${instance.url}/health/ready`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return instance;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`service did not start: ${instance.lines.join('')}`);
  }

  function kill(instance: Instance, signal: NodeJS.Signals): Promise<void> {
    return new Promise((resolve) => {
      if (instance.child.exitCode !== null || instance.child.signalCode !== null) return resolve();
      instance.child.once('exit', () => resolve());
      instance.child.kill(signal);
    });
  }

  async function post(
    instance: Instance,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: any }> {
    const res = await fetch(`${instance.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  beforeAll(async () => {
    ensureBuilt();
    peer = await PaymentPeer.start();
    smtp = await SmtpPeer.start();
    db = await createTestDatabase();
    // In process, on the same database, only to seed it and read it (its sender is off).
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false' }, db);
    shop = await seedShop(t);
  }, 240_000);

  afterAll(async () => {
    for (const instance of running) await kill(instance, 'SIGKILL');
    await t?.close();
    if (db) await dropDatabase(db.name);
    await smtp?.stop();
    await peer?.stop();
  });

  it('sends each email exactly once after a SIGKILL right after the webhook committed', async () => {
    const first = await start({ NOTIFY_SENDER_ENABLED: 'false' });
    const headers = { 'site-id': String(shop.appId) };
    const created = await post(first, '/ecommerce/createOrder', {}, headers);
    expect(created.status).toBe(201);
    const { _id, orderID } = created.body.data;
    expect(
      (
        await post(
          first,
          '/ecommerce/addCart',
          {
            _orderID: _id,
            items: [
              { productID: shop.ebook, Qty: 1, Price: 1500 },
              { productID: shop.tent, Qty: 1, Price: 10000 },
            ],
          },
          headers,
        )
      ).status,
    ).toBeLessThan(300);
    const checkout = await post(first, '/ecommerce/checkout', { _orderID: _id, amount: 16500, data: billing(shop.customerEmail) }, headers);
    expect(checkout.status).toBe(201);
    const intent = peer.succeed(checkout.body.data.paymentIntentID);
    const delivery = peer.signedEvent('payment_intent.succeeded', intent, shop.secret);
    const hook = await post(first, '/ecommerce/payment-webhook', delivery.payload, { 'stripe-signature': delivery.signature });
    expect(hook).toEqual({ status: 200, body: { received: true } });

    // Committed: the order is Paid, its tokens issued and both emails wait in the outbox. Then the process dies.
    const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
    expect((await sql('SELECT orderstatus FROM core_orders WHERE id = $1', [orderID]))[0].orderstatus).toBe('Paid');
    expect(await sql('SELECT count(*)::int AS n FROM core_tokens WHERE order_id = $1', [orderID])).toEqual([{ n: 1 }]);
    const outbox = () =>
      sql<{ event: string; status: string }>(
        `SELECT event, status FROM core_notification_log WHERE linked_table = 'core_orders' AND master_id = $1 ORDER BY id`,
        [orderID],
      );
    expect(await outbox()).toEqual([
      { event: 'order_admin', status: 'Pending' },
      { event: 'order_confirmation', status: 'Pending' },
    ]);
    await kill(first, 'SIGKILL');
    expect(smtp.mails).toHaveLength(0);

    // Two new instances with the sender on, started together: each email leaves once.
    await Promise.all([start({ NOTIFY_SENDER_ENABLED: 'true' }), start({ NOTIFY_SENDER_ENABLED: 'true' })]);
    await waitFor(
      async () => (await outbox()).every((row) => row.status === 'Sent') && smtp.mails.length >= 2,
      30_000,
      'both emails to be sent',
    );
    // Two more sender rounds of both instances: a duplicate (a mail claimed twice) would have arrived by then.
    const senders = running.slice(1);
    await waitForJobRuns(senders, 'notification_sender');
    expect(smtp.mails.map((mail) => mail.parsed.subject).sort()).toEqual([
      `${shop.domain} - Order confirmation #${orderID}`,
      `${shop.domain} - Order#:${orderID} Submitted`,
    ]);
    expect(smtp.mails.find((mail) => mail.parsed.subject!.includes('confirmation'))!.envelope.to).toContain(shop.customerEmail);

    // A redelivery of the event to the new instances changes nothing.
    const again = await post(running[1], '/ecommerce/payment-webhook', delivery.payload, { 'stripe-signature': delivery.signature });
    expect(again).toEqual({ status: 200, body: { received: true } });
    await waitForJobRuns(senders, 'notification_sender'); // a mail it queued would have been sent by then
    expect(await outbox()).toHaveLength(2);
    expect(smtp.mails).toHaveLength(2);
  });
});
