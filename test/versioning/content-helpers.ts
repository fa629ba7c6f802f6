import { SessionTokensService } from '../../src/auth';
import { Fixture } from '../../src/cli/seed.service';
import { siteFixture, TestApp } from '../support/test-app';

export interface Tenant {
  appId: number;
  adminId: number;
  headers: Record<string, string>;
  adminHeaders: Record<string, string>;
  products: number[];
}

/** A tenant with one core_users admin, one plain user and the given core_products rows. */
export async function seedTenant(t: TestApp, products: Record<string, unknown>[] = [], extra: Fixture['tables'] = {}): Promise<Tenant> {
  const result = await t.seed({
    site: siteFixture(),
    tables: {
      core_users: [
        {
          user_email: `admin${Math.random().toString(36).slice(2)}@example.test`,
          password: 'Admin@1234',
          primary_role: 'admin',
          firstname: 'Ada',
        },
        {
          user_email: `user${Math.random().toString(36).slice(2)}@example.test`,
          password: 'User@12345',
          primary_role: 'user',
          firstname: 'Uma',
        },
      ],
      core_products: products,
      ...extra,
    },
  });
  const adminId = result.ids.core_users[0];
  const token = t
    .get(SessionTokensService)
    .sign({ userId: adminId, appId: result.appID, authTable: 'core_users', role: 'admin' }, 'access');
  const headers = { 'site-id': String(result.appID) };
  return {
    appId: result.appID,
    adminId,
    headers,
    adminHeaders: { ...headers, authorization: `Bearer ${token}` },
    products: result.ids.core_products ?? [],
  };
}

/** An access token of the tenant's non-admin user. */
export function userToken(t: TestApp, tenant: Tenant, userId: number): string {
  return t.get(SessionTokensService).sign({ userId, appId: tenant.appId, authTable: 'core_users', role: 'user' }, 'access');
}

export function product(title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { title, price: 1000, tax: 100, bond: 0, IsDigital: 0, IsEvent: 0, ...extra };
}
