import { ROLE_PERMISSIONS, STAFF_ROLES, StaffRole } from '../../src/common/permissions';
import { createOpenApiDocument } from '../../src/openapi';
import { seedTenant, Tenant } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

interface StaffOperation {
  method: string;
  path: string;
  permission: string | undefined;
  /** A route open to others that a staff permission widens (x-permission-widens). */
  widens: string | undefined;
}

/**
 * Every staff operation against every role, generated from the OpenAPI document (README "Staff roles and
 * permissions"): an operation an admin-bearer may call must name its permission (`x-permission`), and a staff
 * member gets 403 naming that permission exactly when none of their roles grants it. A new staff route without a
 * permission, or a guard that lets the wrong role through, fails here.
 */
describe('staff permissions', () => {
  let t: TestApp;
  let tenant: Tenant;
  const tokens = new Map<StaffRole | 'none', string>();
  let operations: StaffOperation[];

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await seedTenant(t, [], {
      core_users: [
        { user_email: 'role-none@example.test', password: 'Staff@1234', primary_role: 'user' },
        ...STAFF_ROLES.map((role) => ({ user_email: `role-${role}@example.test`, password: 'Staff@1234', primary_role: 'user' })),
      ],
    });
    for (const role of STAFF_ROLES)
      await t.dataSource.query(`UPDATE core_users SET staff_roles = ARRAY[$2]::varchar[] WHERE app_id = $1 AND user_email = $3`, [
        tenant.appId,
        role,
        `role-${role}@example.test`,
      ]);
    for (const role of [...STAFF_ROLES, 'none'] as const) {
      const login = await t.post('/auth/login', { email: `role-${role}@example.test`, password: 'Staff@1234' }, tenant.headers);
      expect(login.status).toBe(200);
      tokens.set(role, login.body.token.access_token);
    }
    const document = createOpenApiDocument(t.app, t.config);
    operations = [];
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item as Record<string, Record<string, unknown>>)) {
        const security = (operation.security ?? []) as Record<string, unknown>[];
        if (security.some((way) => 'admin-bearer' in way))
          operations.push({
            method: method.toUpperCase(),
            path,
            permission: operation['x-permission'] as string | undefined,
            widens: operation['x-permission-widens'] as string | undefined,
          });
      }
  }, 60_000);
  afterAll(() => t?.close());

  it('names the permission of every operation a staff bearer may call', () => {
    expect(operations.length).toBeGreaterThan(15);
    expect(operations.filter((op) => !op.permission && !op.widens)).toEqual([]);
    expect(
      operations
        .filter((op) => op.widens)
        .map((op) => `${op.method} ${op.path} ${op.widens}`)
        .sort(),
    ).toEqual([
      'POST /ecommerce/getOrder orders.view',
      'POST /ecommerce/submitOrder orders.complete',
      'POST /getDataRows content.view',
      'POST /message/notification mail.send',
    ]);
  });

  it('answers 403 naming the permission exactly to the roles that lack it (every operation × every role)', async () => {
    const table: string[] = [];
    for (const op of operations.filter((o) => o.permission)) {
      const url = op.path.replace(/\{[^}]+\}/g, '1');
      for (const role of [...STAFF_ROLES, 'none'] as const) {
        const allowed = role !== 'none' && ROLE_PERMISSIONS[role].includes(op.permission as never);
        const res = await t.request(op.method, url, op.method === 'GET' ? undefined : {}, {
          ...tenant.headers,
          authorization: `Bearer ${tokens.get(role)}`,
        });
        // Allowed: past the guard (a validation error, not found, or done); refused: 403 naming the permission.
        const refused = res.status === 403 && res.body.permission === op.permission;
        const admitted = res.status !== 401 && res.status !== 403;
        if (allowed ? !admitted : !refused)
          table.push(`${op.method} ${op.path} as ${role}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
      }
    }
    expect(table).toEqual([]);
  }, 120_000);

  it('refuses a staff bearer of another app, and answers 401 without a bearer', async () => {
    const other = await seedTenant(t);
    const op = operations.find((o) => o.permission === 'orders.view')!;
    const foreign = await t.request(op.method, op.path.replace(/\{[^}]+\}/g, '1'), op.method === 'GET' ? undefined : {}, {
      ...other.headers,
      authorization: `Bearer ${tokens.get('owner')}`,
    });
    expect(foreign.status).toBe(401);
    const anonymous = await t.request(op.method, op.path.replace(/\{[^}]+\}/g, '1'), op.method === 'GET' ? undefined : {}, tenant.headers);
    expect(anonymous.status).toBe(401);
  });
});
