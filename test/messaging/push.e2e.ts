import webpush from 'web-push';
import { IdCipherService } from '../../src/common/id-cipher.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { PushPeer } from './support/push-peer';

describe('POST /message/sendPush', () => {
  let peer: PushPeer;
  let t: TestApp;
  const envKeys = webpush.generateVAPIDKeys();
  const tenantKeys = webpush.generateVAPIDKeys();

  beforeAll(async () => {
    peer = await PushPeer.start();
    t = await startTestApp({
      NOTIFY_SENDER_ENABLED: 'false',
      PUSH_INSECURE_TLS: 'true',
      VAPID_PUBLIC_KEY: envKeys.publicKey,
      VAPID_PRIVATE_KEY: envKeys.privateKey,
      VAPID_SUBJECT: 'mailto:ops@example.test',
    });
  });
  afterAll(async () => {
    await t.close();
    await peer.stop();
  });

  async function customer(
    site: Record<string, unknown>,
    push: Record<string, unknown>,
  ): Promise<{ appId: number; customerID: string; id: number }> {
    const seeded = await t.seed({
      site: siteFixture(site),
      tables: { core_customers: [{ email: 'c@example.test', password: 'Cust@1234', ...push }] },
    });
    const id = seeded.ids.core_customers[0];
    return { appId: seeded.appID, id, customerID: t.get(IdCipherService).encryptId(seeded.appID, id) };
  }
  const sendPush = (appId: number, body: Record<string, unknown>) => t.post('/message/sendPush', body, { 'site-id': String(appId) });
  const vapidKeyOf = (headers: Record<string, unknown>) => /k=([A-Za-z0-9_-]+)/.exec(String(headers.authorization))?.[1];

  it('delivers an encrypted payload signed with the tenant VAPID keys; title defaults to Notification', async () => {
    const sub = peer.subscribe();
    const { appId, customerID } = await customer(
      { vapid_public_key: tenantKeys.publicKey, vapid_private_key: tenantKeys.privateKey, vapid_subject: 'mailto:tenant@example.test' },
      { pushsubscription: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth },
    );
    const res = await sendPush(appId, { customerID, message: 'Your order shipped', data: { orderId: 7 }, appID: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'Success' });
    const push = peer.received.at(-1)!;
    expect(push.payload).toEqual({ title: 'Notification', body: 'Your order shipped', data: { orderId: 7 } });
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(vapidKeyOf(push.headers)).toBe(tenantKeys.publicKey);
  });

  it('falls back to the VAPID_* keys and reads a subscription stored as JSON', async () => {
    const sub = peer.subscribe();
    const { appId, customerID } = await customer(
      {},
      { pushsubscription: JSON.stringify({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }) },
    );
    const res = await sendPush(appId, { customerID, title: 'Hello', message: 'Hi' });
    expect(res.body).toEqual({ status: 'Success' });
    expect(peer.received.at(-1)!.payload).toMatchObject({ title: 'Hello', body: 'Hi' });
    expect(vapidKeyOf(peer.received.at(-1)!.headers)).toBe(envKeys.publicKey);
  });

  it('clears a subscription the push service reports gone (410) and answers Error', async () => {
    const sub = peer.subscribe('/gone/abc');
    const { appId, customerID, id } = await customer({}, { pushsubscription: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth });
    expect((await sendPush(appId, { customerID, message: 'x' })).body).toEqual({ status: 'Error' });
    const [row] = await t.dataSource.query('SELECT pushsubscription, p256dh, auth FROM core_customers WHERE id = $1', [id]);
    expect(row).toEqual({ pushsubscription: null, p256dh: null, auth: null });
  });

  it('answers Error without a subscription, for a bad or foreign customer id', async () => {
    const none = await customer({}, {});
    expect((await sendPush(none.appId, { customerID: none.customerID, message: 'x' })).body).toEqual({ status: 'Error' });
    expect((await sendPush(none.appId, { customerID: 'not-encrypted', message: 'x' })).body).toEqual({ status: 'Error' });
    const sub = peer.subscribe();
    const other = await customer({}, { pushsubscription: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth });
    const before = peer.received.length;
    expect((await sendPush(none.appId, { customerID: other.customerID, message: 'x' })).body).toEqual({ status: 'Error' });
    expect(peer.received.length).toBe(before);
  });

  it('answers 401 Error Unauthorized without the site-id header', async () => {
    const res = await t.post('/message/sendPush', { customerID: 'x', message: 'x' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'Error', message: 'Unauthorized' });
  });
});

describe('POST /message/sendPush without any VAPID keys', () => {
  it('answers Error', async () => {
    const peer = await PushPeer.start();
    const t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false', PUSH_INSECURE_TLS: 'true' });
    try {
      const sub = peer.subscribe();
      const seeded = await t.seed({
        site: siteFixture(),
        tables: { core_customers: [{ email: 'c@example.test', pushsubscription: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth }] },
      });
      const res = await t.post(
        '/message/sendPush',
        { customerID: t.get(IdCipherService).encryptId(seeded.appID, seeded.ids.core_customers[0]), message: 'x' },
        { 'site-id': String(seeded.appID) },
      );
      expect(res.body).toEqual({ status: 'Error' });
      expect(peer.received).toHaveLength(0);
    } finally {
      await t.close();
      await peer.stop();
    }
  });
});

describe('PUSH_INSECURE_TLS', () => {
  it('is refused in production', () => {
    const { loadConfig } = require('../../src/config/app-config') as typeof import('../../src/config/app-config');
    expect(() => loadConfig({ NODE_ENV: 'production', PUSH_INSECURE_TLS: 'true' })).toThrow(/PUSH_INSECURE_TLS is for tests only/);
  });
});
