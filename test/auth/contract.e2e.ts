import jwt from 'jsonwebtoken';
import { siteFixture, startTestApp, TEST_ENV, TestApp } from '../support/test-app';
import { linkIn, SmtpPeer } from './support/smtp-peer';

/**
 * Issue 9: the tenant comes from the credential when the request names none; validation comes before the
 * app context; unknown apps are 404 on every route; bounds every DTO field shares (ids, NUL, null, password
 * bytes); JWT claims and password changes.
 */
describe('app context from credentials, validation first, shared field bounds, token claims', () => {
  let t: TestApp;
  let smtp: SmtpPeer;
  let appId: number;
  let otherAppId: number;
  let adminId: number;
  let folderId: number;
  let adminTokens: { access_token: string; refresh_token: string };
  let otherAdminTokens: { access_token: string; refresh_token: string };

  const login = async (appID: number, email: string, password: string, authTable?: string) => {
    const res = await t.post('/auth/login', { email, password, ...(authTable ? { authTable } : {}) }, { 'site-id': String(appID) });
    expect(res.status).toBe(200);
    return res.body.token as { access_token: string; refresh_token: string };
  };
  const bearer = (token: string, headers: Record<string, string> = {}) => ({ ...headers, authorization: `Bearer ${token}` });
  const sign = (
    claims: Record<string, unknown>,
    secret = TEST_ENV.JWT_ACCESS_SECRET,
    options: jwt.SignOptions = { algorithm: 'HS256', expiresIn: 600 },
  ) => jwt.sign(claims, secret, options);

  beforeAll(async () => {
    smtp = await new SmtpPeer().start();
    t = await startTestApp({ SMTP_URL: smtp.url, AUTH_LOGIN_MAX_PER_ACCOUNT: '1000' });
    const seeded = await t.seed({
      site: siteFixture(),
      tables: {
        core_users: [{ user_email: 'admin@example.test', password: 'Admin@1234', primary_role: 'admin' }],
        core_customers: [{ email: 'cust@example.test', password: 'Cust@1234' }],
        core_app_users: [{ email: 'appuser@example.test', password: 'AppU@1234' }],
        core_folders: [{ name: 'Members' }],
      },
    });
    appId = seeded.appID;
    [adminId] = seeded.ids.core_users;
    [folderId] = seeded.ids.core_folders;
    otherAppId = (
      await t.seed({
        site: siteFixture(),
        tables: { core_users: [{ user_email: 'admin@example.test', password: 'Other@1234', primary_role: 'admin' }] },
      })
    ).appID;
    adminTokens = await login(appId, 'admin@example.test', 'Admin@1234');
    otherAdminTokens = await login(otherAppId, 'admin@example.test', 'Other@1234');
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  describe('the tenant comes from the credential', () => {
    it('invite-link without site-id: 401 without a bearer, 200 with an admin bearer (the token names the app)', async () => {
      const none = await t.post('/auth/invite-link', { user: adminId, folder_id: folderId });
      expect(none.status).toBe(401);
      expect(none.body).toEqual({ status: 'Failed', message: 'Unauthorized' });
      const ok = await t.post('/auth/invite-link', { user: adminId, folder_id: folderId }, bearer(adminTokens.access_token));
      expect(ok.status).toBe(200);
      expect(typeof ok.body.link).toBe('string');
    });

    it('every broken token is 401', async () => {
      const claims = { sub: String(adminId), app: appId, tbl: 'core_users', role: 'admin', typ: 'access' };
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      const broken = {
        'alg none': `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url')}.`,
        'wrong secret': sign(claims, 'not-the-secret-0123456789abcdef0123456789'),
        'refresh token as access': adminTokens.refresh_token,
        'access claims signed with the refresh secret': sign(claims, TEST_ENV.JWT_REFRESH_SECRET),
        expired: sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 }, TEST_ENV.JWT_ACCESS_SECRET, { algorithm: 'HS256' }),
        garbage: 'not.a.jwt',
        'no exp': sign(claims, TEST_ENV.JWT_ACCESS_SECRET, { algorithm: 'HS256' }),
        'sub as an array': sign({ ...claims, sub: [String(adminId)] }),
        'sub as a boolean': sign({ ...claims, sub: true }),
        'app as a string': sign({ ...claims, app: String(appId) }),
      };
      for (const [name, token] of Object.entries(broken)) {
        const res = await t.post('/auth/invite-link', { user: adminId, folder_id: folderId }, bearer(token));
        expect([name, res.status, res.body]).toEqual([name, 401, { status: 'Failed', message: 'Unauthorized' }]);
      }
      // the well-formed control is accepted
      expect((await t.post('/auth/invite-link', { user: adminId, folder_id: folderId }, bearer(sign(claims)))).status).toBe(200);
    });

    it("a header of one app with a credential of another is 401, never the other app's data", async () => {
      const res = await t.post(
        '/auth/getFolderLimits',
        { appID: otherAppId, table: 'core_folders', userId: adminId },
        bearer(adminTokens.access_token, { 'site-id': String(otherAppId) }),
      );
      expect(res.status).toBe(401);
      const invite = await t.post(
        '/auth/invite-link',
        { user: adminId, folder_id: folderId },
        bearer(otherAdminTokens.access_token, { 'site-id': String(appId) }),
      );
      expect(invite.status).toBe(401);
    });

    it('two service instances in one process each verify bearers with their own secret (passport keeps one registry per process)', async () => {
      const other = await startTestApp({ JWT_ACCESS_SECRET: 'another-access-secret-0123456789abcdef0123' }, t.database);
      const limits = { appID: appId, table: 'core_folders', userId: adminId };
      try {
        const otherTokens = (
          await other.post('/auth/login', { email: 'admin@example.test', password: 'Admin@1234' }, { 'site-id': String(appId) })
        ).body.token;
        expect((await other.post('/auth/getFolderLimits', limits, bearer(otherTokens.access_token))).status).toBe(200);
        expect((await other.post('/auth/getFolderLimits', limits, bearer(adminTokens.access_token))).status).toBe(401);
        expect((await t.post('/auth/getFolderLimits', limits, bearer(otherTokens.access_token))).status).toBe(401);
      } finally {
        await other.close();
      }
      expect((await t.post('/auth/getFolderLimits', limits, bearer(adminTokens.access_token))).status).toBe(200);
    });

    it.each([
      ['/customers', 'core_customers', 'cust@example.test', 'Cust@1234'],
      ['/user/app', 'core_app_users', 'appuser@example.test', 'AppU@1234'],
    ])(
      '%s/reset-password works without site-id (the reset token names the app), 401 under another app',
      async (base, table, email, password) => {
        const before = smtp.received.length;
        const requested = await t.post(`${base}/request-reset`, { email, authTable: table }, { 'site-id': String(appId) });
        expect(requested.status).toBe(200);
        const token = linkIn((await smtp.mailTo(email, before)).mail).searchParams.get('token')!;
        const body = { password: 'Fresh@1234', confirmPassword: 'Fresh@1234', token, reset_password_token: token };
        const crossApp = await t.post(`${base}/reset-password`, body, { 'site-id': String(otherAppId) });
        expect(crossApp.status).toBe(401);
        const reset = await t.post(`${base}/reset-password`, body);
        expect(reset.status).toBe(200);
        expect(reset.body).toMatchObject({ status: 'Success', message: 'Password reset successfully' });
        expect(
          (await t.post(`${base}/login`, { email, password: 'Fresh@1234', authTable: table }, { 'site-id': String(appId) })).status,
        ).toBe(200);
        expect((await t.post(`${base}/login`, { email, password, authTable: table }, { 'site-id': String(appId) })).status).toBe(401);
      },
    );
  });

  describe('validation before context', () => {
    it('an invalid body is a Validation error naming each field, with or without an app context', async () => {
      for (const headers of [{}, { 'site-id': String(appId) }] as Record<string, string>[]) {
        const res = await t.post('/auth/login', {}, headers);
        expect(res.status).toBe(400);
        expect(res.body.message).toBe('Validation error');
        expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'password']);
      }
      const noAppId = await t.post('/auth/request-pass', { email: 'admin@example.test' });
      expect(noAppId.status).toBe(400);
      expect(noAppId.body.errors).toEqual([{ field: 'appID', message: 'appID is required' }]);
    });

    it('Missing app context is for otherwise valid requests', async () => {
      const res = await t.post('/auth/login', { email: 'admin@example.test', password: 'Admin@1234' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 'Failed', message: 'Missing app context: send the site-id header (or appID outside production)' });
    });
  });

  describe('unknown apps', () => {
    it('an unknown site-id is 404 App not found, also on routes that work without an app (refresh-token)', async () => {
      const refresh = await t.post('/auth/refresh-token', { payload: adminTokens }, { 'site-id': '999999' });
      expect(refresh.status).toBe(404);
      expect(refresh.body).toEqual({ status: 'Failed', message: 'App not found' });
      for (const route of ['/auth/login', '/auth/user-email', '/auth/reset-pass', '/customers/reset-password', '/getApp']) {
        expect([route, (await t.post(route, {}, { 'site-id': '999999' })).status]).toEqual([route, 404]);
      }
    });

    it("requests naming unknown apps count against the client address's rate limit", async () => {
      const limited = await startTestApp({ RATE_LIMIT_MAX_REQUESTS: '5' }, t.database);
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 7; i++) statuses.push((await limited.post('/getApp', {}, { 'site-id': String(900000 + i) })).status);
        expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
      } finally {
        await limited.close();
      }
    });
  });

  describe('bounds shared by every DTO field', () => {
    it('integers beyond PostgreSQL integer are 400 naming the field', async () => {
      const auth = bearer(adminTokens.access_token);
      const cases: [string, Record<string, unknown>, string][] = [
        ['/auth/invite-link', { user: 99999999999, folder_id: 1 }, 'user'],
        ['/auth/invite-link', { user: adminId, folder_id: 2147483648 }, 'folder_id'],
        ['/auth/getFolderLimits', { appID: appId, table: 'core_folders', userId: 2147483648 }, 'userId'],
      ];
      for (const [route, body, field] of cases) {
        const res = await t.post(route, body, auth);
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([{ field, message: `${field} must be at most 2147483647` }]);
      }
    });

    it.each(['/auth/sign-up', '/customers/signup', '/user/app/signup'])(
      '%s: a NUL in any text field is 400 naming every such field',
      async (route) => {
        const body: Record<string, unknown> = {
          email: `nul${route.length}@example.test`,
          password: 'Nul@12345',
          firstname: 'a\u0000b',
          lastname: '\u0000',
        };
        if (route !== '/auth/sign-up') body.displayname = 'x\u0000';
        const res = await t.post(route, body, { 'site-id': String(appId) });
        expect(res.status).toBe(400);
        const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
        expect(fields).toEqual(route === '/auth/sign-up' ? ['firstname', 'lastname'] : ['displayname', 'firstname', 'lastname']);
        for (const error of res.body.errors) expect(error.message).toMatch(/must not contain NUL characters/);
      },
    );

    it('null for an optional field is treated as absent', async () => {
      const site = { 'site-id': String(appId) };
      const pass = await t.post('/auth/request-pass', { email: 'admin@example.test', appID: appId, url: null, authTable: null }, site);
      expect(pass.status).toBe(200);
      const customer = await t.post('/customers/request-reset', { email: 'cust@example.test', url: null }, site);
      expect(customer.status).toBe(200);
    });

    it('passwords longer than 72 bytes in UTF-8 are 400 naming the field (bcrypt would ignore the rest)', async () => {
      const long = `Aa1@${'é'.repeat(35)}`; // 39 characters, 74 bytes
      const site = { 'site-id': String(appId) };
      const cases: [string, Record<string, unknown>, string][] = [
        ['/auth/sign-up', { email: 'long@example.test', password: long }, 'password'],
        ['/auth/login', { email: 'admin@example.test', password: long }, 'password'],
        ['/customers/signup', { email: 'long@example.test', password: long }, 'password'],
        ['/auth/reset-pass', { password: long, confirmPassword: long, reset_password_token: 'x' }, 'password'],
      ];
      for (const [route, body, field] of cases) {
        const res = await t.post(route, body, site);
        expect([route, res.status]).toEqual([route, 400]);
        expect(res.body.errors).toContainEqual({ field, message: `${field} must be at most 72 bytes in UTF-8` });
      }
      // 72 bytes exactly is fine
      const exact = `Aa1@${'é'.repeat(34)}`;
      expect((await t.post('/auth/sign-up', { email: 'exact@example.test', password: exact }, site)).status).toBe(200);
    });
  });

  it('an access token issued before a password reset is refused', async () => {
    const site = { 'site-id': String(appId) };
    const user = { email: 'changer@example.test', password: 'Before@123' };
    expect((await t.post('/auth/sign-up', user, site)).status).toBe(200);
    const tokens = await login(appId, user.email, user.password);
    const limits = { appID: appId, table: 'core_folders', userId: 1 };
    const me = (await t.dataSource.query('SELECT id FROM core_users WHERE user_email = $1 AND app_id = $2', [user.email, appId]))[0].id;
    limits.userId = me;
    expect((await t.post('/auth/getFolderLimits', limits, bearer(tokens.access_token, site))).status).toBe(200);

    const before = smtp.received.length;
    expect((await t.post('/auth/request-pass', { email: user.email, appID: appId }, site)).status).toBe(200);
    const token = linkIn((await smtp.mailTo(user.email, before)).mail).searchParams.get('token')!;
    expect(
      (await t.post('/auth/reset-pass', { password: 'After@1234', confirmPassword: 'After@1234', reset_password_token: token })).status,
    ).toBe(200);

    expect((await t.post('/auth/getFolderLimits', limits, bearer(tokens.access_token, site))).status).toBe(401);
    const fresh = await login(appId, user.email, 'After@1234');
    expect((await t.post('/auth/getFolderLimits', limits, bearer(fresh.access_token, site))).status).toBe(200);
  });
});
