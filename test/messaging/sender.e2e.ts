import { NotificationSenderService } from '../../src/messaging/notification-sender.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { freePort, SmtpPeer } from './support/smtp-peer';
import { waitFor } from '../support/wait';

const templates = [
  { event: 'welcome', subject: 'Hi [firstname]', content: '<p>Hello [firstname]</p>', bcc: 'tpl-bcc@example.test' },
  { event: 'plain', subject: 'Plain [n]', content: '<p>n=[n]</p>' },
];

let userIds = 600;

async function tenant(t: TestApp, overrides: Record<string, unknown> = {}): Promise<number> {
  const cc = ++userIds;
  const bcc = ++userIds;
  return (
    await t.seed({
      site: siteFixture({ email_cc: cc, email_bcc: bcc, ...overrides }),
      tables: {
        core_users: [
          { id: cc, user_email: 'cc-admin@example.test', password: 'Admin@1234' },
          { id: bcc, user_email: 'bcc-admin@example.test', password: 'Admin@1234' },
        ],
        core_notifications: templates,
      },
    })
  ).appID;
}

async function notify(t: TestApp, appId: number, body: Record<string, unknown>): Promise<void> {
  const res = await t.post('/message/notification', body, { 'site-id': String(appId) });
  expect(res.body).toEqual({ status: 'Success' });
}

const rows = (t: TestApp, appId: number) =>
  t.dataSource.query(
    `SELECT id, status, attempts, sent, last_error, next_attempt, claim_token FROM core_notification_log WHERE app_id = $1 ORDER BY id`,
    [appId],
  );

