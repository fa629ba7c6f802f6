import { siteFixture, startTestApp, TestApp } from '../support/test-app';

/**
 * Bad input on every route of the module: each answer is a 4xx (never a 500) that names the offending
 * field, with the message that fits the fault (missing, wrong type, too long, not allowed).
 */
describe('bad input on every auth route', () => {
  let t: TestApp;
  let site: Record<string, string>;
  let admin: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ AUTH_LOGIN_MAX_PER_ACCOUNT: '100000' });
    const appId = (
      await t.seed({
        site: siteFixture(),
        tables: {
          core_users: [{ user_email: 'admin@example.test', password: 'Admin@1234', primary_role: 'admin', mobile: '+61400000009' }],
        },
      })
    ).appID;
    site = { 'site-id': String(appId) };
    const login = await t.post('/auth/login', { email: 'admin@example.test', password: 'Admin@1234' }, site);
    admin = { ...site, authorization: `Bearer ${login.body.token.access_token}` };
  });
  afterAll(() => t.close());

  const ROUTES: { path: string; required: string[]; auth?: boolean }[] = [
    { path: '/auth/login', required: ['email', 'password'] },
    { path: '/auth/sign-up', required: ['email', 'password'] },
    { path: '/auth/request-pass', required: ['email', 'appID'] },
    { path: '/auth/reset-pass', required: ['password', 'confirmPassword', 'reset_password_token'] },
    { path: '/auth/user-email', required: ['userId'] },
    { path: '/auth/user-sms-code', required: ['userId'] },
    { path: '/auth/verify-sms-code', required: ['userId', 'code'] },
    { path: '/auth/invite-link', required: ['user', 'folder_id'], auth: true },
    { path: '/auth/getFolderLimits', required: ['appID', 'table', 'userId'], auth: true },
    { path: '/customers/signup', required: ['email', 'password'] },
    { path: '/customers/login', required: ['email', 'password'] },
    { path: '/customers/request-reset', required: ['email'] },
    { path: '/customers/reset-password', required: ['password', 'confirmPassword', 'token', 'reset_password_token'] },
    { path: '/user/app/signup', required: ['email', 'password'] },
    { path: '/user/app/login', required: ['email', 'password'] },
    { path: '/user/app/request-reset', required: ['email'] },
    { path: '/user/app/reset-password', required: ['password', 'confirmPassword', 'token', 'reset_password_token'] },
  ];

  it.each(ROUTES)('$path: a missing field is named as required', async ({ path, required, auth }) => {
    const res = await t.post(path, {}, auth ? admin : site);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Validation error');
    const byField = (a: { field: string }, b: { field: string }) => a.field.localeCompare(b.field);
    expect([...res.body.errors].sort(byField)).toEqual(required.map((field) => ({ field, message: `${field} is required` })).sort(byField));
  });

  const WRONG_TYPES: unknown[] = [42, true, ['x'], { a: 1 }];
  it.each(ROUTES)(
    '$path: wrong types, arrays, objects, huge strings and non-object bodies are 4xx, never 500',
    async ({ path, required, auth }) => {
      const headers = auth ? admin : site;
      for (const value of [...WRONG_TYPES, 'x'.repeat(10_000), '']) {
        for (const field of [...required, 'authTable', 'appID', 'url', 'extraFields', 'firstname']) {
          const res = await t.post(path, { [field]: value }, headers);
          expect([400, 401, 404, 409]).toContain(res.status);
          expect(res.body.status).toBe('Failed');
          if (res.status === 400 && res.body.message === 'Validation error') {
            expect(res.body.errors.length).toBeGreaterThan(0);
            for (const e of res.body.errors) expect(typeof e.field).toBe('string');
          }
        }
      }
      for (const raw of [
        '[]',
        '"text"',
        'null',
        '7',
        '{"__proto__":{"authTable":"pg_user"}}',
        '{"constructor":{"prototype":{"x":1}}}',
        '{',
      ]) {
        const res = await t.request('POST', path, raw, headers);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }
    },
  );

  it('refuses an unpaired surrogate in an email or password with 400 naming the field (validator threw: 500)', async () => {
    const cases: [string, string, string][] = [
      ['/auth/login', '{"email":"\\ud800","password":"Admin@1234"}', 'email'],
      ['/auth/login', '{"email":"admin@example.test","password":"Admin@\\udfff1234"}', 'password'],
      ['/auth/request-pass', '{"email":"ab\\ud800cd","appID":1}', 'email'],
      ['/customers/login', '{"email":"\\udfff","password":"Cust@1234"}', 'email'],
      [
        '/customers/reset-password',
        '{"password":"Admin@1234","confirmPassword":"\\ud800","token":"t","reset_password_token":"t"}',
        'confirmPassword',
      ],
      ['/user/app/signup', '{"email":"x@example.test","password":"\\ud800"}', 'password'],
    ];
    for (const [path, raw, field] of cases) {
      const res = await t.request('POST', path, raw, site);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: {
          status: 'Failed',
          message: 'Validation error',
          errors: [{ field, message: `${field} must not contain unpaired surrogates (invalid Unicode)` }],
        },
      });
    }
    // A surrogate pair is text like any other.
    const pair = await t.request('POST', '/auth/login', '{"email":"admin@example.test","password":"Admin@1234\\ud83d\\ude42"}', site);
    expect(pair.status).toBe(401);
  });

  it('names the field with the type it must have', async () => {
    const login = await t.post('/auth/login', { email: ['a@b.test'], password: 12345678 }, site);
    expect(login.status).toBe(400);
    expect(login.body.errors).toEqual([
      { field: 'email', message: 'email must be a string' },
      { field: 'password', message: 'password must be a string' },
    ]);
    const invite = await t.post('/auth/invite-link', { user: '1', folder_id: 1.5 }, admin);
    expect(invite.body.errors).toEqual([
      { field: 'user', message: 'user must be an integer' },
      { field: 'folder_id', message: 'folder_id must be an integer' },
    ]);
    const reset = await t.post('/auth/request-pass', { email: 'a@b.test', appID: '7' }, site);
    expect(reset.body.errors).toEqual([{ field: 'appID', message: 'appID must be an integer' }]);
  });

  it('refuses an unknown authTable on every route that takes one, before any SQL', async () => {
    for (const path of [
      '/auth/login',
      '/auth/sign-up',
      '/auth/request-pass',
      '/auth/reset-pass',
      '/customers/login',
      '/customers/signup',
      '/user/app/request-reset',
    ]) {
      for (const authTable of ['core_sites', 'core_users; DROP TABLE core_users', 'CORE_USERS', '']) {
        const res = await t.post(path, { authTable }, site);
        expect(res.status).toBe(400);
        expect(res.body.errors).toContainEqual({ field: 'authTable', message: expect.stringContaining('authTable must be one of') });
      }
    }
  });
});
