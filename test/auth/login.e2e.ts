import { createHash, pbkdf2Sync } from 'node:crypto';
import { hash as bcryptHash } from 'bcrypt';
import jwt from 'jsonwebtoken';
import { SessionTokensService } from '../../src/auth/session/session-tokens.service';
import { siteFixture, startTestApp, TEST_ENV, TestApp } from '../support/test-app';

const ADMIN = { email: 'admin@example.test', password: 'Admin@1234' };

describe('POST /auth/login, /auth/sign-up, /auth/refresh-token, /auth/sign-out', () => {
  let t: TestApp;
  let appId: number;
  let otherAppId: number;
  let site: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ AUTH_LOGIN_MAX_PER_ACCOUNT: '1000' });
    appId = (
      await t.seed({
        site: siteFixture(),
        tables: {
          core_users: [
            {
              user_email: ADMIN.email,
              password: ADMIN.password,
              primary_role: 'admin',
              firstname: 'Ada',
              lastname: 'Admin',
              mobile: '+61400000001',
            },
            { user_email: 'nopass@example.test', primary_role: 'user' },
          ],
          core_customers: [{ email: 'cust@example.test', password: 'Cust@1234', firstname: 'Cy' }],
        },
      })
    ).appID;
    otherAppId = (
      await t.seed({ site: siteFixture(), tables: { core_users: [{ user_email: 'other@example.test', password: 'Other@1234' }] } })
    ).appID;
    site = { 'site-id': String(appId) };
  });
  afterAll(() => t.close());

  describe('login', () => {
    it('answers a token pair and the user for a correct password', async () => {
      const res = await t.post('/auth/login', ADMIN, site);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('Success');
      expect(res.body.token.user).toEqual({
        id: expect.any(Number),
        email: ADMIN.email,
        firstName: 'Ada',
        lastName: 'Admin',
        role: 'admin',
      });
      const principal = t.get(SessionTokensService).verify(res.body.token.access_token, 'access');
      expect(principal).toEqual({ userId: res.body.token.user.id, appId, authTable: 'core_users', role: 'admin' });
      expect(t.get(SessionTokensService).verify(res.body.token.refresh_token, 'refresh').userId).toBe(res.body.token.user.id);
      expect(JSON.stringify(res.body)).not.toContain('$2b$');
    });

    it('matches the email case-insensitively and takes appID from the body outside production', async () => {
      const res = await t.post('/auth/login', { email: 'ADMIN@example.test', password: ADMIN.password, appID: appId });
      expect(res.status).toBe(200);
    });

    it('refuses a wrong password and an unknown email alike', async () => {
      const wrong = await t.post('/auth/login', { ...ADMIN, password: 'Wrong@1234' }, site);
      const unknown = await t.post('/auth/login', { email: 'nobody@example.test', password: 'Wrong@1234' }, site);
      for (const res of [wrong, unknown]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ status: 'Failed', message: 'Invalid credentials' });
      }
    });

    it('answers Authentication failed for an account without a password hash', async () => {
      const res = await t.post('/auth/login', { email: 'nopass@example.test', password: 'Some@12345' }, site);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Authentication failed');
    });

    it('validates email, password and authTable', async () => {
      const bad = await t.post('/auth/login', { email: 'not-an-email', password: 'short' }, site);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Validation error');
      expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'password']);

      const table = await t.post('/auth/login', { ...ADMIN, authTable: 'core_sites; DROP TABLE core_users' }, site);
      expect(table.status).toBe(400);
      expect(table.body.errors).toEqual([
        { field: 'authTable', message: 'authTable must be one of core_users, core_customers, core_app_users' },
      ]);
    });

    it('issues a customer token from core_customers', async () => {
      const res = await t.post('/auth/login', { email: 'cust@example.test', password: 'Cust@1234', authTable: 'core_customers' }, site);
      expect(res.status).toBe(200);
      expect(t.get(SessionTokensService).verify(res.body.token.access_token, 'access')).toMatchObject({
        authTable: 'core_customers',
        role: 'customer',
        appId,
      });
      // the same email is not a core_users account
      expect((await t.post('/auth/login', { email: 'cust@example.test', password: 'Cust@1234' }, site)).status).toBe(401);
    });

    it("does not see another app's accounts", async () => {
      expect((await t.post('/auth/login', { email: 'other@example.test', password: 'Other@1234' }, site)).status).toBe(401);
      expect(
        (await t.post('/auth/login', { email: 'other@example.test', password: 'Other@1234' }, { 'site-id': String(otherAppId) })).status,
      ).toBe(200);
      expect((await t.post('/auth/login', ADMIN, { 'site-id': String(otherAppId) })).status).toBe(401);
    });

    it.each([
      ['md5', (p: string) => createHash('md5').update(p).digest('hex')],
      ['sha1', (p: string) => createHash('sha1').update(p).digest('hex')],
      ['sha256', (p: string) => createHash('sha256').update(p).digest('hex').toUpperCase()],
      ['django pbkdf2', (p: string) => `pbkdf2_sha256$1000$salty$${pbkdf2Sync(p, 'salty', 1000, 32, 'sha256').toString('base64')}`],
    ])('accepts a legacy %s hash once and upgrades it to bcrypt', async (name, make) => {
      const email = `legacy-${name.replace(/\W/g, '')}@example.test`;
      const password = 'Legacy@123';
      await t.dataSource.query('INSERT INTO core_users (app_id, user_email, password) VALUES ($1, $2, $3)', [appId, email, make(password)]);
      expect((await t.post('/auth/login', { email, password: 'Wrong@1234' }, site)).status).toBe(401);
      expect((await t.post('/auth/login', { email, password }, site)).status).toBe(200);
      const [{ password: stored }] = await t.dataSource.query('SELECT password FROM core_users WHERE app_id = $1 AND user_email = $2', [
        appId,
        email,
      ]);
      expect(stored).toMatch(/^\$2b\$10\$/);
      expect((await t.post('/auth/login', { email, password }, site)).status).toBe(200);
    });

    it('accepts a PHP $2y$ bcrypt hash and rewrites it as $2b$', async () => {
      const email = 'php@example.test';
      const stored = (await bcryptHash('Php@12345', 10)).replace(/^\$2b\$/, '$2y$');
      await t.dataSource.query('INSERT INTO core_users (app_id, user_email, password) VALUES ($1, $2, $3)', [appId, email, stored]);
      expect((await t.post('/auth/login', { email, password: 'Php@12345' }, site)).status).toBe(200);
      const [{ password }] = await t.dataSource.query('SELECT password FROM core_users WHERE app_id = $1 AND user_email = $2', [
        appId,
        email,
      ]);
      expect(password).toMatch(/^\$2b\$/);
    });
  });

  describe('sign-up', () => {
    it('creates the account with a bcrypt hash and its version-tracking record, and logs it in', async () => {
      const res = await t.post(
        '/auth/sign-up',
        { email: 'new@example.test', password: 'New@12345', firstname: 'Nu', lastname: 'User' },
        site,
      );
      expect(res.status).toBe(200);
      expect(res.body.token.user).toEqual({ id: expect.any(Number), email: 'new@example.test', firstName: 'Nu', lastName: 'User' });
      expect(t.get(SessionTokensService).verify(res.body.token.access_token, 'access')).toMatchObject({
        authTable: 'core_users',
        role: 'user',
        appId,
      });
      const [row] = await t.dataSource.query('SELECT password, primary_role FROM core_users WHERE id = $1 AND app_id = $2', [
        res.body.token.user.id,
        appId,
      ]);
      expect(row.password).toMatch(/^\$2b\$10\$/);
      expect(row.primary_role).toBe('user');
      const versions = await t.dataSource.query(
        `SELECT "Master_ID", "IsCurrent", "Title" FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_users' AND "Current_ID" = $2`,
        [appId, res.body.token.user.id],
      );
      expect(versions).toEqual(
        [{ Master_ID: res.body.token.user.id, IsCurrent: 1, Title: 'new@example.test' }].map((v) =>
          expect.objectContaining({ Master_ID: v.Master_ID, Title: v.Title }),
        ),
      );
      expect((await t.post('/auth/login', { email: 'new@example.test', password: 'New@12345' }, site)).status).toBe(200);
    });

    it('answers 409 for a taken email, whatever its case, but allows it in another app', async () => {
      const res = await t.post('/auth/sign-up', { email: 'NEW@example.test', password: 'New@12345' }, site);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ status: 'Failed', message: 'User with this email already exists' });
      expect(
        (await t.post('/auth/sign-up', { email: 'new@example.test', password: 'New@12345' }, { 'site-id': String(otherAppId) })).status,
      ).toBe(200);
    });

    it('creates one account for concurrent sign-ups of the same email', async () => {
      const body = { email: 'race@example.test', password: 'Race@1234' };
      const answers = await Promise.all([1, 2, 3, 4].map(() => t.post('/auth/sign-up', body, site)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
      const rows = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 AND user_email = 'race@example.test'`, [appId]);
      expect(rows).toHaveLength(1);
    });

    it('refuses a weak password with the five requirements', async () => {
      const res = await t.post('/auth/sign-up', { email: 'weak@example.test', password: 'weakpass' }, site);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        status: 'Failed',
        message: 'Password does not meet security requirements',
        requirements: { minLength: true, hasUpperCase: false, hasLowerCase: true, hasNumber: false, hasSpecialChar: false },
      });
    });

    it('validates email and name lengths', async () => {
      const res = await t.post('/auth/sign-up', { email: 'x', password: 'New@12345', firstname: 'a'.repeat(51) }, site);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Validation error');
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'firstname']);
    });

    it('signs up a customer into core_customers', async () => {
      const res = await t.post('/auth/sign-up', { email: 'c2@example.test', password: 'Cust@12345', authTable: 'core_customers' }, site);
      expect(res.status).toBe(200);
      expect(t.get(SessionTokensService).verify(res.body.token.access_token, 'access').authTable).toBe('core_customers');
    });
  });

  describe('refresh-token', () => {
    async function pair() {
      return (await t.post('/auth/login', ADMIN, site)).body.token as { access_token: string; refresh_token: string };
    }

    it('issues a new pair for a refresh token, also with an expired access token', async () => {
      const tokens = await pair();
      const principal = t.get(SessionTokensService).verify(tokens.access_token, 'access');
      const expiredAccess = jwt.sign(
        { sub: String(principal.userId), app: appId, tbl: 'core_users', role: 'admin', typ: 'access' },
        TEST_ENV.JWT_ACCESS_SECRET,
        {
          algorithm: 'HS256',
          expiresIn: -10,
        },
      );
      const res = await t.post(
        '/auth/refresh-token',
        { payload: { access_token: expiredAccess, refresh_token: tokens.refresh_token } },
        site,
      );
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.token).sort()).toEqual(['access_token', 'refresh_token']);
      expect(t.get(SessionTokensService).verify(res.body.token.access_token, 'access')).toEqual(principal);
    });

    it('answers Invalid token format for a missing or malformed payload', async () => {
      const good = await pair();
      for (const body of [
        {},
        { payload: 'x' },
        { payload: [good.access_token, good.refresh_token] },
        { payload: { access_token: 'a' } },
        { payload: { access_token: 1, refresh_token: 2 } },
        { payload: { access_token: 'not.a.jwt', refresh_token: good.refresh_token } },
        { payload: { access_token: good.access_token, refresh_token: 'garbage' } },
        { payload: { access_token: good.access_token, refresh_token: 'x'.repeat(10_000) } },
      ]) {
        const res = await t.post('/auth/refresh-token', body, site);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ status: 'Failed', message: 'Invalid token format' });
      }
    });

    it('answers 401 Refresh token has expired for an expired refresh token', async () => {
      const tokens = await pair();
      const userId = t.get(SessionTokensService).verify(tokens.access_token, 'access').userId;
      const expired = jwt.sign(
        { sub: String(userId), app: appId, tbl: 'core_users', role: 'admin', typ: 'refresh' },
        TEST_ENV.JWT_REFRESH_SECRET,
        { algorithm: 'HS256', expiresIn: -10 },
      );
      const res = await t.post('/auth/refresh-token', { payload: { access_token: tokens.access_token, refresh_token: expired } }, site);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Refresh token has expired');
    });

    it('refuses an access token as the refresh token, a forged one and alg none', async () => {
      const tokens = await pair();
      const userId = t.get(SessionTokensService).verify(tokens.access_token, 'access').userId;
      const claims = { sub: String(userId), app: appId, tbl: 'core_users', role: 'admin', typ: 'refresh' };
      const forged = jwt.sign(claims, 'wrong-secret-wrong-secret-wrong-secret', { algorithm: 'HS256' });
      const none = jwt.sign(claims, '', { algorithm: 'none' });
      for (const refresh_token of [tokens.access_token, forged, none]) {
        const res = await t.post('/auth/refresh-token', { payload: { access_token: tokens.access_token, refresh_token } }, site);
        expect(res.status).toBe(401);
        expect(res.body.status).toBe('Failed');
      }
    });

    it("refuses a pair of this app in another app's context", async () => {
      const tokens = await pair();
      const res = await t.post('/auth/refresh-token', { payload: tokens }, { 'site-id': String(otherAppId) });
      expect(res.status).toBe(401);
      expect((await t.post('/auth/refresh-token', { payload: tokens }, site)).status).toBe(200);
    });
  });

  it('sign-out always succeeds, with or without a token', async () => {
    const tokens = (await t.post('/auth/login', ADMIN, site)).body.token;
    for (const [body, headers] of [
      [{}, {}],
      [{ refreshToken: tokens.refresh_token }, { authorization: `Bearer ${tokens.access_token}` }],
      [{}, { authorization: 'Bearer junk' }],
    ] as const) {
      const res = await t.post('/auth/sign-out', body, headers);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Signed out successfully' });
    }
    // whatever else comes along: no body, a body that is not an object, a bad site-id or an unknown app
    for (const [body, headers] of [
      [undefined, { 'site-id': 'abc' }],
      ['"text"', { 'site-id': '999999' }],
      ['[1,2]', { authorization: `Bearer ${tokens.refresh_token}` }],
      ['{"refreshToken":{"a":1}}', { appKey: 'junk' }],
    ] as const) {
      const res = await t.request('POST', '/auth/sign-out', body, headers);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Signed out successfully' });
    }
  });
});
