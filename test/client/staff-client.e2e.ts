import type { AddressInfo } from 'node:net';
import { createClient, type Client, type Schemas } from '../../client/src';
import { userToken } from '../versioning/content-helpers';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { drain, seedShop, ShopClient, ShopTenant, stopShopHarness } from '../orders/checkout-helpers';
import { ApiContract } from '../support/openapi-contract';
import { PaymentPeer } from '../support/payment-peer';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Every part of the staff API through the generated client (client/), against a listening app on the real
 * database: staff and roles, mail templates, the send log, the order timeline and notes, tenant settings and
 * the audit log that records all of it, and a role without the permission. Each call compiles against the
 * generated types, each answer is held to the OpenAPI document (an openapi-fetch middleware runs the e2e
 * contract check), and each change is read back through the API. The tests run in order: later ones read
 * what earlier ones changed (`made`).
 */
describe('the staff API through the generated client', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let baseUrl: string;
  let owner: Client;
  const problems: string[] = [];
  const samEmail = `sam-${process.pid}@example.test`;
  const testerEmail = `tester-${process.pid}@example.test`;
  const event = 'staff_welcome';
  /** What earlier tests made, for the later ones. */
  const made = { samId: 0, beaId: 0, ollyId: 0, orderID: 0, noteID: 0, testLogId: 0 };

  /** A client of the shop's app with these headers, its answers checked against the document. */
  function client(headers: Record<string, string>): Client {
    const api = createClient({ baseUrl, headers });
    const contract = ApiContract.of(t.app, t.config);
    api.use({
      async onResponse({ request, response }) {
        const sent: Record<string, string> = {};
        request.headers.forEach((value, name) => (sent[name] = value));
        problems.push(
          ...contract.check(
            { method: request.method, url: new URL(request.url).pathname, headers: sent },
            { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: await response.clone().text() },
          ),
        );
        return response;
      },
    });
    return api;
  }

  async function staff(): Promise<Schemas['StaffMemberDto'][]> {
    const listed = await owner.POST('/staff/list', { body: {} });
    expect(listed.response.status).toBe(200);
    return listed.data!.data;
  }

  async function member(id: number): Promise<Schemas['StaffMemberDto'] | undefined> {
    return (await staff()).find((m) => m.id === id);
  }

  beforeAll(async () => {
    peer = await PaymentPeer.start();
    smtp = await SmtpPeer.start();
    t = await startTestApp({ PAYMENT_API_URL: peer.url, SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false' });
    shop = await seedShop(t);
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    owner = client(shop.adminHeaders);
  }, 60_000);
  afterAll(() => stopShopHarness({ t, smtp, peer }));
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  it('lists, invites, changes roles and removes staff, and keeps the last owner', async () => {
    const before = await staff();
    expect(before).toHaveLength(3);
    const admin = before.find((m) => m.id === shop.adminId)!;
    expect(admin).toMatchObject({ roles: ['owner'], passwordSet: true, firstname: 'Ada' });
    const olly = before.find((m) => m.email === shop.ccEmail)!;
    expect(olly).toMatchObject({ roles: ['owner'], passwordSet: true, firstname: 'Olly' }); // a second admin: an owner too
    const bea = before.find((m) => m.email === shop.bccEmail)!;
    expect(bea).toMatchObject({ roles: [], passwordSet: true, firstname: 'Bea' });
    made.ollyId = olly.id;
    made.beaId = bea.id;

    // An invitation: an account without a password, holding the roles, and the reset link mailed to it.
    const invited = await owner.POST('/staff/invite', {
      body: { email: samEmail, roles: ['orders'], firstname: 'Sam', lastname: 'Stone' },
    });
    expect(invited.response.status).toBe(201);
    const sam: Schemas['StaffMemberDto'] = invited.data!.data;
    expect(sam).toMatchObject({ email: samEmail, roles: ['orders'], firstname: 'Sam', lastname: 'Stone', passwordSet: false });
    made.samId = sam.id;
    expect(await member(sam.id)).toEqual(sam);
    expect(await drain(t)).toMatchObject({ sent: 1, failed: 0 });
    const [invitation] = smtp.mails.filter((mail) => mail.envelope.to.includes(samEmail));
    expect(invitation.parsed.subject).toMatch(/: reset your password$/);
    expect(invitation.parsed.text).toMatch(/[?&]token=/);

    const again = await owner.POST('/staff/invite', { body: { email: samEmail, roles: [] } });
    expect(again.response.status).toBe(409);
    expect(again.error).toMatchObject({ status: 'Failed' });

    // Roles become exactly the ones given.
    const samRoles = await owner.POST('/staff/roles', { body: { userId: sam.id, roles: ['orders', 'support'] } });
    expect(samRoles.response.status).toBe(200);
    expect(samRoles.data!.data).toMatchObject({ id: sam.id, roles: ['orders', 'support'] });
    const beaRoles = await owner.POST('/staff/roles', { body: { userId: bea.id, roles: ['viewer'] } });
    expect(beaRoles.data!.data).toMatchObject({ id: bea.id, roles: ['viewer'], passwordSet: true });
    expect((await member(sam.id))?.roles).toEqual(['orders', 'support']);
    expect((await member(bea.id))?.roles).toEqual(['viewer']);

    const badRoles = await owner.POST('/staff/roles', { body: { userId: sam.id, roles: ['orders', 'orders'] } });
    expect(badRoles.response.status).toBe(400);
    expect(badRoles.error?.errors).toEqual([{ field: 'roles', message: 'roles must not repeat a role' }]);

    // Removed: no roles, no password; the row stays.
    const removed = await owner.POST('/staff/remove', { body: { userId: sam.id } });
    expect(removed.response.status).toBe(200);
    expect(removed.data!.data).toMatchObject({ id: sam.id, email: samEmail, roles: [], passwordSet: false });
    expect(await member(sam.id)).toMatchObject({ roles: [], passwordSet: false });

    // The app keeps one owner: with Olly an orders member, Ada is the last, and can be neither removed nor demoted.
    const demoted = await owner.POST('/staff/roles', { body: { userId: olly.id, roles: ['orders'] } });
    expect(demoted.data!.data.roles).toEqual(['orders']);
    const last = 'An app keeps at least one owner: make another staff member owner first';
    const removeLast = await owner.POST('/staff/remove', { body: { userId: shop.adminId } });
    expect(removeLast.response.status).toBe(409);
    expect(removeLast.error).toEqual({ status: 'Failed', message: last });
    const demoteLast = await owner.POST('/staff/roles', { body: { userId: shop.adminId, roles: ['viewer'] } });
    expect(demoteLast.response.status).toBe(409);
    expect(demoteLast.error).toEqual({ status: 'Failed', message: last });
    expect(await member(shop.adminId)).toMatchObject({ roles: ['owner'], passwordSet: true });
    expect(await member(olly.id)).toMatchObject({ roles: ['orders'] });
  });

  it('creates, reads, updates, versions, restores, previews, test-sends and deletes a template', async () => {
    const none = await owner.POST('/message/templates/list');
    expect(none.response.status).toBe(200);
    expect(none.data!.data).toEqual([]);

    const created = await owner.POST('/message/templates/create', {
      body: { event, subject: 'Welcome [firstname]', content: '<p>Hello [firstname] [lastname]</p>' },
    });
    expect(created.response.status).toBe(200);
    const template: Schemas['TemplateItem'] = created.data!.data;
    expect(template).toMatchObject({
      event,
      enabled: true,
      subject: 'Welcome [firstname]',
      content: '<p>Hello [firstname] [lastname]</p>',
      from: null,
      bcc: null,
      version: 1,
      reserved: false,
      mergeFields: ['firstname', 'lastname'],
    });
    const listed = await owner.POST('/message/templates/list');
    expect(listed.data!.data.map((row) => [row.event, row.version])).toEqual([[event, 1]]);
    const read = await owner.POST('/message/templates/get', { body: { event } });
    expect(read.data!.data).toEqual(template);

    // An update changes the fields given, as a new version.
    const updated = await owner.POST('/message/templates/update', {
      body: { event, subject: 'Welcome aboard, [firstname]', bcc: 'archive@example.test' },
    });
    expect(updated.response.status).toBe(200);
    expect(updated.data!.data).toMatchObject({
      subject: 'Welcome aboard, [firstname]',
      content: '<p>Hello [firstname] [lastname]</p>',
      bcc: 'archive@example.test',
      version: 2,
    });
    expect((await owner.POST('/message/templates/get', { body: { event } })).data!.data).toMatchObject({
      subject: 'Welcome aboard, [firstname]',
      bcc: 'archive@example.test',
      version: 2,
    });

    // Refused saves name the field and change nothing: unbalanced markup, an unknown merge field of an order mail.
    const unbalanced = await owner.POST('/message/templates/update', { body: { event, content: '<p>unclosed <b>bold</p>' } });
    expect(unbalanced.response.status).toBe(400);
    expect(unbalanced.error).toMatchObject({ status: 'Failed', message: 'Validation error' });
    expect(unbalanced.error?.errors?.map((e) => e.field)).toEqual(['content']);
    const unknownField = await owner.POST('/message/templates/create', {
      body: { event: 'order_refund', subject: 'Refund [nonsense]', content: '<p>[amount]</p>' },
    });
    expect(unknownField.response.status).toBe(400);
    expect(unknownField.error?.errors?.map((e) => e.field)).toContain('subject');
    expect((await owner.POST('/message/templates/get', { body: { event: 'order_refund' } })).response.status).toBe(404);

    const versions = await owner.POST('/message/templates/versions', { body: { event } });
    expect(versions.response.status).toBe(200);
    expect(versions.data!.data.map((v) => [v.version, v.action, v.subject, v.userId])).toEqual([
      [2, 'update', 'Welcome aboard, [firstname]', shop.adminId],
      [1, 'create', 'Welcome [firstname]', shop.adminId],
    ]);

    const restored = await owner.POST('/message/templates/restore', { body: { event, version: 1 } });
    expect(restored.response.status).toBe(200);
    expect(restored.data!.data).toMatchObject({ subject: 'Welcome [firstname]', bcc: null, version: 3 });
    expect((await owner.POST('/message/templates/get', { body: { event } })).data!.data).toMatchObject({
      subject: 'Welcome [firstname]',
      bcc: null,
      version: 3,
    });

    const preview = await owner.POST('/message/templates/preview', { body: { event, data: { firstname: 'Cy' } } });
    expect(preview.response.status).toBe(200);
    const shown: Schemas['TemplatePreview'] = preview.data!.data;
    expect(shown).toMatchObject({ subject: 'Welcome Cy', usedFields: ['firstname'], missingFields: ['lastname'], sample: false });
    expect(shown.html).toContain('Hello Cy [lastname]');
    expect(shown.text).toBe('Hello Cy [lastname]');
    const sample = await owner.POST('/message/templates/preview', { body: { event } });
    expect(sample.data!.data).toMatchObject({ sample: true, missingFields: [] });

    // A test send: queued for the one address, sent by the sender to the SMTP peer.
    const sent = await owner.POST('/message/templates/testSend', { body: { event, email: testerEmail, data: { firstname: 'Cy' } } });
    expect(sent.response.status).toBe(200);
    expect(sent.data!.data).toMatchObject({ subject: 'Welcome Cy', missingFields: ['lastname'] });
    made.testLogId = sent.data!.data.logId;
    smtp.mails.length = 0;
    expect(await drain(t)).toMatchObject({ sent: 1, failed: 0 });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0].envelope.to).toEqual([testerEmail]);
    expect(smtp.mails[0].parsed.subject).toBe('TEST: Welcome Cy');
    expect(String(smtp.mails[0].parsed.html)).toContain('<p>Hello Cy [lastname]</p>');

    const deleted = await owner.POST('/message/templates/delete', { body: { event } });
    expect(deleted.response.status).toBe(200);
    expect(deleted.data!.data).toEqual({ event, version: 4 });
    const gone = await owner.POST('/message/templates/get', { body: { event } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toMatchObject({ status: 'Failed', message: 'Template not found' });
    expect((await owner.POST('/message/templates/list')).data!.data).toEqual([]);
    expect((await owner.POST('/message/templates/versions', { body: { event } })).data!.data.map((v) => v.action)).toEqual([
      'delete',
      'restore',
      'update',
      'create',
    ]);
  });

  it('shows an order’s timeline with a staff note', async () => {
    const shopper = new ShopClient(t, peer, shop);
    const order = await shopper.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
    expect((await shopper.deliver(shopper.paid(order.intent))).status).toBe(200);
    await drain(t);
    made.orderID = order.orderID;

    const note = await owner.POST('/ecommerce/addOrderNote', { body: { _orderID: order._id, text: '  Customer called about delivery  ' } });
    expect(note.response.status).toBe(200);
    const added: Schemas['AddedNoteDto'] = note.data!.data;
    expect(added).toMatchObject({ author: shop.adminId, text: 'Customer called about delivery' });
    made.noteID = added.noteID;

    const blank = await owner.POST('/ecommerce/addOrderNote', { body: { _orderID: order._id, text: '   ' } });
    expect(blank.response.status).toBe(400);
    expect(blank.error?.errors?.map((e) => e.field)).toEqual(['text']);

    const timeline = await owner.POST('/ecommerce/orderTimeline', { body: { _orderID: order._id } });
    expect(timeline.response.status).toBe(200);
    const { data } = timeline.data!;
    expect(data).toMatchObject({ _id: order._id, orderID: order.orderID });
    const types = data.events.map((e) => e.type);
    expect(types[0]).toBe('created');
    expect(types).toEqual(expect.arrayContaining(['item_added', 'checkout', 'payment_event', 'completed', 'mail_written', 'mail_sent']));
    expect(types.indexOf('checkout')).toBeLessThan(types.indexOf('payment_event'));
    const times = data.events.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // One note: the blank one was refused.
    expect(data.events.filter((e) => e.type === 'note')).toEqual([
      expect.objectContaining({ details: expect.objectContaining({ author: shop.adminId, text: 'Customer called about delivery' }) }),
    ]);
    expect(data.events[data.events.length - 1].type).toBe('note');
    expect(data.events.find((e) => e.type === 'checkout')?.details).toMatchObject({
      paymentIntentID: order.intent.id,
      amount: order.total,
    });
  });

  it('reads and changes the tenant settings, the secrets masked; a bad currency is 400 naming changes.currency', async () => {
    const read = await owner.POST('/staff/settings', { body: {} });
    expect(read.response.status).toBe(200);
    const settings: Schemas['TenantSettingsDto'] = read.data!.data;
    expect(settings).toMatchObject({
      appID: shop.appId,
      domain: shop.domain,
      currency: 'aud',
      email_from: shop.emailFrom,
      payment_webhook_secret: 'whsec_…', // a short secret shows its prefix only
      payment_live_private_key: null,
    });
    expect(settings.payment_test_private_key).toMatch(/^sk_test_…/);
    expect(JSON.stringify(read.data)).not.toContain(shop.secret);

    const key = 'sk_test_staffClient0123456789wxyz';
    const updated = await owner.POST('/staff/settings/update', {
      body: { changes: { currency: 'EUR', colour1: '#336699', payment_test_private_key: key } },
    });
    expect(updated.response.status).toBe(200);
    const after: Schemas['UpdatedSettingsDto'] = updated.data!.data;
    expect(after).toMatchObject({ currency: 'eur', branding: { colour1: '#336699' }, payment_test_private_key: 'sk_test_…wxyz' });
    expect([...after.changed].sort()).toEqual(['colour1', 'currency', 'payment_test_private_key']);
    expect(JSON.stringify(updated.data)).not.toContain(key);
    const reread = await owner.POST('/staff/settings', { body: {} });
    expect(reread.data!.data).toMatchObject({
      currency: 'eur',
      branding: { colour1: '#336699' },
      payment_test_private_key: 'sk_test_…wxyz',
    });
    expect(JSON.stringify(reread.data)).not.toContain(key);

    const bad = await owner.POST('/staff/settings/update', { body: { changes: { name: 'Never saved', currency: 'zzz' } } });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.errors?.map((e) => e.field)).toEqual(['changes.currency']);
    expect((await owner.POST('/staff/settings', { body: {} })).data!.data).toMatchObject({ currency: 'eur', name: settings.name });
  });

  it('lists the send log by filter and reads a mail whole', async () => {
    const tests = await owner.POST('/message/log', { body: { event } });
    expect(tests.response.status).toBe(200);
    expect(tests.data!.data).toEqual([
      expect.objectContaining({ id: made.testLogId, event, email: testerEmail, subject: 'TEST: Welcome Cy', status: 'Sent', attempts: 1 }),
    ]);
    expect(tests.data!.paging).toEqual({ perPage: 20, hasMore: false, nextCursor: null });

    const invitations = await owner.POST('/message/log', { body: { email: samEmail.toUpperCase(), status: 'Sent' } });
    expect(invitations.data!.data).toEqual([
      expect.objectContaining({
        event: 'password_reset',
        email: samEmail,
        status: 'Sent',
        linkedTable: 'core_users',
        masterID: made.samId,
      }),
    ]);

    const orderMails = await owner.POST('/message/log', { body: { event: 'order_confirmation' } });
    expect(orderMails.data!.data).toEqual([
      expect.objectContaining({ email: shop.customerEmail, status: 'Sent', linkedTable: 'core_orders', masterID: made.orderID }),
    ]);

    // Newest first, by cursor.
    const first = await owner.POST('/message/log', { body: { status: 'Sent', perPage: 1 } });
    expect(first.data!.paging.hasMore).toBe(true);
    const second = await owner.POST('/message/log', { body: { status: 'Sent', perPage: 1, cursor: first.data!.paging.nextCursor! } });
    expect(second.data!.data).toHaveLength(1);
    expect(second.data!.data[0].id).not.toBe(first.data!.data[0].id);
    expect(Date.parse(second.data!.data[0].created)).toBeLessThanOrEqual(Date.parse(first.data!.data[0].created));

    const mail = await owner.POST('/message/log/read', { body: { id: made.testLogId } });
    expect(mail.response.status).toBe(200);
    const whole: Schemas['SendLogDetailDto'] = mail.data!.data;
    expect(whole).toMatchObject({
      id: made.testLogId,
      email: testerEmail,
      cc: null,
      bcc: null,
      subject: 'TEST: Welcome Cy',
      status: 'Sent',
      contentType: 'html',
      nextAttempt: null,
    });
    expect(whole.from).toContain(shop.emailFrom);
    expect(whole.html).toContain('<p>Hello Cy [lastname]</p>');
    expect(whole.text).toContain('Hello Cy [lastname]');
    expect(whole.sent).not.toBeNull();

    const unknown = await owner.POST('/message/log/read', { body: { id: 2_000_000_000 } });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toMatchObject({ message: 'Mail not found' });
  });

  it('shows the changes above in the audit log, by filter', async () => {
    const roles = await owner.POST('/staff/audit', { body: { action: 'staff.roles' } });
    expect(roles.response.status).toBe(200);
    // Newest first; the refused demotion of the last owner left no row.
    expect(roles.data!.data.map((row) => [row.recordId, row.changes.roles])).toEqual([
      [String(made.ollyId), { before: ['owner'], after: ['orders'] }],
      [String(made.beaId), { before: [], after: ['viewer'] }],
      [String(made.samId), { before: ['orders'], after: ['orders', 'support'] }],
    ]);
    expect(roles.data!.data.every((row) => row.actor?.id === shop.adminId && row.table === 'core_users')).toBe(true);

    const sams = await owner.POST('/staff/audit', { body: { table: 'core_users', recordId: String(made.samId) } });
    expect(sams.data!.data.map((row) => row.action)).toEqual(['staff.remove', 'staff.roles', 'staff.invite']);
    expect(sams.data!.data[2].changes).toEqual({
      email: { before: null, after: samEmail },
      roles: { before: null, after: ['orders'] },
    });

    const templates = await owner.POST('/staff/audit', { body: { table: 'core_notifications' } });
    // The refused saves left no row.
    expect(templates.data!.data.map((row) => row.action)).toEqual([
      'template.delete',
      'template.restore',
      'template.update',
      'template.create',
    ]);
    expect(templates.data!.data[2].changes.subject).toEqual({ before: 'Welcome [firstname]', after: 'Welcome aboard, [firstname]' });

    const notes = await owner.POST('/staff/audit', { body: { action: 'order.note' } });
    expect(notes.data!.data).toEqual([
      expect.objectContaining({
        table: 'core_order_notes',
        recordId: String(made.noteID),
        changes: expect.objectContaining({ text: { before: null, after: 'Customer called about delivery' } }),
      }),
    ]);

    const settings = await owner.POST('/staff/audit', { body: { action: 'settings.update' } });
    expect(settings.data!.data).toHaveLength(1); // the refused currency left none
    expect(settings.data!.data[0]).toMatchObject({ table: 'core_sites', recordId: String(shop.appId) });
    expect(settings.data!.data[0].changes).toMatchObject({
      currency: { before: 'aud', after: 'eur' },
      payment_test_private_key: { before: '[masked]', after: '[masked]' },
    });

    const paged = await owner.POST('/staff/audit', { body: { actor: shop.adminId, perPage: 2 } });
    expect(paged.data!.data).toHaveLength(2);
    expect(paged.data!.paging).toEqual({ page: 1, perPage: 2, hasMore: true });

    const bad = await owner.POST('/staff/audit', { body: { perPage: 500 } });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.errors?.map((e) => e.field)).toEqual(['perPage']);
  });

  it('refuses a viewer what it lacks the permission for: 403 naming the permission', async () => {
    const viewer = client({ ...shop.headers, authorization: `Bearer ${userToken(t, shop, made.beaId)}` });
    // A viewer may see the staff...
    const listed = await viewer.POST('/staff/list', { body: {} });
    expect(listed.response.status).toBe(200);
    expect(listed.data!.data.map((m) => m.id)).toContain(made.beaId);
    // ...but not invite.
    const refused = await viewer.POST('/staff/invite', { body: { email: `eve-${process.pid}@example.test`, roles: ['owner'] } });
    expect(refused.response.status).toBe(403);
    expect(refused.error).toEqual({ status: 'Failed', message: 'Insufficient permissions', permission: 'staff.manage' });
    const template = await viewer.POST('/message/templates/create', { body: { event: 'by_viewer', subject: 'x', content: '<p>x</p>' } });
    expect(template.response.status).toBe(403);
    expect(template.error).toMatchObject({ permission: 'mail.templates.edit' });
    expect((await staff()).map((m) => m.email)).not.toContain(`eve-${process.pid}@example.test`);
    expect((await owner.POST('/message/templates/get', { body: { event: 'by_viewer' } })).response.status).toBe(404);
  });
});
