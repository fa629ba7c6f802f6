import jwt from 'jsonwebtoken';
import { ExecutionContext } from '@nestjs/common';
import { CustomerGuard, OptionalBearerGuard } from '../../src/common/access-guards';
import { IdCipherService } from '../../src/common/id-cipher.service';
import { RequestContext } from '../../src/common/request-context';
import { siteFixture, startTestApp, TEST_ENV, TestApp } from '../support/test-app';
import { SmsGateway } from './support/sms-gateway';

const MOBILE = '+61400000042';

describe('invite-link, getFolderLimits, user-email, user-sms-code, verify-sms-code and the guards', () => {
  let t: TestApp;
  let sms: SmsGateway;
  let appId: number;
  let otherAppId: number;
  let site: Record<string, string>;
  let adminId: number;
  let userId: number;
  let noMobileId: number;
  let folderId: number;
  let otherFolderId: number;
  let adminToken: string;

  beforeAll(async () => {
    sms = await new SmsGateway().start();
    t = await startTestApp({ SMS_WEBHOOK_URL: sms.url, SMS_WEBHOOK_TOKEN: 'gateway-token', AUTH_LOGIN_MAX_PER_ACCOUNT: '1000' });
    const seeded = await t.seed({
      site: siteFixture({ name: 'Links Shop' }),
      tables: {
        core_users: [
          { user_email: 'admin@example.test', password: 'Admin@1234', primary_role: 'admin' },
          { user_email: 'invitee@example.test', password: 'Invitee@123', primary_role: 'editor', mobile: MOBILE },
          { user_email: 'nomobile@example.test', password: 'NoMob@1234' },
        ],
        core_customers: [{ email: 'cust@example.test', password: 'Cust@1234' }],
        core_folders: [{ name: 'Members' }, { name: 'Staff' }],
      },
    });
    appId = seeded.appID;
    [adminId, userId, noMobileId] = seeded.ids.core_users;
    [folderId] = seeded.ids.core_folders;
    const other = await t.seed({ site: siteFixture(), tables: { core_folders: [{ name: 'Elsewhere' }] } });
    otherAppId = other.appID;
    otherFolderId = other.ids.core_folders[0];
    site = { 'site-id': String(appId) };
    adminToken = (await t.post('/auth/login', { email: 'admin@example.test', password: 'Admin@1234' }, site)).body.token.access_token;
  });
  afterAll(async () => {
    await t.close();
    await sms.stop();
  });

  const bearer = (token: string) => ({ ...site, authorization: `Bearer ${token}` });

  async function invite(user = userId, folder = folderId): Promise<string> {
    const res = await t.post('/auth/invite-link', { user, folder_id: folder }, bearer(adminToken));
    expect(res.status).toBe(200);
    return res.body.link;
  }

  describe('invite-link', () => {
    it('creates the user-to-folder relation expiring in 60 days, once per pair, and answers a link token', async () => {
      const link = await invite();
      expect(typeof link).toBe('string');
      await invite();
      const rows = await t.dataSource.query(
        `SELECT parent_table, parent_id, name, linked, master_id, expires FROM core_related WHERE app_id = $1 AND master_id = $2`,
        [appId, userId],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        parent_table: 'core_users',
        parent_id: userId,
        name: 'core_folders',
        linked: folderId,
        master_id: userId,
      });
      const days = (new Date(rows[0].expires).getTime() - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(59.99);
      expect(days).toBeLessThan(60.01);
    });

    it('refuses a user or folder of another app', async () => {
      const folder = await t.post('/auth/invite-link', { user: userId, folder_id: otherFolderId }, bearer(adminToken));
      expect(folder.status).toBe(400);
      expect(folder.body.errors[0].field).toBe('folder_id');
      const user = await t.post('/auth/invite-link', { user: 999999, folder_id: folderId }, bearer(adminToken));
      expect(user.body.errors[0].field).toBe('user');
      const missing = await t.post('/auth/invite-link', {}, bearer(adminToken));
      expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['folder_id', 'user']);
    });

    it('answers 401 without a valid access token: none, alg none, wrong secret, refresh token, expired', async () => {
      const claims = { sub: String(adminId), app: appId, tbl: 'core_users', role: 'admin', typ: 'access' };
      const refresh = (await t.post('/auth/login', { email: 'admin@example.test', password: 'Admin@1234' }, site)).body.token.refresh_token;
      const tokens = [
        jwt.sign(claims, '', { algorithm: 'none' }),
        jwt.sign(claims, 'another-secret-another-secret-another', { algorithm: 'HS256' }),
        jwt.sign(claims, TEST_ENV.JWT_ACCESS_SECRET, { algorithm: 'HS512' }),
        refresh,
        jwt.sign(claims, TEST_ENV.JWT_ACCESS_SECRET, { algorithm: 'HS256', expiresIn: -5 }),
      ];
      expect((await t.post('/auth/invite-link', { user: userId, folder_id: folderId }, site)).status).toBe(401);
      for (const token of tokens) {
        const res = await t.post('/auth/invite-link', { user: userId, folder_id: folderId }, bearer(token));
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ status: 'Failed', message: 'Unauthorized' });
      }
      // an access token of this app is refused by another app
      expect(
        (
          await t.post(
            '/auth/invite-link',
            { user: userId, folder_id: folderId },
            { 'site-id': String(otherAppId), authorization: `Bearer ${adminToken}` },
          )
        ).status,
      ).toBe(401);
    });

    it('answers 403 for customers, non-admins and an admin demoted since the token was issued', async () => {
      const customer = (
        await t.post('/auth/login', { email: 'cust@example.test', password: 'Cust@1234', authTable: 'core_customers' }, site)
      ).body.token.access_token;
      const editor = (await t.post('/auth/login', { email: 'invitee@example.test', password: 'Invitee@123' }, site)).body.token
        .access_token;
      for (const token of [customer, editor]) {
        const res = await t.post('/auth/invite-link', { user: userId, folder_id: folderId }, bearer(token));
        expect(res.status).toBe(403);
        expect(res.body.message).toBe('Insufficient permissions');
      }
      const forgedRole = jwt.sign(
        { sub: String(userId), app: appId, tbl: 'core_users', role: 'admin', typ: 'access' },
        TEST_ENV.JWT_ACCESS_SECRET,
        { algorithm: 'HS256', expiresIn: 60 },
      );
      expect((await t.post('/auth/invite-link', { user: userId, folder_id: folderId }, bearer(forgedRole))).status).toBe(403);
    });
  });

  describe('CustomerGuard and OptionalBearerGuard', () => {
    function execution(authorization?: string) {
      const request = { headers: authorization ? { authorization } : {}, ctx: new RequestContext('r', '127.0.0.1', false, null) };
      return {
        request,
        context: { switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({}) }) } as unknown as ExecutionContext,
      };
    }

    it('lets a customer token through and sets the principal; refuses an admin token and none', async () => {
      const customer = (
        await t.post('/auth/login', { email: 'cust@example.test', password: 'Cust@1234', authTable: 'core_customers' }, site)
      ).body.token.access_token;
      const ok = execution(`Bearer ${customer}`);
      await expect(t.get(CustomerGuard).canActivate(ok.context)).resolves.toBe(true);
      expect(ok.request.ctx.principal).toMatchObject({ authTable: 'core_customers', appId });
      await expect(t.get(CustomerGuard).canActivate(execution(`Bearer ${adminToken}`).context)).rejects.toMatchObject({ httpStatus: 401 });
      await expect(t.get(CustomerGuard).canActivate(execution().context)).rejects.toMatchObject({ httpStatus: 401 });
    });

    it('optional bearer: none is fine, an invalid one is refused', async () => {
      const none = execution();
      await expect(t.get(OptionalBearerGuard).canActivate(none.context)).resolves.toBe(true);
      expect(none.request.ctx.principal).toBeNull();
      await expect(t.get(OptionalBearerGuard).canActivate(execution('Bearer junk').context)).rejects.toMatchObject({ httpStatus: 401 });
    });
  });

  describe('getFolderLimits', () => {
    it('lists the folders of unexpired relations, for admins and for the user themselves', async () => {
      const body = { appID: appId, table: 'core_folders', userId };
      const res = await t.post('/auth/getFolderLimits', body, bearer(adminToken));
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([{ linked: folderId }]);
      const own = (await t.post('/auth/login', { email: 'invitee@example.test', password: 'Invitee@123' }, site)).body.token.access_token;
      expect((await t.post('/auth/getFolderLimits', body, bearer(own))).body.data).toEqual([{ linked: folderId }]);
      expect((await t.post('/auth/getFolderLimits', { ...body, userId: adminId }, bearer(own))).status).toBe(403);

      await t.dataSource.query(`UPDATE core_related SET expires = now() - interval '1 second' WHERE app_id = $1 AND master_id = $2`, [
        appId,
        userId,
      ]);
      expect((await t.post('/auth/getFolderLimits', body, bearer(adminToken))).body.data).toEqual([]);
      await invite();
    });

    it('validates table and appID and needs a token', async () => {
      const bad = await t.post('/auth/getFolderLimits', { appID: appId, table: 'core_users', userId }, bearer(adminToken));
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].field).toBe('table');
      expect(
        (await t.post('/auth/getFolderLimits', { appID: otherAppId, table: 'core_folders', userId }, bearer(adminToken))).body.errors[0]
          .field,
      ).toBe('appID');
      expect((await t.post('/auth/getFolderLimits', { appID: appId, table: 'core_folders', userId }, site)).status).toBe(401);
    });
  });

  describe('user-email', () => {
    it('answers email and role of the token user', async () => {
      const res = await t.post('/auth/user-email', { userId: await invite() }, site);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', email: 'invitee@example.test', role: 'editor' });
    });

    it('answers Token expired, and 400 for a token that is not ours', async () => {
      const expired = t.get(IdCipherService).seal('user-link', JSON.stringify({ u: userId, a: appId, e: Date.now() - 1 }));
      for (const [path, extra] of [
        ['/auth/user-email', {}],
        ['/auth/user-sms-code', {}],
        ['/auth/verify-sms-code', { code: '123456' }],
      ] as const) {
        const res = await t.post(path, { userId: expired, ...extra }, site);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ status: 'Failed', message: 'Token expired' });
      }
      for (const userId of ['garbage', t.get(IdCipherService).encryptId(appId, 5)]) {
        const bad = await t.post('/auth/user-email', { userId }, site);
        expect(bad.status).toBe(400);
        expect(bad.body.errors[0].field).toBe('userId');
      }
      // another app's context refuses the token
      expect((await t.post('/auth/user-email', { userId: await invite() }, { 'site-id': String(otherAppId) })).status).toBe(401);
    });
  });

  describe('SMS codes', () => {
    it('sends a 6-digit code through the gateway and stores only its hash; the code verifies once', async () => {
      const link = await invite();
      const res = await t.post('/auth/user-sms-code', { userId: link }, site);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'SMS code sent successfully' });
      const sent = sms.received[sms.received.length - 1];
      expect(sent.to).toBe(MOBILE);
      expect(sent.authorization).toBe('Bearer gateway-token');
      expect(sent.body).toContain('Links Shop');
      const code = sms.lastCodeTo(MOBILE);
      const [stored] = await t.dataSource.query(
        'SELECT code_hash FROM core_sms_codes WHERE app_id = $1 AND user_id = $2 ORDER BY id DESC LIMIT 1',
        [appId, userId],
      );
      expect(stored.code_hash).toMatch(/^\$2b\$/);
      expect(stored.code_hash).not.toContain(code);

      const wrong = code === '000000' ? '000001' : '000000';
      const bad = await t.post('/auth/verify-sms-code', { userId: link, code: wrong }, site);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Invalid or expired SMS code');
      const ok = await t.post('/auth/verify-sms-code', { userId: link, code }, site);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ status: 'Success', message: 'SMS code verified' });
      expect((await t.post('/auth/verify-sms-code', { userId: link, code }, site)).status).toBe(400);
    });

    it('allows at most 5 attempts, even concurrent ones', async () => {
      const link = await invite();
      await t.post('/auth/user-sms-code', { userId: link }, site);
      const code = sms.lastCodeTo(MOBILE);
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => t.post('/auth/verify-sms-code', { userId: link, code: wrong }, site)),
      );
      expect(answers.every((a) => a.status === 400)).toBe(true);
      const [row] = await t.dataSource.query(
        'SELECT attempts FROM core_sms_codes WHERE app_id = $1 AND user_id = $2 ORDER BY id DESC LIMIT 1',
        [appId, userId],
      );
      expect(row.attempts).toBe(5);
      const right = await t.post('/auth/verify-sms-code', { userId: link, code }, site);
      expect(right.status).toBe(400);
      expect(right.body.message).toBe('Too many attempts: request a new SMS code');
    });

    it('refuses an expired code and voids older codes when a new one is sent', async () => {
      const link = await invite();
      await t.post('/auth/user-sms-code', { userId: link }, site);
      const first = sms.lastCodeTo(MOBILE);
      await t.dataSource.query(
        `UPDATE core_sms_codes SET expires = now() - interval '1 second' WHERE app_id = $1 AND user_id = $2 AND used_at IS NULL`,
        [appId, userId],
      );
      expect((await t.post('/auth/verify-sms-code', { userId: link, code: first }, site)).body.message).toBe('Invalid or expired SMS code');
      await t.post('/auth/user-sms-code', { userId: link }, site);
      const second = sms.lastCodeTo(MOBILE);
      expect((await t.post('/auth/verify-sms-code', { userId: link, code: second }, site)).status).toBe(200);
    });

    it('answers Mobile number missing, validates the code, and limits sends per account', async () => {
      const noMobile = await t.post('/auth/invite-link', { user: noMobileId, folder_id: folderId }, bearer(adminToken));
      const res = await t.post('/auth/user-sms-code', { userId: noMobile.body.link }, site);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 'Failed', message: 'Mobile number missing' });

      const link = await invite();
      const badCode = await t.post('/auth/verify-sms-code', { userId: link, code: '12ab' }, site);
      expect(badCode.status).toBe(400);
      expect(badCode.body.errors).toEqual([{ field: 'code', message: 'code must be 6 digits' }]);

      // 4 sent above; the limit is 5 per hour per account and per number
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await t.post('/auth/user-sms-code', { userId: link }, site)).status);
      expect(statuses).toEqual([200, 429, 429]);
    });
  });
});
