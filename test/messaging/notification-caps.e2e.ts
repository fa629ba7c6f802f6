import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { SessionTokensService } from '../../src/auth';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { waitFor, waitForJobRuns } from '../support/wait';
import { SmtpPeer } from './support/smtp-peer';

/*
 * Issue 37: a site-id alone could send a tenant's templated mail to any address as often as the request limit
 * allowed. Without an app admin's bearer, /message/notification is capped per app and window: mails to one
 * address (NOTIFY_ANON_PER_RECIPIENT) and of one template (NOTIFY_ANON_PER_TEMPLATE), counted on the rate
 * limit's storage, atomically: 20 concurrent real HTTP requests never get more than the cap through, in
 * process and through Redis shared by two instances. A refused send writes no log row and sends no mail.
 */

const PER_RECIPIENT = 3;
const PER_TEMPLATE = 10;
const CONCURRENT = 20;
const CAPS = { NOTIFY_ANON_PER_RECIPIENT: String(PER_RECIPIENT), NOTIFY_ANON_PER_TEMPLATE: String(PER_TEMPLATE) };

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { status: string; message?: string };
}

/** Listens on a real port (the requests below are real HTTP, not inject). */
async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
}

async function post(base: string, appId: number, body: Record<string, unknown>, bearer?: string): Promise<Answer> {
  const res = await fetch(`${base}/message/notification`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'site-id': String(appId), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Answer['body'] };
}

function expectRefused(answers: Answer[], message: string, allowed: number): void {
  expect(answers.filter((a) => a.status === 200)).toHaveLength(allowed);
  const refused = answers.filter((a) => a.status !== 200);
  expect(refused).toHaveLength(answers.length - allowed);
  for (const answer of refused) {
    expect(answer).toMatchObject({ status: 429, body: { status: 'Failed', message } });
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(answer.retryAfter)).toBeLessThanOrEqual(3600);
  }
}

const TO_ADDRESS = 'Too many notifications to this address, try again later';
const OF_EVENT = 'Too many notifications of this event, try again later';

