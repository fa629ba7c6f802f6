import { RequestContext, TenantSite } from '../../src/common/request-context';
import { TransactionalConnection } from '../../src/database/transactional-connection';
import { MailOutboxService, NotificationSenderService } from '../../src/messaging';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { SmtpPeer } from './support/smtp-peer';

/**
 * MailOutboxService, the way the service's own mails leave (the shop's order mails): rows written in the caller's
 * transaction, sent once by the background sender after the commit, as HTML, plain text, or HTML with its text alternative.
 */
describe('mail outbox', () => {
  let smtp: SmtpPeer;
  let t: TestApp;
  let appId: number;

  beforeAll(async () => {
    smtp = await SmtpPeer.start();
    t = await startTestApp({ SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false' });
    appId = (await t.seed({ site: siteFixture(), tables: {} })).appID;
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });
  beforeEach(() => {
    smtp.mails.length = 0;
  });

  const inTransaction = <T>(work: (ctx: RequestContext) => Promise<T>) => {
    const ctx = RequestContext.background('test', false, { id: appId } as TenantSite);
    return t.get(TransactionalConnection).inTransaction(ctx, () => work(ctx));
  };

  it('sends a committed text mail and a rendered HTML mail once each, in the order written', async () => {
    const outbox = t.get(MailOutboxService);
    const html = await outbox.render('reset-password', { appName: 'Shop <&>', link: 'https://shop.example.test/r?a=1&b=2', minutes: 30 });
    expect(html).toContain('Shop &lt;&amp;&gt;');
    await inTransaction(async (ctx) => {
      await outbox.enqueue(ctx, {
        event: 'order_admin',
        from: 'shop@example.test',
        to: 'admin@example.test',
        subject: 'Order 1 Submitted',
        text: 'Order ID: 1\nCustomer ID: 2',
        linkedTable: 'core_orders',
        masterId: 1,
      });
      await outbox.enqueue(ctx, {
        event: 'order_confirmation',
        from: 'shop@example.test',
        to: 'ann@example.test',
        cc: ['admin@example.test', 'boss@example.test'],
        subject: 'Your order',
        html,
      });
    });

    const run = await t.get(NotificationSenderService).drain();
    expect(run).toMatchObject({ sent: 2, failed: 0 });
    expect(await t.get(NotificationSenderService).drain()).toMatchObject({ claimed: 0 });
    expect(smtp.mails).toHaveLength(2);
    const [admin, customer] = [...smtp.mails].sort((a, b) => a.parsed.subject!.localeCompare(b.parsed.subject!));
    expect(admin.parsed.text?.trim()).toBe('Order ID: 1\nCustomer ID: 2');
    expect(admin.parsed.html).toBe(false);
    expect(customer.envelope.to.sort()).toEqual(['admin@example.test', 'ann@example.test', 'boss@example.test']);
    expect(String(customer.parsed.html)).toContain('https://shop.example.test/r?a&#x3D;1&amp;b&#x3D;2');
    const rows = await t.dataSource.query(
      `SELECT event, status, content_type, linked_table, master_id FROM core_notification_log WHERE app_id = $1 ORDER BY id`,
      [appId],
    );
    expect(rows).toEqual([
      { event: 'order_admin', status: 'Sent', content_type: 'text', linked_table: 'core_orders', master_id: 1 },
      { event: 'order_confirmation', status: 'Sent', content_type: 'html', linked_table: null, master_id: null },
    ]);
  });

  it('writes nothing when the transaction rolls back', async () => {
    await expect(
      inTransaction(async (ctx) => {
        await t.get(MailOutboxService).enqueue(ctx, {
          event: 'order_admin',
          from: 'shop@example.test',
          to: 'x@example.test',
          subject: 'rolled back',
          text: 'x',
        });
        throw new Error('the use case failed');
      }),
    ).rejects.toThrow('the use case failed');
    expect(await t.get(NotificationSenderService).drain()).toMatchObject({ claimed: 0 });
    expect(smtp.mails).toHaveLength(0);
  });

  it('sends an HTML mail with its plain-text alternative as both parts', async () => {
    await inTransaction((ctx) =>
      t.get(MailOutboxService).enqueue(ctx, {
        event: 'password_reset',
        from: 'shop@example.test',
        to: 'ann@example.test',
        subject: 'Reset',
        html: '<p><a href="https://shop.example.test/r?token=abc">Choose a new password</a></p>',
        text: 'Reset: https://shop.example.test/r?token=abc',
      }),
    );
    expect(await t.get(NotificationSenderService).drain()).toMatchObject({ sent: 1, failed: 0 });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0].parsed.text?.trim()).toBe('Reset: https://shop.example.test/r?token=abc');
    expect(String(smtp.mails[0].parsed.html)).toContain('href="https://shop.example.test/r?token=abc"');
  });

  it('refuses a mail with no body, and a template that does not exist', async () => {
    await expect(
      inTransaction((ctx) =>
        t.get(MailOutboxService).enqueue(ctx, { event: 'x', from: 'a@example.test', to: 'b@example.test', subject: 's' }),
      ),
    ).rejects.toThrow(/html, text or both/);
    await expect(t.get(MailOutboxService).render('no-such-template', {})).rejects.toThrow(/no-such-template/);
    await expect(t.get(MailOutboxService).render('reset-password', { appName: 'x' })).rejects.toThrow(/link/); // strict: a missing field
  });
});
