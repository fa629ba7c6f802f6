import { SessionTokensService } from '../../src/auth';
import { seedTenant, Tenant } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The staff API of notification templates (docs/messaging.md "Templates per tenant"): CRUD, versions and
 * restore, the checks of a save (400 naming the field), preview, permissions by role, tenants apart.
 */
describe('notification templates: staff API', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let contentHeaders: Record<string, string>;

  const post = (path: string, body: unknown, headers = tenant.adminHeaders) => t.post(`/message/templates/${path}`, body, headers);

  beforeAll(async () => {
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false' });
    tenant = await seedTenant(t, [], {
      core_notifications: [{ event: 'welcome', enabled: true, subject: 'Hi [firstname]', content: '<p>Hello [firstname]</p>' }],
    });
    other = await seedTenant(t, [], {
      core_notifications: [{ event: 'secret_event', enabled: true, subject: 'Other', content: '<p>Other app</p>' }],
    });
    // The tenant's plain user becomes a content editor (README "Staff roles and permissions": content may view templates only).
    const [[editor]] = await t.dataSource.query(
      `UPDATE core_users SET staff_roles = ARRAY['content']::varchar[] WHERE app_id = $1 AND primary_role = 'user' RETURNING id`,
      [tenant.appId],
    );
    const token = t
      .get(SessionTokensService)
      .sign({ userId: editor.id, appId: tenant.appId, authTable: 'core_users', role: 'user' }, 'access');
    contentHeaders = { ...tenant.headers, authorization: `Bearer ${token}` };
  }, 60_000);
  afterAll(() => t?.close());

  it('creates, lists, reads, updates and deletes a template, each change a version', async () => {
    const created = await post('create', {
      event: 'order_shipped',
      subject: 'Shipped [orderId]',
      content: '<p>Hi [name], it is on its way.</p>',
    });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({
      event: 'order_shipped',
      enabled: true,
      version: 1,
      reserved: false,
      mergeFields: ['orderId', 'name'],
    });

    const duplicate = await post('create', { event: 'order_shipped', subject: 'x', content: '<p>x</p>' });
    expect(duplicate.status).toBe(409);

    const list = await post('list', {});
    expect(list.status).toBe(200);
    expect(list.body.data.map((row: { event: string }) => row.event)).toEqual(['order_shipped', 'welcome']);

    const updated = await post('update', { event: 'order_shipped', subject: 'Shipped: order [orderId]', enabled: false });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ subject: 'Shipped: order [orderId]', enabled: false, version: 2 });
    expect(updated.body.data.content).toBe('<p>Hi [name], it is on its way.</p>');

    const read = await post('get', { event: 'order_shipped' });
    expect(read.body.data.subject).toBe('Shipped: order [orderId]');

    const deleted = await post('delete', { event: 'order_shipped' });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ event: 'order_shipped', version: 3 });
    expect((await post('get', { event: 'order_shipped' })).status).toBe(404);

    const versions = await post('versions', { event: 'order_shipped' });
    expect(versions.status).toBe(200);
    expect(versions.body.data.map((v: { version: number; action: string }) => `${v.version} ${v.action}`)).toEqual([
      '3 delete',
      '2 update',
      '1 create',
    ]);
    expect(versions.body.data[2].subject).toBe('Shipped [orderId]');
    expect(versions.body.data[2].userId).toBe(tenant.adminId);
  });

  it('restores an earlier version, also of a deleted template, as a new version', async () => {
    await post('create', { event: 'restock', subject: 'Back: [title]', content: '<p>[title] is back</p>' });
    await post('update', { event: 'restock', subject: 'Back in stock: [title]' });
    const restored = await post('restore', { event: 'restock', version: 1 });
    expect(restored.status).toBe(200);
    expect(restored.body.data).toMatchObject({ subject: 'Back: [title]', version: 3 });

    await post('delete', { event: 'restock' });
    const again = await post('restore', { event: 'restock', version: 2 });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ subject: 'Back in stock: [title]', version: 5 });
    const versions = await post('versions', { event: 'restock' });
    expect(versions.body.data.map((v: { action: string }) => v.action)).toEqual(['restore', 'delete', 'restore', 'update', 'create']);

    expect((await post('restore', { event: 'restock', version: 99 })).body.message).toBe('Template version not found');
    expect((await post('restore', { event: 'never_was', version: 1 })).status).toBe(404);
  });

  it('numbers the versions of concurrent changes without a gap or a clash; of concurrent creates one wins', async () => {
    const creates = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post('create', { event: 'raced', subject: `Create ${i}`, content: '<p>c</p>' })),
    );
    expect(creates.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const updates = await Promise.all(Array.from({ length: 10 }, (_, i) => post('update', { event: 'raced', subject: `Update ${i}` })));
    expect(updates.every((res) => res.status === 200)).toBe(true);
    const versions = await post('versions', { event: 'raced' });
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(updates.map((res) => res.body.data.version).sort((a: number, b: number) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('keeps the state of a template saved before versions existed as version 1 at its first change', async () => {
    const updated = await post('update', { event: 'welcome', subject: 'Welcome, [firstname]' });
    expect(updated.body.data.version).toBe(2);
    const versions = await post('versions', { event: 'welcome' });
    expect(versions.body.data.map((v: { subject: string }) => v.subject)).toEqual(['Welcome, [firstname]', 'Hi [firstname]']);
  });

  it.each(
    [
      [{ event: '9lives', subject: 'x', content: '<p>x</p>' }, 'event'],
      [{ event: 'has space', subject: 'x', content: '<p>x</p>' }, 'event'],
      [{ event: 'e'.repeat(101), subject: 'x', content: '<p>x</p>' }, 'event'],
      [{ event: 'ok', subject: 's'.repeat(501), content: '<p>x</p>' }, 'subject'],
      [{ event: 'ok', subject: 'two\nlines', content: '<p>x</p>' }, 'subject'],
      [{ event: 'ok', subject: 'x', content: 'c'.repeat(50_001) }, 'content'],
      [{ event: 'ok', subject: 'x', content: '<div><p>unclosed div</p>' }, 'content'],
      [{ event: 'ok', subject: 'x', content: '<p><strong>crossed</p></strong>' }, 'content'],
      [{ event: 'ok', subject: 'x', content: '<p>stray</span></p>' }, 'content'],
      [{ event: 'ok', subject: 'x', content: '<p class="a>never closed</p>' }, 'content'],
      [{ event: 'ok', subject: 'x', content: '<!-- open comment <p>x</p>' }, 'content'],
      [{ event: 'ok', subject: 'x', content: '<p>x</p>', from: 'not an address' }, 'from'],
      [{ event: 'ok', subject: 'x', content: '<p>x</p>', bcc: 'a@example.test; nope' }, 'bcc'],
      [{ event: 'order_confirmation', subject: 'Order [orderId]', content: '<p>[total] [shoeSize]</p>' }, 'content'],
      [{ event: 'order_refund', subject: 'Refund [nonsense]', content: '<p>[amount]</p>' }, 'subject'],
      [{ event: 'ok', subject: 1, content: '<p>x</p>' }, 'subject'],
      [{ event: 'ok', content: '<p>x</p>' }, 'subject'],
    ].map(([body, field]) => [JSON.stringify(body).slice(0, 90), body, field] as const),
  )('refuses %s with 400 naming the field', async (_label, body, field) => {
    const res = await post('create', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Validation error');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await post('get', { event: (body as { event: string }).event })).status).not.toBe(200);
  });

  it('accepts balanced HTML with void elements, optional end tags, comments and a doctype', async () => {
    const content =
      '<!doctype html><html><body><!-- note --><p>Order [orderId]<br>placed<img src="[qrCodeUrl]" alt="QR">' +
      '<table><tr><td>[items]<td>[total]</table><ul><li>one<li>two</ul><p>a < b, [closing]</body></html>';
    const res = await post('create', { event: 'order_confirmation', subject: '[domain]: order [orderId]', content });
    expect(res.status).toBe(200);
    expect(res.body.data.reserved).toBe(true);
    expect(res.body.data.mergeFields).toContain('qrCodeUrl');
    await post('delete', { event: 'order_confirmation' });
  });

  it('previews with given data (used and missing fields), with sample data, and unsaved text', async () => {
    await post('create', {
      event: 'greet',
      subject: 'Hello [firstname]',
      content: '<p>Dear [firstname] [lastname],</p><p><a href="[link]">Open</a> &amp; enjoy</p>',
    });
    const res = await post('preview', { event: 'greet', data: { firstname: 'Cy <b>', link: 'https://x.example.test/a' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      subject: 'Hello Cy <b>',
      usedFields: ['firstname', 'link'],
      missingFields: ['lastname'],
      sample: false,
    });
    expect(res.body.data.html).toContain('Dear Cy &lt;b&gt; [lastname],');
    expect(res.body.data.text).toBe('Dear Cy <b> [lastname],\n\nOpen (https://x.example.test/a) & enjoy');

    const sample = await post('preview', { event: 'greet' });
    expect(sample.body.data).toMatchObject({ sample: true, missingFields: [] });

    const draft = await post('preview', { event: 'order_refund', subject: 'Refund [amount]', content: '<p>[amount] for [orderId]</p>' });
    expect(draft.status).toBe(200);
    expect(draft.body.data.subject).toBe('Refund $25.00');
    const bad = await post('preview', { event: 'greet', content: '<p>unclosed <b>bold</p>' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('content');
    expect((await post('preview', { event: 'nothing_here' })).status).toBe(404);
  });

  it('lets a content role view and preview but not change templates (403 naming the permission)', async () => {
    expect((await post('list', {}, contentHeaders)).status).toBe(200);
    expect((await post('preview', { event: 'welcome' }, contentHeaders)).status).toBe(200);
    for (const [path, body] of [
      ['create', { event: 'x1', subject: 'x', content: '<p>x</p>' }],
      ['update', { event: 'welcome', subject: 'changed' }],
      ['delete', { event: 'welcome' }],
      ['restore', { event: 'welcome', version: 1 }],
      ['testSend', { event: 'welcome', email: 'a@example.test' }],
    ] as const) {
      const res = await post(path, body, contentHeaders);
      expect(res.status).toBe(403);
      expect(res.body.permission).toBe('mail.templates.edit');
    }
    expect((await post('list', {}, tenant.headers)).status).toBe(401);
  });

  it('records each change in the audit log, in its transaction: none for a refused save', async () => {
    await post('create', { event: 'audited', subject: 'A [x]', content: '<p>a</p>' });
    await post('update', { event: 'audited', subject: 'B [x]' });
    expect((await post('update', { event: 'audited', content: '<p>unclosed <b></p>' })).status).toBe(400);
    await post('delete', { event: 'audited' });
    await post('restore', { event: 'audited', version: 1 });
    const rows: { action: string; record_id: string; actor_id: number; changes: Record<string, { before: unknown; after: unknown }> }[] =
      await t.dataSource.query(
        `SELECT action, record_id, actor_id, changes FROM core_audit_log WHERE app_id = $1 AND table_name = 'core_notifications' ORDER BY id`,
        [tenant.appId],
      );
    const audited = rows.slice(-4);
    expect(audited.map((row) => row.action)).toEqual(['template.create', 'template.update', 'template.delete', 'template.restore']);
    expect(audited.every((row) => row.actor_id === tenant.adminId)).toBe(true);
    expect(audited[1].changes.subject).toEqual({ before: 'A [x]', after: 'B [x]' });
    expect(audited[1].changes.content).toBeUndefined();
  });

  it("never shows or changes another app's templates", async () => {
    const list = await post('list', {});
    expect(list.body.data.map((row: { event: string }) => row.event)).not.toContain('secret_event');
    expect((await post('get', { event: 'secret_event' })).status).toBe(404);
    expect((await post('update', { event: 'secret_event', subject: 'mine' })).status).toBe(404);
    expect((await post('delete', { event: 'secret_event' })).status).toBe(404);
    expect((await post('versions', { event: 'secret_event' })).status).toBe(404);
    expect((await post('get', { event: 'welcome' }, other.adminHeaders)).status).toBe(404);
    const [row] = await t.dataSource.query('SELECT subject FROM core_notifications WHERE app_id = $1', [other.appId]);
    expect(row.subject).toBe('Other');
  });
});
