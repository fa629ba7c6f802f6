import { seedTenant, Tenant } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The staff routes (README "Staff roles and permissions"): an owner invites staff with roles (a link sets the
 * password), changes their roles and removes them; roles are read from the account at every request; the app
 * keeps at least one owner, also when two owners take each other's role at the same time.
 */
describe('staff', () => {
  let t: TestApp;
  let tenant: Tenant;
  const bearer = (token: string) => ({ ...tenant.headers, authorization: `Bearer ${token}` });
  const owner = () => ({ ...tenant.adminHeaders });
  const post = (path: string, body: Record<string, unknown>, headers = owner()) => t.post(`/staff/${path}`, body, headers);

  async function login(email: string, password = 'Staff@1234'): Promise<string> {
    const res = await t.post('/auth/login', { email, password }, tenant.headers);
    expect(res.status).toBe(200);
    return res.body.token.access_token as string;
  }

  /** Invites `email` with `roles` and sets the password through the link the invitation mailed. */
  async function onboard(email: string, roles: string[]): Promise<{ id: number; token: string }> {
    const invited = await post('invite', { email, roles, firstname: 'Sam' });
    expect(invited.status).toBe(201);
    const [mail] = await t.dataSource.query(
      `SELECT text_body AS body FROM core_notification_log WHERE app_id = $1 AND email = $2 ORDER BY id DESC LIMIT 1`,
      [tenant.appId, email],
    );
    const token = decodeURIComponent(/[?&]token=([^"&<\s]+)/.exec(mail.body)![1]);
    const reset = await t.post(
      '/auth/reset-pass',
      { password: 'Staff@1234', confirmPassword: 'Staff@1234', reset_password_token: token },
      tenant.headers,
    );
    expect(reset.status).toBe(200);
    return { id: invited.body.data.id, token: await login(email) };
  }

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await seedTenant(t);
  });
  afterAll(() => t?.close());

  it('lists the staff with their roles; the admin of the fixture is an owner', async () => {
    const res = await post('list', {});
    expect(res.status).toBe(200);
    // The fixture's admin is an owner; its other account (a plain user) holds no role.
    expect(res.body.data.map((member: { roles: string[]; passwordSet: boolean }) => [member.roles, member.passwordSet])).toEqual([
      [['owner'], true],
      [[], true],
    ]);
  });

  it('invites a member whose link sets the password; their roles decide what they may do, at every request', async () => {
    const ana = await onboard('ana.orders@example.test', ['orders']);
    expect((await t.post('/ecommerce/listOrders', {}, bearer(ana.token))).status).toBe(200);
    const refused = await t.post('/content/create', {}, bearer(ana.token));
    expect(refused).toMatchObject({ status: 403, body: { message: 'Insufficient permissions', permission: 'content.edit' } });
    expect((await post('list', {}, bearer(ana.token))).body).toMatchObject({ permission: 'staff.view' });

    // Given content as well: the same token may create content at once.
    const changed = await post('roles', { userId: ana.id, roles: ['orders', 'content'] });
    expect(changed.body.data).toMatchObject({ id: ana.id, roles: ['orders', 'content'], passwordSet: true });
    expect((await t.post('/content/create', {}, bearer(ana.token))).status).toBe(400); // past the guard: the body is empty

    // Inviting the address again is 409; an invitation without roles is allowed (a member with none).
    expect((await post('invite', { email: 'ana.orders@example.test', roles: [] })).status).toBe(409);
  });

  it('removes a member: every token stops at once, and an invitation brings the account back', async () => {
    const ben = await onboard('ben.support@example.test', ['support']);
    expect((await t.post('/ecommerce/listOrders', {}, bearer(ben.token))).status).toBe(200);
    const removed = await post('remove', { userId: ben.id });
    expect(removed.body.data).toMatchObject({ roles: [], passwordSet: false });
    expect((await t.post('/ecommerce/listOrders', {}, bearer(ben.token))).status).toBe(401);
    expect((await t.post('/auth/login', { email: 'ben.support@example.test', password: 'Staff@1234' }, tenant.headers)).status).toBe(401);

    // Each change is in the audit log, written with it.
    expect(
      await t.dataSource.query(`SELECT action, changes FROM core_audit_log WHERE app_id = $1 AND record_id = $2 ORDER BY id`, [
        tenant.appId,
        String(ben.id),
      ]),
    ).toEqual([
      {
        action: 'staff.invite',
        changes: { email: { before: null, after: 'ben.support@example.test' }, roles: { before: null, after: ['support'] } },
      },
      { action: 'staff.remove', changes: { roles: { before: ['support'], after: [] }, loginEnabled: { before: true, after: false } } },
    ]);
    const back = await onboard('ben.support@example.test', ['viewer']);
    expect(back.id).toBe(ben.id);
    expect((await t.post('/ecommerce/listOrders', {}, bearer(back.token))).status).toBe(200);
    expect((await t.post('/ecommerce/cancelOrder', {}, bearer(back.token))).body).toMatchObject({ permission: 'orders.cancel' });
  });

  it('keeps one owner: the last cannot be demoted or removed, and two owners taking each other away at once leave one', async () => {
    const [{ id: adminId }] = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 AND primary_role = 'admin'`, [
      tenant.appId,
    ]);
    const last = 'An app keeps at least one owner: make another staff member owner first';
    expect(await post('roles', { userId: adminId, roles: ['orders'] })).toMatchObject({ status: 409, body: { message: last } });
    expect(await post('remove', { userId: adminId })).toMatchObject({ status: 409, body: { message: last } });

    for (let round = 0; round < 10; round++) {
      const other = await onboard(`owner${round}@example.test`, ['owner']);
      const [first, second] = await Promise.all([
        post('roles', { userId: other.id, roles: [] }, owner()),
        post('roles', { userId: adminId, roles: ['viewer'] }, bearer(other.token)),
      ]);
      // Never both: that would leave no owner. The loser is refused by the owner check (409) or, when the winner
      // committed before its request was let in, by its own roles, no longer an owner's (403 naming staff.manage).
      const statuses = [first.status, second.status].sort();
      expect([
        [200, 403],
        [200, 409],
      ]).toContainEqual(statuses);
      const loser = first.status === 200 ? second : first;
      if (loser.status === 403) expect(loser.body).toMatchObject({ permission: 'staff.manage' });
      const [{ owners }] = await t.dataSource.query(
        `SELECT count(*)::int AS owners FROM core_users WHERE app_id = $1 AND (primary_role = 'admin' OR 'owner' = ANY(staff_roles))`,
        [tenant.appId],
      );
      expect(owners).toBe(1);
      // Whoever is still the owner makes the admin owner again for the next round.
      const restore = await post('roles', { userId: adminId, roles: ['owner'] }, first.status === 200 ? owner() : bearer(other.token));
      expect(restore.status).toBe(200);
      await post('remove', { userId: other.id });
    }
  }, 60_000);

  it('refuses bad input with 400 naming the field, and another app’s member with 404', async () => {
    expect((await post('roles', { userId: 1, roles: ['root'] })).body.errors).toEqual([
      { field: 'roles', message: 'roles must hold only owner, orders, content, support, viewer' },
    ]);
    expect((await post('roles', { userId: 1, roles: ['orders', 'orders'] })).body.errors).toEqual([
      { field: 'roles', message: 'roles must not repeat a role' },
    ]);
    expect((await post('roles', { userId: 'x', roles: [] })).body.errors).toEqual([
      { field: 'userId', message: 'userId must be an integer' },
    ]);
    expect((await post('invite', { email: 'not-an-email', roles: [] })).body.errors).toEqual([
      { field: 'email', message: 'email must be a valid email address' },
    ]);
    expect((await post('invite', { email: 'x@example.test' })).body.errors).toEqual([{ field: 'roles', message: 'roles is required' }]);
    const other = await seedTenant(t);
    const [{ id: foreignId }] = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 LIMIT 1`, [other.appId]);
    expect(await post('remove', { userId: foreignId })).toMatchObject({ status: 404, body: { message: 'Staff member not found' } });
  });
});
