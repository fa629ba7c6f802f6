import { IdCipherService } from '../../src/common/id-cipher.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { linkIn, SmtpPeer } from './support/smtp-peer';

const USER = { email: 'reset@example.test', password: 'Old@12345' };

describe('password reset links: /auth/request-pass, /auth/reset-pass', () => {
  let t: TestApp;
  let smtp: SmtpPeer;
  let appId: number;
  let otherAppId: number;
  let domain: string;
  let site: Record<string, string>;

  beforeAll(async () => {
    smtp = await new SmtpPeer().start();
    t = await startTestApp({ SMTP_URL: smtp.url, AUTH_LOGIN_MAX_PER_ACCOUNT: '1000' });
    const fixture = siteFixture();
    domain = fixture.domain;
    appId = (await t.seed({ site: fixture, tables: { core_users: [{ user_email: USER.email, password: USER.password }] } })).appID;
    otherAppId = (await t.seed({ site: siteFixture(), tables: { core_users: [{ user_email: USER.email, password: 'Other@1234' }] } }))
      .appID;
    site = { 'site-id': String(appId) };
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  async function requestLink(email = USER.email, extra: Record<string, unknown> = {}, headers = site): Promise<URL> {
    const before = smtp.received.length;
    const res = await t.post('/auth/request-pass', { email, appID: Number(headers['site-id']), ...extra }, headers);
    expect(res.status).toBe(200);
    return linkIn((await smtp.mailTo(email, before)).mail);
  }

  it('mails a link on the app domain, usable once, refused the second time', async () => {
    const before = smtp.received.length;
    const res = await t.post(
      '/auth/request-pass',
      { email: USER.email, appID: appId },
      { ...site, 'x-forwarded-host': 'evil.example.org' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'Success', message: `Email with reset password instructions was sent to ${USER.email}.` });
    const received = await smtp.mailTo(USER.email, before);
    expect(received.mail.from?.value[0].address).toBe(`shop${appId}@example.test`);
    expect(received.mail.html).toContain('reset');
    const link = linkIn(received.mail);
    expect(link.origin).toBe(`https://${domain}`);
    expect(link.pathname).toBe('/reset-password');
    const token = link.searchParams.get('token')!;
    expect(token).toBeTruthy();

    const login = (await t.post('/auth/login', USER, site)).body.token;
    const reset = await t.post(
      '/auth/reset-pass',
      { password: 'New@12345', confirmPassword: 'New@12345', reset_password_token: token },
      site,
    );
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ status: 'Success', message: 'Password reset successfully' });
    expect((await t.post('/auth/login', USER, site)).status).toBe(401);
    expect((await t.post('/auth/login', { email: USER.email, password: 'New@12345' }, site)).status).toBe(200);

    const again = await t.post(
      '/auth/reset-pass',
      { password: 'Other@12345', confirmPassword: 'Other@12345', reset_password_token: token },
      site,
    );
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ status: 'Failed', message: 'Reset password token has expired or is invalid' });
    // a refresh token issued before the reset no longer works
    const refreshed = await t.post('/auth/refresh-token', { payload: login });
    expect(refreshed.status).toBe(401);
    USER.password = 'New@12345';
  });

  it('answers the same for an unknown email and sends nothing', async () => {
    const before = smtp.received.length;
    const res = await t.post('/auth/request-pass', { email: 'ghost@example.test', appID: appId }, site);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Email with reset password instructions was sent to ghost@example.test.');
    // A reset mail is queued before the answer: none is.
    const queued = 'SELECT count(*)::int AS n FROM core_notification_log WHERE email = $1';
    expect(await t.dataSource.query(queued, ['ghost@example.test'])).toEqual([{ n: 0 }]);
    // A mail queued after it (another app's account, not to use up this one's requests) has arrived: one before it would have too.
    await requestLink(USER.email, {}, { 'site-id': String(otherAppId) });
    expect(smtp.received.slice(before).map((m) => m.envelopeTo)).toEqual([[USER.email]]);
  });

  it('builds the link from url on the app domain and refuses other sites', async () => {
    const link = await requestLink(USER.email, { url: `https://account.${domain}/pw?lang=en` });
    expect(link.host).toBe(`account.${domain}`);
    expect(link.searchParams.get('lang')).toBe('en');
    expect(link.searchParams.get('token')).toBeTruthy();
    const foreign = await t.post('/auth/request-pass', { email: USER.email, appID: appId, url: 'https://evil.example.org/steal' }, site);
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors).toEqual([{ field: 'url', message: `url must be on the app's domain (${domain})` }]);
  });

  it('refuses a url with user info, and loopback addresses in production', async () => {
    const userinfo = [`https://evil.example.org%2F@${domain}/reset`, `https://user:pw@${domain}/reset`];
    for (const url of userinfo) {
      const res = await t.post('/auth/request-pass', { email: 'someone@example.test', appID: appId, url }, site);
      expect([url, res.status, res.body.errors]).toEqual([
        url,
        400,
        [{ field: 'url', message: 'url must not contain user info (user:password@)' }],
      ]);
    }
    const loopback = [
      'http://localhost:3000/reset',
      'http://127.0.0.2:8080/reset',
      'http://[::1]:3000/reset',
      'http://app.localhost/reset',
    ];
    for (const [i, url] of loopback.entries()) {
      const res = await t.post('/auth/request-pass', { email: `loop${i}@example.test`, appID: appId, url }, site);
      expect([url, res.status]).toEqual([url, 200]);
    }
    const production = await startTestApp({ NODE_ENV: 'production', SMTP_URL: smtp.url }, t.database);
    try {
      for (const [i, url] of loopback.entries()) {
        const res = await production.post('/api/v2/auth/request-pass', { email: `prod${i}@example.test`, appID: appId, url }, site);
        expect([url, res.status, res.body.errors]).toEqual([
          url,
          400,
          [{ field: 'url', message: `url must be on the app's domain (${domain})` }],
        ]);
      }
    } finally {
      await production.close();
    }
  });

  it('validates the request and the new password', async () => {
    const missing = await t.post('/auth/request-pass', {}, site);
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['appID', 'email']);

    const token = (await requestLink()).searchParams.get('token')!;
    const mismatch = await t.post(
      '/auth/reset-pass',
      { password: 'New@12345', confirmPassword: 'New@12346', reset_password_token: token },
      site,
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toEqual({
      status: 'Failed',
      message: 'Validation error',
      errors: [{ field: 'confirmPassword', message: 'Passwords do not match' }],
    });

    const weak = await t.post(
      '/auth/reset-pass',
      { password: 'alllowercase', confirmPassword: 'alllowercase', reset_password_token: token },
      site,
    );
    expect(weak.status).toBe(400);
    expect(weak.body.message).toBe('Password does not meet security requirements');
    expect(weak.body.requirements).toEqual({
      minLength: true,
      hasUpperCase: false,
      hasLowerCase: true,
      hasNumber: false,
      hasSpecialChar: false,
    });

    for (const reset_password_token of ['garbage', token.slice(0, -4) + 'AAAA']) {
      const bad = await t.post('/auth/reset-pass', { password: 'New@12345', confirmPassword: 'New@12345', reset_password_token }, site);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Reset password token has expired or is invalid');
    }
  });

  it("refuses an expired token, another app's token and another table", async () => {
    const cipher = t.get(IdCipherService);
    const [row] = await t.dataSource.query(
      `SELECT id, (floor(extract(epoch FROM password_changed) * 1000000))::bigint::text AS pc FROM core_users WHERE app_id = $1 AND user_email = $2`,
      [appId, USER.email],
    );
    const expired = cipher.seal(
      'reset-password',
      JSON.stringify({ u: row.id, a: appId, t: 'core_users', pc: row.pc, e: Date.now() - 1000 }),
    );
    const body = (reset_password_token: string, extra = {}) => ({
      password: 'New@12345',
      confirmPassword: 'New@12345',
      reset_password_token,
      ...extra,
    });
    expect((await t.post('/auth/reset-pass', body(expired), site)).body.message).toBe('Reset password token has expired or is invalid');

    const token = (await requestLink()).searchParams.get('token')!;
    expect((await t.post('/auth/reset-pass', body(token), { 'site-id': String(otherAppId) })).status).toBe(401);
    expect((await t.post('/auth/reset-pass', body(token, { authTable: 'core_customers' }), site)).status).toBe(400);
    expect((await t.post('/auth/reset-pass', body(token, { authTable: 'core_sites' }), site)).body.message).toBe('Validation error');
    // still good for its own app and table
    expect((await t.post('/auth/reset-pass', body(token, { authTable: 'core_users' }), site)).status).toBe(200);
    USER.password = 'New@12345';
  });

  it('limits reset requests per account', async () => {
    const email = 'ghost-limit@example.test';
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await t.post('/auth/request-pass', { email, appID: appId }, site));
    expect(answers.slice(0, 5).every((a) => a.status === 200)).toBe(true);
    expect(answers[5].status).toBe(429);
    expect(answers[5].headers['retry-after']).toBeDefined();
  });
});
