import { IdCipherService } from '../../src/common/id-cipher.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

/** Encrypted ids are bound to their app: an id minted for one app never decrypts in another app's request. */
describe('encrypted ids are bound to their tenant', () => {
  let t: TestApp;
  let appA: number;
  let appB: number;
  const template = { event: 'echo', subject: 'Id [_id]', content: '<p>record [_id]</p>' };

  beforeAll(async () => {
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false' });
    appA = (
      await t.seed({
        site: siteFixture(),
        tables: { core_notifications: [template], core_customers: [{ email: 'a@example.test', password: 'Cust@1234' }] },
      })
    ).appID;
    appB = (await t.seed({ site: siteFixture(), tables: { core_notifications: [template] } })).appID;
  });
  afterAll(() => t.close());

  const lastMail = async (appId: number) =>
    (await t.dataSource.query('SELECT subject, body FROM core_notification_log WHERE app_id = $1 ORDER BY id DESC LIMIT 1', [appId]))[0];

  it("merge data: app A's id decrypts under A, and is the unknown id 0 under B (the plain id never reaches B's mail)", async () => {
    const idOfA = t.get(IdCipherService).encryptId(appA, 987654);
    const underA = await t.post(
      '/message/notification',
      { event: 'echo', email: 'x@example.test', data: { _id: idOfA } },
      { 'site-id': String(appA) },
    );
    expect(underA.status).toBe(200);
    expect(await lastMail(appA)).toEqual({ subject: 'Id 987654', body: '<p>record 987654</p>' });

    const underB = await t.post(
      '/message/notification',
      { event: 'echo', email: 'x@example.test', data: { _id: idOfA } },
      { 'site-id': String(appB) },
    );
    expect(underB.status).toBe(200);
    expect(await lastMail(appB)).toEqual({ subject: 'Id 0', body: '<p>record 0</p>' });
  });

  it("a customer's _id from A's signup works under A only", async () => {
    const signup = await t.post('/customers/signup', { email: 'new@example.test', password: 'Cust@1234' }, { 'site-id': String(appA) });
    expect(signup.status).toBe(200);
    const cipher = t.get(IdCipherService);
    expect(cipher.decryptId(appA, signup.body._id)).toBeGreaterThan(0);
    expect(cipher.decryptId(appB, signup.body._id)).toBeNull();
    const push = await t.post('/message/sendPush', { customerID: signup.body._id, message: 'hi' }, { 'site-id': String(appB) });
    expect(push.body).toEqual({ status: 'Error' });
  });
});
