import { siteFixture, startTestApp, TestApp } from '../support/test-app';

const welcome = {
  event: 'welcome',
  enabled: true,
  subject: 'Hi [firstname]',
  content: '<p>Hello [firstname], order [order]</p>',
  bcc: 'tpl-bcc@example.test',
};

describe('POST /message/notification', () => {
  let t: TestApp;
  let appId: number;
  let disabledAppId: number;
  let otherAppId: number;

  beforeAll(async () => {
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false' });
    appId = (
      await t.seed({
        site: siteFixture({ email_cc: 501, email_bcc: 502 }),
        tables: {
          core_users: [
            { id: 501, user_email: 'cc-admin@example.test', password: 'Admin@1234' },
            { id: 502, user_email: 'bcc-admin@example.test', password: 'Admin@1234' },
          ],
          core_notifications: [
            welcome,
            { event: 'off', enabled: false, subject: 'x', content: 'x' },
            { event: 'custom-from', subject: 's', content: 'c', from: 'tpl@example.test' },
          ],
        },
      })
    ).appID;
    disabledAppId = (await t.seed({ site: siteFixture({ disable_email: true }), tables: { core_notifications: [welcome] } })).appID;
    otherAppId = (
      await t.seed({ site: siteFixture(), tables: { core_notifications: [{ event: 'other-only', subject: 's', content: 'c' }] } })
    ).appID;
  });
  afterAll(() => t.close());

  const send = (body: Record<string, unknown>, site: number | null = appId) =>
    t.post('/message/notification', body, site === null ? {} : { 'site-id': String(site) });
  const logRow = async (id?: number) =>
    (await t.dataSource.query(`SELECT * FROM core_notification_log WHERE app_id = $1 ORDER BY id DESC LIMIT 1`, [id ?? appId]))[0];

  it('writes a Pending log row with the merged mail, sender, CC and BCC', async () => {
    const res = await send({ event: 'welcome', email: 'cust@example.test', data: { firstname: 'Cy', order: '<b>7</b>' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'Success' });
    const row = await logRow();
    expect(row).toMatchObject({
      event: 'welcome',
      email: 'cust@example.test',
      status: 'Pending',
      sent: null,
      email_from: expect.stringMatching(/^shop\d+@example\.test$/),
      email_cc: 'cc-admin@example.test',
      email_bcc: 'bcc-admin@example.test, tpl-bcc@example.test',
      subject: 'Hi Cy',
      body: '<p>Hello Cy, order &lt;b&gt;7&lt;/b&gt;</p>',
      attempts: 0,
    });
    expect(row.notification_id).toEqual(expect.any(Number));
    expect(row.created).toBeInstanceOf(Date);
  });

  it('links the log row to the record with core_related when table and master_id are given', async () => {
    await send({ event: 'welcome', email: 'cust@example.test', table: 'core_customers', master_id: 42 });
    const row = await logRow();
    expect(row).toMatchObject({ linked_table: 'core_customers', master_id: 42 });
    const links = await t.dataSource.query(
      `SELECT * FROM core_related WHERE app_id = $1 AND name = 'core_notification_log' AND linked = $2`,
      [appId, row.id],
    );
    expect(links).toEqual([expect.objectContaining({ parent_table: 'core_customers', parent_id: 42, master_id: 42 })]);
  });

  it('uses the template from address and the setEmailField recipient', async () => {
    const res = await send({ event: 'custom-from', data: { to: 'field@example.test' }, setEmailField: 'to' });
    expect(res.body).toEqual({ status: 'Success' });
    expect(await logRow()).toMatchObject({ email: 'field@example.test', email_from: 'tpl@example.test' });
  });

  it('NONE leaves the recipient and the CC empty: only BCC addresses get the mail', async () => {
    await send({ event: 'welcome', email: 'NONE' });
    expect(await logRow()).toMatchObject({ email: null, email_cc: null, email_bcc: 'bcc-admin@example.test, tpl-bcc@example.test' });
  });

  it('answers Failed "Notifications are disabled" for a tenant with disable_email, writing nothing', async () => {
    const res = await send({ event: 'welcome', email: 'cust@example.test' }, disabledAppId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'Failed', message: 'Notifications are disabled' });
    expect(await logRow(disabledAppId)).toBeUndefined();
  });

  it.each([
    ['no site-id header', {}, null],
    ['an unknown site-id', {}, 999999],
    ['only a body appID', { appID: 0 }, null],
  ])('answers 401 Error Unauthorized with %s', async (_name, extra, site) => {
    const body = { event: 'welcome', email: 'cust@example.test', ...extra };
    if ('appID' in body) body.appID = appId;
    const res = await send(body, site as number | null);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'Error', message: 'Unauthorized' });
  });

  it('ignores a body appID naming another tenant', async () => {
    const res = await send({ event: 'other-only', email: 'cust@example.test', appID: otherAppId });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'event', message: 'No enabled notification template for this event' }]);
  });

  it('refuses a disabled template, a missing recipient and a bad address with 400 Validation error', async () => {
    const off = await send({ event: 'off', email: 'cust@example.test' });
    expect(off.status).toBe(400);
    expect(off.body).toMatchObject({ status: 'Failed', message: 'Validation error', errors: [{ field: 'event' }] });
    expect((await send({ event: 'welcome' })).body.errors).toEqual([
      { field: 'email', message: 'email is required (an address, NONE, or setEmailField)' },
    ]);
    expect((await send({ event: 'welcome', email: 'not-an-address' })).body.errors[0].field).toBe('email');
    expect((await send({ event: 'welcome', setEmailField: 'missing', data: {} })).body.errors[0].field).toBe('setEmailField');
    expect((await send({ email: 'a@example.test' })).body.errors[0].field).toBe('event');
  });
});
