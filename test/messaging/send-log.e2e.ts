import { NotificationSenderService } from '../../src/messaging';
import { StaffRole } from '../../src/common/permissions';
import { seedTenant, Tenant } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';
import { SmtpPeer } from './support/smtp-peer';

const templates = [
  { event: 'welcome', enabled: true, subject: 'Hi [firstname]', content: '<p>Hello [firstname]</p>' },
  { event: 'receipt', enabled: true, subject: 'Receipt [n]', content: '<p>n=[n]</p>' },
];

/**
 * The send log for staff (README "Staff API: the send log"): POST /message/log (filters, keyset paging),
 * /message/log/read and /message/log/retry, against the real database, with the background sender running and
 * an SMTP peer; another app's mails are invisible; each role gets what the role table gives it.
 */
describe('the send log', () => {
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: Tenant;
  let other: Tenant;
  const staff = new Map<StaffRole, Record<string, string>>();

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const list = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/message/log', body, headers);
  const read = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/message/log/read', body, headers);
  const retry = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/message/log/retry', body, headers);

  /** Rows written by SQL, not sent: Pending rows are due in a year, so the running sender leaves them alone. */
  async function logRows(appId: number, count: number, base = '2026-06-01T12:00:00Z'): Promise<void> {
    await sql(
      `INSERT INTO core_notification_log (app_id, event, email, status, created, sent, email_from, subject, body, attempts, next_attempt, last_error)
       SELECT $1, CASE WHEN g % 2 = 0 THEN 'receipt' ELSE 'welcome' END, 'Cust' || (g % 3) || '@Example.test',
              CASE g % 5 WHEN 0 THEN 'Failed' WHEN 1 THEN 'Pending' ELSE 'Sent' END,
              $2::timestamptz - (g / 2) * interval '1 minute',
              CASE WHEN g % 5 IN (0, 1) THEN NULL ELSE $2::timestamptz END,
              'shop@example.test', 'Subject ' || g, '<p>secret body ' || g || '</p>',
              CASE g % 5 WHEN 0 THEN 5 WHEN 1 THEN 0 ELSE 1 END, now() + interval '1 year',
              CASE WHEN g % 5 = 0 THEN '550 Mailbox unavailable' END
       FROM generate_series(1, $3) g`,
      [appId, base, count],
    );
  }

  const audited = (id: number) =>
    sql(
      `SELECT action, actor_id, actor_table, changes FROM core_audit_log WHERE app_id = $1 AND table_name = 'core_notification_log' AND record_id = $2 ORDER BY id`,
      [shop.appId, String(id)],
    );
  const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((row) => row.id);
  const expected = async (where = '', params: unknown[] = []) =>
    (
      await sql<{ id: number }>(`SELECT id FROM core_notification_log WHERE app_id = $1 ${where} ORDER BY created DESC, id DESC`, [
        shop.appId,
        ...params,
      ])
    ).map((row) => row.id);

  beforeAll(async () => {
    smtp = await SmtpPeer.start();
    t = await startTestApp({ SMTP_URL: smtp.url, NOTIFY_MAX_ATTEMPTS: '1', NOTIFY_POLL_INTERVAL_MS: '200' });
    const roles: StaffRole[] = ['orders', 'content', 'support', 'viewer'];
    shop = await seedTenant(t, [], {
      core_users: [
        // the first account is the tenant's admin (adminHeaders): an owner
        { user_email: 'log-owner@example.test', password: 'Staff@1234', primary_role: 'admin' },
        ...roles.map((role) => ({ user_email: `log-${role}@example.test`, password: 'Staff@1234', primary_role: 'user' })),
      ],
      core_notifications: templates,
    });
    other = await seedTenant(t, [], { core_notifications: templates });
    for (const role of roles) {
      await sql(`UPDATE core_users SET staff_roles = ARRAY[$2]::varchar[] WHERE app_id = $1 AND user_email = $3`, [
        shop.appId,
        role,
        `log-${role}@example.test`,
      ]);
      const login = await t.post('/auth/login', { email: `log-${role}@example.test`, password: 'Staff@1234' }, shop.headers);
      expect(login.status).toBe(200);
      staff.set(role, { ...shop.headers, authorization: `Bearer ${login.body.token.access_token}` });
    }
    await logRows(shop.appId, 45);
    await logRows(other.appId, 10);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  describe('POST /message/log', () => {
    it('lists the app’s mails newest first, 20 by default, without their bodies', async () => {
      const res = await list({});
      expect(res.status).toBe(200);
      expect(res.body.paging).toEqual({ perPage: 20, hasMore: true, nextCursor: expect.any(String) });
      expect(ids(res)).toEqual((await expected()).slice(0, 20));
      const [first] = res.body.data;
      expect(first).toEqual({
        id: expect.any(Number),
        event: expect.stringMatching(/^(welcome|receipt)$/),
        templateID: null,
        email: expect.stringMatching(/^Cust\d@Example\.test$/),
        subject: expect.stringMatching(/^Subject \d+$/),
        status: expect.stringMatching(/^(Pending|Sent|Failed)$/),
        attempts: expect.any(Number),
        lastError: first.status === 'Failed' ? '550 Mailbox unavailable' : null,
        linkedTable: null,
        masterID: null,
        created: expect.stringMatching(/^2026-06-01T/),
        sent: first.status === 'Sent' ? '2026-06-01T12:00:00.000Z' : null,
      });
      expect(JSON.stringify(res.body)).not.toContain('secret body');
    });

    it('pages with the cursor through every row once, in order, rows of the same instant included', async () => {
      const all = await expected();
      const seen: number[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const res = await list({ perPage: 7, ...(cursor ? { cursor } : {}) });
        expect(res.status).toBe(200);
        seen.push(...ids(res));
        cursor = res.body.paging.nextCursor ?? undefined;
        expect(res.body.paging.hasMore).toBe(cursor !== undefined);
        if (!cursor) break;
      }
      expect(seen).toEqual(all);
      expect(all).toHaveLength(45);
    });

    it('filters by status, recipient (without case), event and time, and pages within a filter', async () => {
      const failed = await list({ status: 'Failed', perPage: 100 });
      expect(ids(failed)).toEqual(await expected(`AND status = 'Failed'`));
      expect(ids(failed)).toHaveLength(9);

      const byEmail = await list({ email: 'cust1@example.TEST', perPage: 100 });
      expect(ids(byEmail)).toEqual(await expected(`AND email = 'Cust1@Example.test'`));
      expect(ids(byEmail).length).toBeGreaterThan(0);

      const byEvent = await list({ event: 'receipt', perPage: 100 });
      expect(ids(byEvent)).toEqual(await expected(`AND event = 'receipt'`));

      const from = '2026-06-01T11:50:00Z';
      const to = '2026-06-01T11:55:00Z';
      const window = await list({ from, to, perPage: 100 });
      expect(ids(window)).toEqual(await expected('AND created >= $2 AND created < $3', [from, to]));
      expect(ids(window)).toHaveLength(10);

      const combined = await list({ status: 'Sent', event: 'welcome', perPage: 2 });
      const next = await list({ status: 'Sent', event: 'welcome', perPage: 100, cursor: combined.body.paging.nextCursor });
      expect([...ids(combined), ...ids(next)]).toEqual(await expected(`AND status = 'Sent' AND event = 'welcome'`));

      expect((await list({ email: 'nobody@example.test' })).body).toMatchObject({ data: [], paging: { hasMore: false, nextCursor: null } });
    });

    it("never shows another app's mails", async () => {
      const theirs = await sql<{ id: number }>('SELECT id FROM core_notification_log WHERE app_id = $1', [other.appId]);
      const mine = ids(await list({ perPage: 100 }));
      expect(mine).toHaveLength(45);
      expect(mine.some((id) => theirs.some((row) => row.id === id))).toBe(false);
      expect(ids(await list({ perPage: 100 }, other.adminHeaders)).sort()).toEqual(theirs.map((row) => row.id).sort());
    });

    it('answers 400 naming the field for bad input', async () => {
      for (const [body, field] of [
        [{ perPage: 0 }, 'perPage'],
        [{ perPage: 101 }, 'perPage'],
        [{ perPage: '20' }, 'perPage'],
        [{ perPage: 2.5 }, 'perPage'],
        [{ status: 'Lost' }, 'status'],
        [{ status: 1 }, 'status'],
        [{ email: 'not-an-email' }, 'email'],
        [{ email: ['a@example.test'] }, 'email'],
        [{ event: 5 }, 'event'],
        [{ event: 'x'.repeat(101) }, 'event'],
        [{ from: 'yesterday' }, 'from'],
        [{ to: '2026-13-01' }, 'to'],
        [{ from: '2026-06-02T00:00:00Z', to: '2026-06-01T00:00:00Z' }, 'to'],
        [{ cursor: 'not a cursor' }, 'cursor'],
        [{ cursor: Buffer.from('2026-06-01T12:00:00.000000Z~0').toString('base64url') }, 'cursor'],
        [{ cursor: Buffer.from('2026-06-01~5').toString('base64url') }, 'cursor'],
        [{ cursor: 7 }, 'cursor'],
      ] as const) {
        const res = await list(body);
        expect({ body, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ body, status: 400, field });
      }
    });
  });

  describe('POST /message/log/read', () => {
    it('reads one mail whole: subject, HTML and text part, addresses, state', async () => {
      const [row] = await sql<{ id: number }>(
        `INSERT INTO core_notification_log (app_id, event, email, status, email_from, email_cc, email_bcc, subject, body, text_body, content_type, attempts, last_error, next_attempt)
         VALUES ($1, 'welcome', 'reader@example.test', 'Pending', 'shop@example.test', 'cc@example.test', 'b1@example.test,b2@example.test',
                 'Hi Ada', '<p>Hello Ada</p>', 'Hello Ada', 'html', 2, '550 busy', now() + interval '1 year') RETURNING id`,
        [shop.appId],
      );
      const res = await read({ id: row.id });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        id: row.id,
        event: 'welcome',
        templateID: null,
        email: 'reader@example.test',
        from: 'shop@example.test',
        cc: 'cc@example.test',
        bcc: 'b1@example.test,b2@example.test',
        subject: 'Hi Ada',
        contentType: 'html',
        html: '<p>Hello Ada</p>',
        text: 'Hello Ada',
        status: 'Pending',
        attempts: 2,
        lastError: '550 busy',
        linkedTable: null,
        masterID: null,
        created: expect.any(String),
        sent: null,
        nextAttempt: expect.any(String),
      });

      const [plain] = await sql<{ id: number }>(
        `INSERT INTO core_notification_log (app_id, event, email, status, sent, email_from, subject, body, content_type, attempts)
         VALUES ($1, 'order_admin', 'admin@example.test', 'Sent', now(), 'shop@example.test', 'New order', 'Order 12 paid', 'text', 1) RETURNING id`,
        [shop.appId],
      );
      expect((await read({ id: plain.id })).body.data).toMatchObject({
        contentType: 'text',
        html: null,
        text: 'Order 12 paid',
        status: 'Sent',
        sent: expect.any(String),
        nextAttempt: null,
      });
    });

    it("answers 404 for another app's mail or an unknown id, and 400 naming id for a bad one", async () => {
      const [theirs] = await sql<{ id: number }>('SELECT id FROM core_notification_log WHERE app_id = $1 LIMIT 1', [other.appId]);
      expect(await read({ id: theirs.id })).toMatchObject({ status: 404, body: { status: 'Failed', message: 'Mail not found' } });
      expect((await read({ id: 2147483647 })).status).toBe(404);
      for (const body of [{}, { id: 0 }, { id: -1 }, { id: 'abc' }, { id: '12' }, { id: 1.5 }, { id: 2147483648 }, { id: null }]) {
        const res = await read(body);
        expect({ body, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ body, status: 400, field: 'id' });
      }
    });
  });

  describe('POST /message/log/retry', () => {
    it('puts a Failed mail back in the queue; the running sender then delivers it through the SMTP peer', async () => {
      smtp.rejectRecipients.add('bounce@example.test');
      const sent = await t.post(
        '/message/notification',
        { event: 'welcome', email: 'bounce@example.test', data: { firstname: 'Bo' } },
        shop.headers,
      );
      expect(sent.body).toEqual({ status: 'Success' });
      const [row] = await sql<{ id: number }>(`SELECT id FROM core_notification_log WHERE app_id = $1 AND email = 'bounce@example.test'`, [
        shop.appId,
      ]);
      await waitFor(async () => (await read({ id: row.id })).body.data.status === 'Failed', 10_000);
      const failed = (await read({ id: row.id })).body.data;
      expect(failed).toMatchObject({ status: 'Failed', attempts: 1, lastError: expect.stringContaining('550') });
      expect(ids(await list({ status: 'Failed', email: 'BOUNCE@example.test' }))).toEqual([row.id]);

      smtp.rejectRecipients.delete('bounce@example.test');
      smtp.mails.length = 0;
      const retried = await retry({ id: row.id }, staff.get('support'));
      expect(retried.status).toBe(200);
      expect(retried.body.data).toMatchObject({ id: row.id, status: 'Pending', attempts: 0, nextAttempt: expect.any(String) });
      const [supportUser] = await sql<{ id: number }>(
        `SELECT id FROM core_users WHERE app_id = $1 AND user_email = 'log-support@example.test'`,
        [shop.appId],
      );
      expect(await audited(row.id)).toEqual([
        {
          action: 'mail.retry',
          actor_id: supportUser.id,
          actor_table: 'core_users',
          changes: expect.objectContaining({ status: { before: 'Failed', after: 'Pending' }, attempts: { before: 1, after: 0 } }),
        },
      ]);

      await waitFor(() => smtp.mails.length === 1, 10_000);
      expect(smtp.mails[0].parsed.subject).toBe('Hi Bo');
      expect(smtp.mails[0].envelope.to).toContain('bounce@example.test');
      await waitFor(async () => (await read({ id: row.id })).body.data.status === 'Sent', 10_000);
      expect((await read({ id: row.id })).body.data).toMatchObject({
        status: 'Sent',
        attempts: 1,
        lastError: null,
        sent: expect.any(String),
      });
      await t.get(NotificationSenderService).drain();
      expect(smtp.mails).toHaveLength(1);

      // Sent now: a second retry is refused, naming the status, and audits nothing.
      expect(await retry({ id: row.id })).toMatchObject({
        status: 409,
        body: { status: 'Failed', message: 'The mail is Sent: only a Failed mail can be retried' },
      });
      expect(await audited(row.id)).toHaveLength(1);
    });

    it("answers 409 naming a Pending mail's status, 404 for another app's Failed mail (left Failed), 400 naming id", async () => {
      const [pending] = await sql<{ id: number }>(
        `SELECT id FROM core_notification_log WHERE app_id = $1 AND status = 'Pending' AND email LIKE 'Cust%' LIMIT 1`,
        [shop.appId],
      );
      expect(await retry({ id: pending.id })).toMatchObject({
        status: 409,
        body: { message: 'The mail is Pending: only a Failed mail can be retried' },
      });
      const [theirs] = await sql<{ id: number }>(`SELECT id FROM core_notification_log WHERE app_id = $1 AND status = 'Failed' LIMIT 1`, [
        other.appId,
      ]);
      expect(await retry({ id: theirs.id })).toMatchObject({ status: 404, body: { message: 'Mail not found' } });
      expect(await sql('SELECT status FROM core_notification_log WHERE id = $1', [theirs.id])).toEqual([{ status: 'Failed' }]);
      expect(await audited(theirs.id)).toEqual([]);
      expect(await audited(pending.id)).toEqual([]);
      for (const body of [{}, { id: 'x' }, { id: 0 }])
        expect(await retry(body)).toMatchObject({ status: 400, body: { errors: [{ field: 'id' }] } });
    });

    it('of two retries at once, one puts the mail back and the other gets 409 Pending', async () => {
      const [row] = await sql<{ id: number }>(
        `INSERT INTO core_notification_log (app_id, event, email, status, email_from, subject, body, attempts, last_error, next_attempt)
         VALUES ($1, 'welcome', 'race@example.test', 'Failed', 'shop@example.test', 'Race', '<p>race</p>', 1, '550 no', now()) RETURNING id`,
        [shop.appId],
      );
      smtp.rejectRecipients.add('race@example.test'); // it fails again, and stays Failed, after the retry that won
      const answers = await Promise.all([retry({ id: row.id }), retry({ id: row.id })]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 409)!.body.message).toMatch(
        /^The mail is (Pending|Sent): only a Failed mail can be retried$/,
      );
      expect(await audited(row.id)).toHaveLength(1);
    });
  });

  describe('permissions (the role table)', () => {
    it('viewer and orders may read, not retry; support may read and retry; content may do neither', async () => {
      const [failed] = await sql<{ id: number }>(
        `SELECT id FROM core_notification_log WHERE app_id = $1 AND status = 'Failed' AND email LIKE 'Cust%' LIMIT 1`,
        [shop.appId],
      );
      for (const role of ['viewer', 'orders', 'support'] as const) {
        expect((await list({}, staff.get(role))).status).toBe(200);
        expect((await read({ id: failed.id }, staff.get(role))).status).toBe(200);
      }
      for (const role of ['viewer', 'orders'] as const)
        expect(await retry({ id: failed.id }, staff.get(role))).toMatchObject({ status: 403, body: { permission: 'mail.log.retry' } });
      expect(await list({}, staff.get('content'))).toMatchObject({ status: 403, body: { permission: 'mail.log.view' } });
      expect(await read({ id: failed.id }, staff.get('content'))).toMatchObject({ status: 403, body: { permission: 'mail.log.view' } });
      expect(await retry({ id: failed.id }, staff.get('content'))).toMatchObject({ status: 403, body: { permission: 'mail.log.retry' } });
      expect(await sql('SELECT status FROM core_notification_log WHERE id = $1', [failed.id])).toEqual([{ status: 'Failed' }]);

      expect((await list({}, shop.headers)).status).toBe(401);
      expect((await list({}, { ...other.headers, authorization: shop.adminHeaders.authorization })).status).toBe(401);
    });
  });
});
