import { IdCipherService } from '../../src/common/id-cipher.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

/**
 * Bad input to the messaging endpoints is a 4xx with the failure envelope (or a 200 where the API contract says so),
 * never a 500, and never a row that should not exist.
 */
describe('Messaging endpoints with bad input', () => {
  let t: TestApp;
  let appId: number;
  let customerID: string;

  const odd = {
    event: 'odd',
    subject: 'S [__proto__] [constructor] [toString] [firstname]',
    content: '<p>[hasOwnProperty] [a.b] [x-y] [] [[firstname]] [firstname] [obj]</p>',
  };

  beforeAll(async () => {
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false' });
    const seeded = await t.seed({
      site: siteFixture(),
      tables: {
        core_customers: [{ email: 'c@example.test', password: 'Cust@1234' }],
        core_notifications: [{ event: 'welcome', subject: 'Hi [firstname]', content: '<p>[firstname]</p>' }, odd],
      },
    });
    appId = seeded.appID;
    customerID = t.get(IdCipherService).encryptId(appId, seeded.ids.core_customers[0]);
  });
  afterAll(() => t.close());

  const notify = (body: unknown) => t.post('/message/notification', body, { 'site-id': String(appId) });
  const lastRow = async () =>
    (await t.dataSource.query(`SELECT * FROM core_notification_log WHERE app_id = $1 ORDER BY id DESC LIMIT 1`, [appId]))[0];
  const ok = { event: 'welcome', email: 'a@example.test' };
  const long = 'x'.repeat(20_000); // huge for any field, within the route's 64 KB body limit

  it.each<[string, unknown, string | null]>([
    ['an empty body', {}, 'event'],
    ['an array body', [ok], 'event'],
    ['a string body', 'welcome', null],
    ['a null body', null, 'event'],
    ['event missing', { email: 'a@example.test' }, 'event'],
    ['event a number', { ...ok, event: 5 }, 'event'],
    ['event an array', { ...ok, event: ['welcome'] }, 'event'],
    ['event an object', { ...ok, event: { $ne: 1 } }, 'event'],
    ['event huge', { ...ok, event: long }, 'event'],
    ['event with NUL', { ...ok, event: 'wel\u0000come' }, 'event'],
    ['email a number', { ...ok, email: 1 }, 'email'],
    ['email an array', { ...ok, email: ['a@example.test', 'b@example.test'] }, 'email'],
    ['email huge', { ...ok, email: `${long}@example.test` }, 'email'],
    ['email with NUL', { ...ok, email: 'a\u0000@example.test' }, 'email'],
    ['email with a header break', { ...ok, email: 'a@example.test\r\nBcc: x@example.test' }, 'email'],
    ['email a list', { ...ok, email: 'a@example.test, b@example.test' }, 'email'],
    ['email none in lower case', { ...ok, email: 'none' }, 'email'],
    ['table a number', { ...ok, table: 5, master_id: 1 }, 'table'],
    ['table with SQL in it', { ...ok, table: 'core_orders; DROP TABLE core_orders', master_id: 1 }, 'table'],
    ['table unknown', { ...ok, table: 'no_such_table', master_id: 1 }, 'table'],
    ['table the migrations bookkeeping', { ...ok, table: 'typeorm_migrations', master_id: 1 }, 'table'],
    ['master_id a string', { ...ok, table: 'core_customers', master_id: '1' }, 'master_id'],
    ['master_id a fraction', { ...ok, table: 'core_customers', master_id: 1.5 }, 'master_id'],
    ['master_id zero', { ...ok, table: 'core_customers', master_id: 0 }, 'master_id'],
    ['master_id past integer', { ...ok, table: 'core_customers', master_id: 99_999_999_999 }, 'master_id'],
    ['master_id 1e300', { ...ok, table: 'core_customers', master_id: 1e300 }, 'master_id'],
    ['data an array', { ...ok, data: [1] }, 'data'],
    ['data a string', { ...ok, data: 'x' }, 'data'],
    ['SQL a number', { ...ok, SQL: 1 }, 'SQL'],
    ['SQL with NUL', { ...ok, SQL: 'SELECT 1\u0000' }, 'SQL'],
    ['setEmailField a number', { event: 'welcome', setEmailField: 5, data: {} }, 'setEmailField'],
    ['setEmailField naming a prototype property', { event: 'welcome', setEmailField: '__proto__', data: {} }, 'setEmailField'],
    ['setEmailField naming a non-address', { event: 'welcome', setEmailField: 'e', data: { e: ['a@example.test'] } }, 'setEmailField'],
    ['data with __proto__', { ...ok, data: JSON.parse('{"__proto__":{"polluted":1}}') }, null],
    ['data with constructor.prototype', { ...ok, data: { constructor: { prototype: { polluted: 1 } } } }, null],
    ['__proto__ at the top', JSON.parse('{"__proto__":{"event":"welcome"},"email":"a@example.test"}'), null],
  ])('notification: %s is a 400', async (_name, body, field) => {
    const before = (await t.dataSource.query(`SELECT count(*)::int AS n FROM core_notification_log`))[0].n;
    const res = await notify(body);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('Failed');
    if (field) expect(res.body).toMatchObject({ message: 'Validation error', errors: [{ field }] });
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM core_notification_log`))[0].n).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names the problem of a missing or mistyped event', async () => {
    expect((await notify({ email: 'a@example.test' })).body.errors).toEqual([{ field: 'event', message: 'event is required' }]);
    expect((await notify({ ...ok, event: 5 })).body.errors).toEqual([{ field: 'event', message: 'event must be a string' }]);
    expect((await notify({ ...ok, table: 'nope', master_id: 1 })).body.errors).toEqual([
      { field: 'table', message: 'Unknown table "nope"' },
    ]);
  });

  it('merges odd placeholder names only from own data fields, objects as escaped JSON, NUL dropped', async () => {
    const res = await notify({
      event: 'odd',
      email: 'a@example.test',
      data: { firstname: 'C\u0000y', 'a.b': 'dot', obj: { a: [1, { b: '<i>' }] } },
    });
    expect(res.body).toEqual({ status: 'Success' });
    const row = await lastRow();
    expect(row.subject).toBe('S [__proto__] [constructor] [toString] Cy');
    expect(row.body).toBe('<p>[hasOwnProperty] dot [x-y] [] [Cy] Cy {&quot;a&quot;:[1,{&quot;b&quot;:&quot;&lt;i&gt;&quot;}]}</p>');
  });

  it('accepts a large data value and links to a known table', async () => {
    const res = await notify({ ...ok, table: 'core_customers', master_id: 2_147_483_647, data: { firstname: 'y'.repeat(50_000) } });
    expect(res.body).toEqual({ status: 'Success' });
    const row = await lastRow();
    expect(row).toMatchObject({ linked_table: 'core_customers', master_id: 2_147_483_647, subject: `Hi ${'y'.repeat(997)}` });
  });

  it('answers 401 for odd site-id headers', async () => {
    for (const site of ['abc', '0', '-7', '7.5', ' ', `${appId},${appId}`]) {
      const res = await t.post('/message/notification', ok, { 'site-id': site });
      expect([res.status, res.body]).toEqual([401, { status: 'Error', message: 'Unauthorized' }]);
    }
  });

  it.each<[string, unknown, string | null]>([
    ['customerID missing', { message: 'x' }, 'customerID'],
    ['customerID a number', { customerID: 5, message: 'x' }, 'customerID'],
    ['customerID an array', { customerID: ['CUSTOMER'], message: 'x' }, 'customerID'],
    ['customerID huge', { customerID: long, message: 'x' }, 'customerID'],
    ['message missing', { customerID: 'CUSTOMER' }, 'message'],
    ['message an object', { customerID: 'CUSTOMER', message: { a: 1 } }, 'message'],
    ['message huge', { customerID: 'CUSTOMER', message: long }, 'message'],
    ['title a number', { customerID: 'CUSTOMER', message: 'x', title: 1 }, 'title'],
    ['data an array', { customerID: 'CUSTOMER', message: 'x', data: [1] }, 'data'],
    ['an array body', [{ customerID: 'CUSTOMER', message: 'x' }], null],
  ])('sendPush: %s is a 400', async (_name, body, field) => {
    const withId = JSON.parse(JSON.stringify(body).replaceAll('"CUSTOMER"', JSON.stringify(customerID)));
    const res = await t.post('/message/sendPush', withId, { 'site-id': String(appId) });
    expect(res.status).toBe(400);
    if (field) expect(res.body).toMatchObject({ status: 'Failed', message: 'Validation error', errors: [{ field }] });
  });

  it('sendPush: a tampered, truncated or foreign-format customerID answers like an unknown customer', async () => {
    const flipped = customerID.slice(0, -2) + (customerID.at(-2) === 'A' ? 'B' : 'A') + customerID.at(-1);
    for (const id of [flipped, customerID.slice(0, 10), '_[00:00]', '12', 'x'.repeat(900)]) {
      const res = await t.post('/message/sendPush', { customerID: id, message: 'x' }, { 'site-id': String(appId) });
      expect([res.status, res.body]).toEqual([200, { status: 'Error' }]);
    }
  });
});
