import { IdCipherService } from '../../src/common/id-cipher.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { linkIn, SmtpPeer } from './support/smtp-peer';

describe('customer and app-user routes', () => {
  let t: TestApp;
  let smtp: SmtpPeer;
  let appId: number;
  let otherAppId: number;
  let site: Record<string, string>;

  beforeAll(async () => {
    smtp = await new SmtpPeer().start();
    t = await startTestApp({ SMTP_URL: smtp.url, AUTH_LOGIN_MAX_PER_ACCOUNT: '1000' });
    // A column the tenant added to its account table: extraFields may name it (it is not secret).
    await t.dataSource.query(`ALTER TABLE core_customers ADD COLUMN loyalty_tier varchar(20) DEFAULT 'gold'`);
    appId = (
      await t.seed({
        site: siteFixture(),
        tables: { core_customers: [{ email: 'cust@example.test', password: 'Cust@1234', firstname: 'Cy', mobile: '+61400000009' }] },
      })
    ).appID;
    otherAppId = (await t.seed({ site: siteFixture() })).appID;
    site = { 'site-id': String(appId) };
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  describe('/customers/signup', () => {
    it('creates a customer and answers its profile with the encrypted id', async () => {
      const res = await t.post('/customers/signup', {
        email: 'ann@example.test',
        password: 'Ann@12345',
        firstname: 'Ann',
        lastname: 'Lee',
        displayname: 'annie',
        appID: appId,
      });
      expect(res.status).toBe(200);
      const { datetime, ...body } = res.body;
      expect(body).toEqual({
        status: 'Success',
        _id: expect.any(String),
        email: 'ann@example.test',
        emailverified: false,
        firstname: 'Ann',
        lastname: 'Lee',
        displayname: 'annie',
        photourl: null,
        description: null,
      });
      const id = t.get(IdCipherService).decryptId(appId, res.body._id)!;
      const [row] = await t.dataSource.query('SELECT password FROM core_customers WHERE id = $1 AND app_id = $2', [id, appId]);
      expect(row.password).toMatch(/^\$2b\$/);
      const versions = await t.dataSource.query(
        `SELECT 1 FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_customers' AND "Current_ID" = $2`,
        [appId, id],
      );
      expect(versions).toHaveLength(1);
    });

    it('answers 409 for a taken email and applies the strength rule', async () => {
      expect((await t.post('/customers/signup', { email: 'ANN@example.test', password: 'Ann@12345' }, site)).status).toBe(409);
      const weak = await t.post('/customers/signup', { email: 'weak@example.test', password: 'Password1' }, site);
      expect(weak.status).toBe(400);
      expect(weak.body.requirements).toEqual({
        minLength: true,
        hasUpperCase: true,
        hasLowerCase: true,
        hasNumber: true,
        hasSpecialChar: false,
      });
      const table = await t.post('/customers/signup', { email: 'x@example.test', password: 'Ann@12345', authTable: 'core_users' }, site);
      expect(table.status).toBe(400);
      expect(table.body.errors[0].field).toBe('authTable');
    });
  });

  describe('/customers/login', () => {
    it('answers the profile, no token', async () => {
      const res = await t.post('/customers/login', { email: 'cust@example.test', password: 'Cust@1234' }, site);
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Login successful');
      expect(Object.keys(res.body.data).sort()).toEqual([
        '_id',
        'description',
        'displayname',
        'email',
        'emailverified',
        'firstname',
        'lastname',
        'photourl',
      ]);
      expect(res.body.token).toBeUndefined();
      expect(JSON.stringify(res.body)).not.toContain('$2b$');
    });

    it('adds any column of the account table that is not secret, and refuses secret and unknown ones', async () => {
      const res = await t.post(
        '/customers/login',
        { email: 'cust@example.test', password: 'Cust@1234', extraFields: 'mobile, created, loyalty_tier, app_id' },
        site,
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ mobile: '+61400000009', loyalty_tier: 'gold', app_id: appId });
      expect(res.body.data.created).toBeDefined();
      const refused = {
        password: 'password',
        'mobile,p256dh': 'p256dh',
        pushsubscription: 'pushsubscription',
        auth: 'auth',
        password_changed: 'password_changed',
        no_such_column: 'no_such_column',
        'id" FROM core_users --': 'id" FROM core_users --',
      };
      for (const [extraFields, name] of Object.entries(refused)) {
        const bad = await t.post('/customers/login', { email: 'cust@example.test', password: 'Cust@1234', extraFields }, site);
        expect(bad.status).toBe(400);
        expect(bad.body).toEqual({
          status: 'Failed',
          message: 'Validation error',
          errors: [
            {
              field: 'extraFields',
              message: `extraFields may only name readable columns of core_customers; "${name}" is unknown or secret`,
            },
          ],
        });
      }
    });

    it('answers 401 Invalid credentials with empty data', async () => {
      for (const body of [
        { email: 'cust@example.test', password: 'Wrong@1234' },
        { email: 'nobody@example.test', password: 'Wrong@1234' },
      ]) {
        const res = await t.post('/customers/login', body, site);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ status: 'Failed', message: 'Invalid credentials', data: {} });
      }
      expect(
        (await t.post('/customers/login', { email: 'cust@example.test', password: 'Cust@1234' }, { 'site-id': String(otherAppId) })).status,
      ).toBe(401);
    });
  });

  describe('/user/app/*', () => {
    it('signs up into core_app_users when asked, and logs in there only', async () => {
      const res = await t.post(
        '/user/app/signup',
        { email: 'appuser@example.test', password: 'App@12345', authTable: 'core_app_users' },
        site,
      );
      expect(res.status).toBe(200);
      const id = t.get(IdCipherService).decryptId(appId, res.body._id);
      expect(await t.dataSource.query('SELECT id FROM core_app_users WHERE app_id = $1 AND id = $2', [appId, id])).toHaveLength(1);
      expect((await t.post('/user/app/login', { email: 'appuser@example.test', password: 'App@12345' }, site)).status).toBe(401);
      const ok = await t.post(
        '/user/app/login',
        { email: 'appuser@example.test', password: 'App@12345', authTable: 'core_app_users' },
        site,
      );
      expect(ok.status).toBe(200);
      expect(ok.body.data._id).toBe(res.body._id);
    });

    it('signs up into core_customers by default', async () => {
      const res = await t.post('/user/app/signup', { email: 'default@example.test', password: 'App@12345' }, site);
      expect(res.status).toBe(200);
      expect((await t.post('/customers/login', { email: 'default@example.test', password: 'App@12345' }, site)).status).toBe(200);
    });

    it('resets an app-user password through a mailed link', async () => {
      const before = smtp.received.length;
      const req = await t.post('/user/app/request-reset', { email: 'appuser@example.test', authTable: 'core_app_users' }, site);
      expect(req.status).toBe(200);
      const token = linkIn((await smtp.mailTo('appuser@example.test', before)).mail).searchParams.get('token')!;
      const res = await t.post(
        '/user/app/reset-password',
        { password: 'Next@12345', confirmPassword: 'Next@12345', token, reset_password_token: token, authTable: 'core_app_users' },
        site,
      );
      expect(res.status).toBe(200);
      expect(
        (await t.post('/user/app/login', { email: 'appuser@example.test', password: 'Next@12345', authTable: 'core_app_users' }, site))
          .status,
      ).toBe(200);
    });

    it("resets with the mailed token alone: without authTable the token's own table is used", async () => {
      await t.post('/user/app/signup', { email: 'plain-reset@example.test', password: 'App@12345', authTable: 'core_app_users' }, site);
      const before = smtp.received.length;
      await t.post('/user/app/request-reset', { email: 'plain-reset@example.test', authTable: 'core_app_users' }, site);
      const token = linkIn((await smtp.mailTo('plain-reset@example.test', before)).mail).searchParams.get('token')!;
      const body = { password: 'Next@12345', confirmPassword: 'Next@12345', token, reset_password_token: token };
      // an authTable that is sent must be the token's
      expect((await t.post('/user/app/reset-password', { ...body, authTable: 'core_customers' }, site)).body.message).toBe(
        'Reset password token has expired or is invalid',
      );
      expect((await t.post('/user/app/reset-password', body, site)).status).toBe(200);
      expect(
        (await t.post('/user/app/login', { email: 'plain-reset@example.test', password: 'Next@12345', authTable: 'core_app_users' }, site))
          .status,
      ).toBe(200);
    });

    it('refuses a core_users reset token on the customer routes', async () => {
      const staff = await t.seed({
        site: siteFixture(),
        tables: { core_users: [{ user_email: 'staff@example.test', password: 'Staff@1234' }] },
      });
      const staffSite = { 'site-id': String(staff.appID) };
      const before = smtp.received.length;
      await t.post('/auth/request-pass', { email: 'staff@example.test', appID: staff.appID }, staffSite);
      const token = linkIn((await smtp.mailTo('staff@example.test', before)).mail).searchParams.get('token')!;
      const body = { password: 'Next@12345', confirmPassword: 'Next@12345', token, reset_password_token: token };
      for (const path of ['/customers/reset-password', '/user/app/reset-password']) {
        const res = await t.post(path, body, staffSite);
        expect(res.status).toBe(400);
        expect(res.body.message).toBe('Reset password token has expired or is invalid');
      }
      expect(
        (
          await t.post(
            '/auth/reset-pass',
            { password: 'Next@12345', confirmPassword: 'Next@12345', reset_password_token: token },
            staffSite,
          )
        ).status,
      ).toBe(200);
    });

    it('creates one account for concurrent sign-ups of one email: one 200, the others 409, never a 500', async () => {
      for (const [path, authTable] of [
        ['/customers/signup', 'core_customers'],
        ['/user/app/signup', 'core_app_users'],
      ]) {
        const answers = await Promise.all(
          [1, 2, 3, 4, 5].map(() => t.post(path, { email: 'Race@Example.test', password: 'Race@12345', authTable }, site)),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
        for (const a of answers.filter((x) => x.status === 409))
          expect(a.body).toEqual({ status: 'Failed', message: 'User with this email already exists' });
        const rows = await t.dataSource.query(`SELECT id FROM ${authTable} WHERE app_id = $1 AND lower(email) = 'race@example.test'`, [
          appId,
        ]);
        expect(rows).toHaveLength(1);
      }
    });
  });

  describe('/customers/request-reset and /customers/reset-password', () => {
    it('answers No user found for an unknown email', async () => {
      const res = await t.post('/customers/request-reset', { email: 'ghost@example.test' }, site);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 'Failed', message: 'No user found' });
    });

    it('mails a link with the token appended to url, usable once', async () => {
      const before = smtp.received.length;
      const fixture = await t.dataSource.query('SELECT domain FROM core_sites WHERE id = $1', [appId]);
      const url = `https://${fixture[0].domain}/account/reset?t=`;
      const req = await t.post('/customers/request-reset', { email: 'cust@example.test', url, appID: appId }, site);
      expect(req.status).toBe(200);
      expect(req.body.message).toBe('Email with reset password instructions was sent to cust@example.test.');
      const link = linkIn((await smtp.mailTo('cust@example.test', before)).mail);
      expect(link.toString().startsWith(url)).toBe(true);
      const token = link.searchParams.get('t')!;

      const unequal = await t.post(
        '/customers/reset-password',
        { password: 'Cust@5678', confirmPassword: 'Cust@5678', token, reset_password_token: token + 'x' },
        site,
      );
      expect(unequal.status).toBe(400);
      expect(unequal.body.errors).toEqual([{ field: 'token', message: 'token and reset_password_token must be equal' }]);

      const body = { password: 'Cust@5678', confirmPassword: 'Cust@5678', token, reset_password_token: token };
      const res = await t.post('/customers/reset-password', body, site);
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Password reset successfully');
      expect((await t.post('/customers/login', { email: 'cust@example.test', password: 'Cust@5678' }, site)).status).toBe(200);
      const again = await t.post('/customers/reset-password', body, site);
      expect(again.status).toBe(400);
      expect(again.body.message).toBe('Reset password token has expired or is invalid');
    });
  });
});