describe('caps on /message/notification sends without an app admin bearer (in process)', () => {
  let smtp: SmtpPeer;
  let t: TestApp;
  let base: string;
  let appId: number;
  let otherAppId: number;
  let adminToken: string;

  beforeAll(async () => {
    smtp = await SmtpPeer.start();
    t = await startTestApp({ ...CAPS, SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'true', NOTIFY_POLL_INTERVAL_MS: '100' });
    const templates = ['welcome', 'digest', 'admin-note'].map((event) => ({ event, subject: `${event} [n]`, content: '<p>[n]</p>' }));
    const seeded = await t.seed({
      site: siteFixture(),
      tables: {
        core_users: [{ user_email: 'caps-admin@example.test', password: 'Admin@1234', primary_role: 'admin' }],
        core_notifications: templates,
      },
    });
    appId = seeded.appID;
    adminToken = t
      .get(SessionTokensService)
      .sign({ userId: seeded.ids.core_users[0], appId, authTable: 'core_users', role: 'admin' }, 'access');
    otherAppId = (await t.seed({ site: siteFixture(), tables: { core_notifications: templates } })).appID;
    base = await listen(t);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const logRows = (email: string, app = appId) =>
    t.dataSource
      .query(`SELECT count(*)::int AS n FROM core_notification_log WHERE app_id = $1 AND email = $2`, [app, email])
      .then((rows: { n: number }[]) => rows[0].n);
  const mailsTo = (email: string) => smtp.mails.filter((mail) => mail.envelope.to.includes(email)).length;

  it(`lets ${PER_RECIPIENT} of ${CONCURRENT} concurrent sends to one address through: 429 with Retry-After for the rest, no row, no mail`, async () => {
    const victim = `victim-${randomUUID()}@example.test`;
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, n) => post(base, appId, { event: 'welcome', email: victim, data: { n } })),
    );
    expectRefused(answers, TO_ADDRESS, PER_RECIPIENT);
    expect(await logRows(victim)).toBe(PER_RECIPIENT);
    await waitFor(() => mailsTo(victim) >= PER_RECIPIENT);
    await waitForJobRuns([t], 'notification_sender'); // two more sender rounds: a refused send would show by then
    expect(mailsTo(victim)).toBe(PER_RECIPIENT);

    // The address in other letters is the same address; another address, another app, are their own.
    expect((await post(base, appId, { event: 'welcome', email: victim.toUpperCase() })).status).toBe(429);
    expect((await post(base, appId, { event: 'welcome', email: `other-${victim}` })).status).toBe(200);
    expect((await post(base, otherAppId, { event: 'welcome', email: victim })).status).toBe(200);
    expect(await logRows(victim)).toBe(PER_RECIPIENT);
  });

  it(`lets ${PER_TEMPLATE} of ${CONCURRENT} concurrent sends of one template to different addresses through`, async () => {
    const run = randomUUID();
    const addresses = Array.from({ length: CONCURRENT }, (_, n) => `r${n}-${run}@example.test`);
    const answers = await Promise.all(addresses.map((email, n) => post(base, appId, { event: 'digest', email, data: { n } })));
    expectRefused(answers, OF_EVENT, PER_TEMPLATE);
    const [{ n: rows }] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM core_notification_log WHERE app_id = $1 AND event = 'digest'`,
      [appId],
    );
    expect(rows).toBe(PER_TEMPLATE);
    await waitFor(() => addresses.filter((email) => mailsTo(email) > 0).length >= PER_TEMPLATE);
    await waitForJobRuns([t], 'notification_sender');
    expect(addresses.filter((email) => mailsTo(email) > 0)).toHaveLength(PER_TEMPLATE);

    // A send refused by the template cap took back its count of the address: the addresses refused still have
    // their whole allowance of other templates.
    const refusedAddress = addresses.find((email) => mailsTo(email) === 0)!;
    for (let i = 0; i < PER_RECIPIENT; i++)
      expect((await post(base, appId, { event: 'admin-note', email: refusedAddress })).status).toBe(200);
  });

  it("does not cap an app admin's bearer", async () => {
    const victim = `admin-target-${randomUUID()}@example.test`;
    const anonymous = await Promise.all(
      Array.from({ length: PER_RECIPIENT + 1 }, () => post(base, appId, { event: 'admin-note', email: victim })),
    );
    expect(anonymous.map((a) => a.status).sort()).toEqual([...Array(PER_RECIPIENT).fill(200), 429]);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post(base, appId, { event: 'admin-note', email: victim }, adminToken)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(await logRows(victim)).toBe(PER_RECIPIENT + 8);
  });
});

describe('caps on /message/notification sends, counted in Redis across two instances', () => {
  let first: TestApp;
  let second: TestApp;
  let bases: string[];
  let appId: number;
  let prefix: string;
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

  beforeAll(async () => {
    const shared = { ...CAPS, NOTIFY_SENDER_ENABLED: 'false', REDIS_URL: redisUrl };
    prefix = `caps-test-${randomUUID()}:`;
    first = await startTestApp({ ...shared, REDIS_KEY_PREFIX: prefix });
    second = await startTestApp({ ...shared, REDIS_KEY_PREFIX: prefix }, first.database);
    appId = (
      await first.seed({
        site: siteFixture(),
        tables: { core_notifications: [{ event: 'welcome', subject: 'Hi', content: '<p>Hi</p>' }] },
      })
    ).appID;
    bases = [await listen(first), await listen(second)];
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it(`lets ${PER_RECIPIENT} of ${CONCURRENT} concurrent sends to one address through, whichever instance each reaches`, async () => {
    const victim = `victim-${randomUUID()}@example.test`;
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, n) => post(bases[n % 2], appId, { event: 'welcome', email: victim, data: { n } })),
    );
    expectRefused(answers, TO_ADDRESS, PER_RECIPIENT);
    const [{ n }] = await first.dataSource.query(`SELECT count(*)::int AS n FROM core_notification_log WHERE app_id = $1 AND email = $2`, [
      appId,
      victim,
    ]);
    expect(n).toBe(PER_RECIPIENT);
    // Counted in Redis, where both instances count (the rate limit's storage under REDIS_KEY_PREFIX).
    const redis = new Redis(redisUrl);
    try {
      expect(Number(await redis.get(`${prefix}rl:notify:recipient:${appId}:${victim}`))).toBe(CONCURRENT);
    } finally {
      redis.disconnect();
    }
  });
});
