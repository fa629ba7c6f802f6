import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { jobRuns, waitFor } from '../support/wait';
import { SmtpPeer } from './support/smtp-peer';

/** Far beyond each test's waits: a mail that arrives was woken for, not polled. */
const LONG_POLL = { NOTIFY_POLL_INTERVAL_MS: '60000' };
/** A queued mail reaches the SMTP peer within this, or the wake did not happen. */
const WITHIN_MS = 3000;

async function tenant(t: TestApp): Promise<number> {
  return (
    await t.seed({
      site: siteFixture(),
      tables: { core_notifications: [{ event: 'plain', subject: 'Plain [n]', content: '<p>n=[n]</p>' }] },
    })
  ).appID;
}

async function notify(t: TestApp, appId: number, email: string, n: number): Promise<void> {
  const res = await t.post('/message/notification', { event: 'plain', email, data: { n } }, { 'site-id': String(appId) });
  expect(res.body).toEqual({ status: 'Success' });
}

const recipients = (smtp: SmtpPeer) => smtp.mails.map((m) => m.envelope.to[0]).sort();

/**
 * A queued notification wakes the sender of every instance on the database (the instance that committed it
 * announces it, each instance's listener hears it), not only the instance that took the request.
 */
describe('notification sender woken by queued rows', () => {
  let smtp: SmtpPeer;
  let acceptor: TestApp;
  let sender: TestApp;
  let appId: number;

  beforeAll(async () => {
    smtp = await SmtpPeer.start();
    acceptor = await startTestApp({ SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false' });
    sender = await startTestApp({ SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'true', ...LONG_POLL }, acceptor.database);
    appId = await tenant(acceptor);
  });
  afterAll(async () => {
    await sender?.close();
    await acceptor?.close();
    await smtp.stop();
  });
  beforeEach(() => {
    smtp.mails.length = 0;
  });

  it('a notification accepted by an instance whose sender is off leaves through another instance at once', async () => {
    await notify(acceptor, appId, 'woken@example.test', 1);
    await waitFor(() => smtp.mails.length === 1, WITHIN_MS);
    expect(recipients(smtp)).toEqual(['woken@example.test']);
    // The sender marks the row Sent once the SMTP server has taken the mail: the row follows the mail by a moment.
    const status = async () =>
      (
        await acceptor.dataSource.query(`SELECT status FROM core_notification_log WHERE app_id = $1 AND email = 'woken@example.test'`, [
          appId,
        ])
      )[0].status;
    await waitFor(async () => (await status()) === 'Sent', WITHIN_MS);
    expect(await status()).toBe('Sent');
  });

  it('rows queued while the listener was lost are sent once it listens again', async () => {
    const listener = `SELECT pid FROM pg_stat_activity WHERE application_name = 'platform-listener' AND datname = current_database()`;
    const [{ pid }] = await acceptor.dataSource.query(listener);
    await acceptor.dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor(async () => (await acceptor.dataSource.query(listener)).length === 0);

    await notify(acceptor, appId, 'while-deaf@example.test', 2);
    // The listener reconnects after its first back-off (1 s) and wakes the sender for what it may have missed.
    await waitFor(() => smtp.mails.length === 1, 1000 + WITHIN_MS);
    expect(recipients(smtp)).toEqual(['while-deaf@example.test']);
    expect(await acceptor.dataSource.query(listener)).toHaveLength(1);
  });
});

describe('two woken sender instances on one database', () => {
  it('deliver each of N notifications exactly once', async () => {
    const smtp = await SmtpPeer.start();
    const env = { SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'true', NOTIFY_BATCH_SIZE: '4', ...LONG_POLL };
    const first = await startTestApp(env);
    try {
      const second = await startTestApp(env, first.database);
      try {
        const appId = await tenant(first);
        const n = 60;
        // Both instances accept, a few requests at once, so both senders are woken while the other claims.
        for (let batch = 0; batch < n; batch += 6) {
          await Promise.all(
            Array.from({ length: 6 }, (_, i) => notify(i % 2 ? second : first, appId, `r${batch + i}@example.test`, batch + i)),
          );
        }
        await waitFor(() => smtp.mails.length >= n, 10_000);
        // Two more rounds of each sender, each woken by a sentinel mail (the senders poll only every minute): a
        // duplicate (a row claimed twice) would have arrived by then.
        const runs = () => Promise.all([jobRuns(first, 'notification_sender'), jobRuns(second, 'notification_sender')]);
        const start = await runs();
        for (const wave of [1, 2]) {
          await notify(first, appId, `sentinel${wave}@example.test`, n + wave);
          await waitFor(
            async () => (await runs()).every((count, i) => count >= start[i] + wave),
            10_000,
            `sender rounds after sentinel ${wave}`,
          );
        }
        await waitFor(() => smtp.mails.length >= n + 2, 10_000, 'the sentinels');
        const expected = Array.from({ length: n }, (_, i) => `r${i}@example.test`).concat(
          'sentinel1@example.test',
          'sentinel2@example.test',
        );
        expect(recipients(smtp)).toEqual(expected.sort());
        expect(new Set(smtp.mails.map((m) => m.parsed.messageId)).size).toBe(n + 2);
        const rows = await first.dataSource.query(
          `SELECT status, attempts FROM core_notification_log WHERE app_id = $1 AND email NOT LIKE 'sentinel%'`,
          [appId],
        );
        expect(rows).toHaveLength(n);
        expect(rows.every((r: { status: string; attempts: number }) => r.status === 'Sent' && r.attempts === 1)).toBe(true);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
      await smtp.stop();
    }
  });
});
