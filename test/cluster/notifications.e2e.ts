import { Cluster } from '../support/cluster';
import { siteFixture } from '../support/test-app';
import { waitFor, waitForJobRuns } from '../support/wait';

const M = 60;

/**
 * Notifications accepted by either instance, with the sender on in both: every one reaches the SMTP peer
 * once, whichever instance took the request and whichever sender claimed it.
 */
describe('cluster: each notification sent once', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    // Small claims, so that both senders are woken and claim while the other is sending.
    cluster = await Cluster.start({ env: { NOTIFY_SENDER_ENABLED: 'true', NOTIFY_BATCH_SIZE: '4', NOTIFY_POLL_INTERVAL_MS: '200' } });
  });
  afterAll(() => cluster?.stop());

  it(`delivers ${M} notifications posted concurrently through the proxy exactly once each`, async () => {
    const { appID } = await cluster.seeder.seed({
      site: siteFixture(),
      tables: { core_notifications: [{ event: 'plain', subject: 'Plain [n]', content: '<p>n=[n]</p>' }] },
    });
    const answers = await Promise.all(
      Array.from({ length: M }, (_, n) =>
        cluster.post('/message/notification', { event: 'plain', email: `r${n}@example.test`, data: { n } }, { 'site-id': String(appID) }),
      ),
    );
    expect(answers.map((a) => a.body)).toEqual(Array(M).fill({ status: 'Success' }));
    expect(new Set(answers.map((a) => a.instance))).toEqual(new Set([0, 1]));

    const { mails } = cluster.smtp;
    await waitFor(() => mails.length >= M, 15_000);
    // Two more sender rounds of both instances: a duplicate (a mail claimed twice) would have arrived by then.
    await waitForJobRuns(cluster.instances, 'notification_sender');

    const expected = Array.from({ length: M }, (_, n) => `r${n}@example.test`).sort();
    expect(mails.map((m) => m.envelope.to.join(',')).sort()).toEqual(expected);
    expect(new Set(mails.map((m) => m.parsed.messageId)).size).toBe(M);
    // Each mail carries its own request's data: nothing merged into another recipient's mail.
    for (const mail of mails) expect(mail.parsed.subject).toBe(`Plain ${/^r(\d+)@/.exec(mail.envelope.to[0])![1]}`);
    const rows = await cluster.sql<{ status: string; attempts: number; n: number }>(
      'SELECT status, attempts, count(*)::int AS n FROM core_notification_log WHERE app_id = $1 GROUP BY status, attempts',
      [appID],
    );
    expect(rows).toEqual([{ status: 'Sent', attempts: 1, n: M }]);
  });
});