describe('notification sender', () => {
  let smtp: SmtpPeer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await SmtpPeer.start();
    t = await startTestApp({ SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false', NOTIFY_MAX_ATTEMPTS: '3', NOTIFY_RETRY_BASE_MS: '60000' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });
  beforeEach(() => {
    smtp.mails.length = 0;
    smtp.rejectRecipients.clear();
  });

  it('delivers a Pending row: subject, HTML body, From, To, CC in headers, BCC only in the envelope; then Sent', async () => {
    const appId = await tenant(t);
    await notify(t, appId, { event: 'welcome', email: 'cust@example.test', data: { firstname: 'Cy & co' } });
    expect(await t.get(NotificationSenderService).drain()).toMatchObject({ claimed: 1, sent: 1, outage: false });

    expect(smtp.mails).toHaveLength(1);
    const [{ parsed, envelope }] = smtp.mails;
    expect(parsed.subject).toBe('Hi Cy & co');
    expect(parsed.html).toContain('<p>Hello Cy &amp; co</p>');
    expect(parsed.from?.value[0].address).toMatch(/^shop\d+@example\.test$/);
    expect(parsed.to && !Array.isArray(parsed.to) && parsed.to.value.map((a) => a.address)).toEqual(['cust@example.test']);
    expect(parsed.cc && !Array.isArray(parsed.cc) && parsed.cc.value.map((a) => a.address)).toEqual(['cc-admin@example.test']);
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.headers.has('bcc')).toBe(false);
    expect(envelope.to.sort()).toEqual(['bcc-admin@example.test', 'cc-admin@example.test', 'cust@example.test', 'tpl-bcc@example.test']);

    const [row] = await rows(t, appId);
    expect(row).toMatchObject({ status: 'Sent', attempts: 1, last_error: null, claim_token: null });
    expect(row.sent).toBeInstanceOf(Date);
  });

  it("NONE mails only the BCC addresses, not the app's CC user", async () => {
    const appId = await tenant(t); // with an email_cc user, whose address must not get the mail
    await notify(t, appId, { event: 'welcome', email: 'NONE' });
    await t.get(NotificationSenderService).drain();
    expect(smtp.mails).toHaveLength(1);
    const [{ parsed, envelope }] = smtp.mails;
    expect(parsed.to).toBeUndefined();
    expect(parsed.cc).toBeUndefined();
    expect(parsed.headers.has('cc')).toBe(false);
    expect(envelope.to.sort()).toEqual(['bcc-admin@example.test', 'tpl-bcc@example.test']);
  });

  it('sends a NONE row queued with a CC address (before the fix) to the BCC addresses only', async () => {
    const appId = await tenant(t);
    await t.dataSource.query(
      `INSERT INTO core_notification_log (app_id, event, email, email_from, email_cc, email_bcc, subject, body)
       VALUES ($1, 'welcome', NULL, 'shop@example.test', 'cc-admin@example.test', 'bcc-admin@example.test', 'Old', '<p>old</p>')`,
      [appId],
    );
    expect(await t.get(NotificationSenderService).drain()).toMatchObject({ claimed: 1, sent: 1 });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0].parsed.headers.has('cc')).toBe(false);
    expect(smtp.mails[0].envelope.to).toEqual(['bcc-admin@example.test']);
  });

  it('retries a refused mail with exponential back-off and marks it Failed after NOTIFY_MAX_ATTEMPTS, keeping the error', async () => {
    const appId = await tenant(t, { email_cc: null, email_bcc: null });
    smtp.rejectRecipients.add('bounce@example.test');
    await notify(t, appId, { event: 'plain', email: 'bounce@example.test', data: { n: 1 } });
    const sender = t.get(NotificationSenderService);

    const before = Date.now();
    expect(await sender.runOnce()).toMatchObject({ claimed: 1, sent: 0, failed: 1, outage: false });
    let [row] = await rows(t, appId);
    expect(row).toMatchObject({ status: 'Pending', attempts: 1, claim_token: null });
    expect(row.last_error).toContain('550');
    expect(row.next_attempt.getTime() - before).toBeGreaterThanOrEqual(59000);
    expect(row.next_attempt.getTime() - before).toBeLessThan(70000);

    expect((await sender.runOnce()).claimed).toBe(0); // not due yet

    const makeDue = () => t.dataSource.query(`UPDATE core_notification_log SET next_attempt = now() WHERE app_id = $1`, [appId]);
    await makeDue();
    const second = Date.now();
    await sender.runOnce();
    [row] = await rows(t, appId);
    expect(row).toMatchObject({ status: 'Pending', attempts: 2 });
    expect(row.next_attempt.getTime() - second).toBeGreaterThanOrEqual(119000); // base * 2

    await makeDue();
    await sender.runOnce();
    [row] = await rows(t, appId);
    expect(row).toMatchObject({ status: 'Failed', attempts: 3, sent: null });
    expect(row.last_error).toContain('550');
    await makeDue();
    expect((await sender.runOnce()).claimed).toBe(0); // Failed rows are never picked up again
    expect(smtp.mails).toHaveLength(0);
  });

  it('two sender instances on one database deliver every row exactly once', async () => {
    const appId = await tenant(t, { email_cc: null, email_bcc: null });
    const second = await startTestApp({ SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false', NOTIFY_BATCH_SIZE: '5' }, t.database);
    try {
      for (let n = 0; n < 40; n++) await notify(t, appId, { event: 'plain', email: `r${n}@example.test`, data: { n } });
      await Promise.all([
        t.get(NotificationSenderService).drain(),
        second.get(NotificationSenderService).drain(),
        second.get(NotificationSenderService).drain(),
      ]);
    } finally {
      await second.close();
    }
    const recipients = smtp.mails.map((m) => m.envelope.to[0]).sort();
    expect(recipients).toHaveLength(40);
    expect(new Set(recipients).size).toBe(40);
    expect(new Set(smtp.mails.map((m) => m.parsed.messageId)).size).toBe(40);
    expect((await rows(t, appId)).every((r: { status: string; attempts: number }) => r.status === 'Sent' && r.attempts === 1)).toBe(true);
  });
});

describe('notification sender with the SMTP server down, then up', () => {
  it('keeps rows Pending without counting attempts while the server is unreachable, and sends them all when it returns', async () => {
    const port = await freePort();
    const t = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}`, NOTIFY_SENDER_ENABLED: 'false', NOTIFY_MAX_ATTEMPTS: '1' });
    let smtp: SmtpPeer | null = null;
    try {
      const appId = await tenant(t, { email_cc: null, email_bcc: null });
      for (let n = 0; n < 5; n++) await notify(t, appId, { event: 'plain', email: `down${n}@example.test`, data: { n } });
      const sender = t.get(NotificationSenderService);

      for (let i = 0; i < 3; i++) expect(await sender.drain()).toMatchObject({ sent: 0, outage: true });
      const waiting = await rows(t, appId);
      expect(waiting.map((r: { status: string }) => r.status)).toEqual(Array(5).fill('Pending'));
      expect(waiting.every((r: { attempts: number; last_error: string | null }) => r.attempts === 0 && r.last_error)).toBe(true);

      smtp = await SmtpPeer.start(port);
      expect(await sender.drain()).toMatchObject({ sent: 5, outage: false });
      expect(smtp.mails.map((m) => m.envelope.to[0]).sort()).toEqual([0, 1, 2, 3, 4].map((n) => `down${n}@example.test`));
      expect((await rows(t, appId)).every((r: { status: string }) => r.status === 'Sent')).toBe(true);
    } finally {
      await t.close();
      await smtp?.stop();
    }
  });

  it('a background sender that starts later delivers the rows written while no sender ran', async () => {
    const smtp = await SmtpPeer.start();
    const writer = await startTestApp({ SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false' });
    try {
      const appId = await tenant(writer, { email_cc: null, email_bcc: null });
      for (let n = 0; n < 3; n++) await notify(writer, appId, { event: 'plain', email: `later${n}@example.test`, data: { n } });
      expect(smtp.mails).toHaveLength(0);

      const background = await startTestApp(
        { SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'true', NOTIFY_POLL_INTERVAL_MS: '50' },
        writer.database,
      );
      try {
        await waitFor(async () => (await rows(writer, appId)).every((r: { status: string }) => r.status === 'Sent'));
        await notify(writer, appId, { event: 'plain', email: 'after@example.test', data: { n: 9 } });
        await waitFor(() => smtp.mails.length === 4);
      } finally {
        await background.close();
      }
      expect(smtp.mails.map((m) => m.envelope.to[0]).sort()).toEqual([
        'after@example.test',
        'later0@example.test',
        'later1@example.test',
        'later2@example.test',
      ]);
    } finally {
      await writer.close();
      await smtp.stop();
    }
  });
});
