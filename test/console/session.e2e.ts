import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, siteFixture, TestApp, TestResponse } from '../support/test-app';

/**
 * The staff console's server side (README "Staff console"): its browser session at /console/session (a refresh
 * token in an HttpOnly SameSite=Strict cookie scoped to the session routes, CSRF tokens, an Origin check,
 * rotation, sign-out, the idle timeout) and its pages at /console (SPA fallback, caching, the CSP, the API's base
 * path in the page, 404 without a build), in development and in production (base path /api/v2, /docs off).
 */

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="platform-api-base" content="" />
    <title>Staff console</title>
    <script type="module" crossorigin src="/console/assets/index-Ab12Cd34.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>
`;
const CONSOLE_CSP =
  "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data: https:;connect-src 'self';font-src 'self';object-src 'none';base-uri 'none';form-action 'self';frame-ancestors 'none'";

/** A console build as Vite writes it: index.html, hashed assets, an unhashed public file. */
function writeBuild(dir: string): void {
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), PAGE);
  writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), 'console.log("console");\n');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
}

/** The Set-Cookie lines of an answer, by cookie name: value and attributes (lower-cased names). */
function setCookies(res: TestResponse): Record<string, { value: string; attributes: Record<string, string | true> }> {
  const lines = [res.headers['set-cookie'] ?? []].flat() as string[];
  const cookies: Record<string, { value: string; attributes: Record<string, string | true> }> = {};
  for (const line of lines) {
    const [pair, ...rest] = line.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    const attributes: Record<string, string | true> = {};
    for (const attribute of rest) {
      const eq = attribute.indexOf('=');
      if (eq === -1) attributes[attribute.toLowerCase()] = true;
      else attributes[attribute.slice(0, eq).toLowerCase()] = attribute.slice(eq + 1);
    }
    cookies[pair.slice(0, at)] = { value: decodeURIComponent(pair.slice(at + 1)), attributes };
  }
  return cookies;
}

/** One browser: its cookies (as the browser keeps them for /console/session) and its CSRF token. */
class Browser {
  readonly jar = new Map<string, string>();
  csrfToken = '';

  constructor(
    private readonly t: TestApp,
    private readonly origin?: string,
  ) {}

  get cookieHeader(): string {
    return [...this.jar].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
  }

  keep(res: TestResponse): void {
    for (const [name, { value, attributes }] of Object.entries(setCookies(res)))
      if (attributes['max-age'] === '0' || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
  }

  async csrf(): Promise<TestResponse> {
    const res = await this.t.request('GET', '/console/session/csrf', undefined, this.headers({}));
    this.keep(res);
    this.csrfToken = res.body.data?.csrfToken;
    return res;
  }

  headers(extra: Record<string, string>): Record<string, string> {
    return {
      ...(this.jar.size > 0 ? { cookie: this.cookieHeader } : {}),
      ...(this.origin ? { origin: this.origin } : {}),
      ...extra,
    };
  }

  async post(route: 'sign-in' | 'refresh' | 'sign-out', body: unknown = {}, extra: Record<string, string> = {}): Promise<TestResponse> {
    const res = await this.t.post(`/console/session/${route}`, body, this.headers({ 'x-csrf-token': this.csrfToken, ...extra }));
    this.keep(res);
    return res;
  }
}

describe('console session (development)', () => {
  let t: TestApp;
  let dist: string;
  let appId: number;
  let domain: string;
  const owner = 'owner@console.test';
  const clerk = 'clerk@console.test';
  const plain = 'plain@console.test';
  const guarded = 'guarded@console.test';

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'console-dist-')); // empty: the console is not built yet
    t = await startTestApp({ CONSOLE_DIR: dist, CONSOLE_IDLE_MINUTES: '30', AUTH_LOGIN_MAX_PER_ACCOUNT: '3' });
    const site = siteFixture();
    const seeded = await t.seed({
      site,
      tables: {
        core_users: [
          { user_email: owner, password: 'Owner@1234', primary_role: 'admin', firstname: 'Olga', lastname: 'Owner' },
          { user_email: clerk, password: 'Clerk@1234', primary_role: 'user', staff_roles: '{orders}', firstname: 'Carl' },
          { user_email: plain, password: 'Plain@1234', primary_role: 'user', firstname: 'Pia' },
          { user_email: guarded, password: 'Guard@1234', primary_role: 'admin' },
        ],
      },
    });
    appId = seeded.appID;
    domain = site!.domain as string;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  async function signedIn(email = owner, password = 'Owner@1234'): Promise<{ browser: Browser; res: TestResponse }> {
    const browser = new Browser(t);
    await browser.csrf();
    const res = await browser.post('sign-in', { domain, email, password });
    return { browser, res };
  }

  describe('pages', () => {
    it('answers 404 in the envelope while the console is not built, and the service runs', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/console/' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 'Failed', message: 'The console is not built: run npm run build' });
      expect((await t.app.inject({ method: 'GET', url: '/console/orders' })).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    });

    it('serves a build made after the start: the page for any route, files with their caching, the CSP', async () => {
      writeBuild(dist);
      const redirect = await t.app.inject({ method: 'GET', url: '/console?x=1' });
      expect(redirect.statusCode).toBe(301);
      expect(redirect.headers.location).toBe('/console/?x=1');

      for (const url of ['/console/', '/console/orders/42', '/console/index.html', '/console/settings?tab=keys']) {
        const page = await t.app.inject({ method: 'GET', url });
        expect(page.statusCode).toBe(200);
        expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(page.headers['cache-control']).toBe('no-cache');
        expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
        expect(page.headers['x-frame-options']).toBe('DENY');
        expect(page.headers['x-content-type-options']).toBe('nosniff');
        expect(page.headers['referrer-policy']).toBe('no-referrer');
        expect(page.headers['strict-transport-security']).toBeUndefined(); // development
        // The base path (none in development) in place of the build's own meta tag, which appears once.
        expect(page.body).toContain('<meta name="platform-api-base" content="">');
        expect(page.body.match(/platform-api-base/g)).toHaveLength(1);
        expect(page.body).toContain('<div id="root"></div>');
      }

      const asset = await t.app.inject({ method: 'GET', url: '/console/assets/index-Ab12Cd34.js' });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(asset.body).toBe('console.log("console");\n');

      const favicon = await t.app.inject({ method: 'GET', url: '/console/favicon.svg' });
      expect(favicon.statusCode).toBe(200);
      expect(favicon.headers['cache-control']).toBe('no-cache');

      // A missing asset is 404, never the page; the API's answers keep the API's CSP.
      const missing = await t.app.inject({ method: 'GET', url: '/console/assets/gone-0000.js' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ status: 'Failed' });
      const api = await t.app.inject({ method: 'GET', url: '/health' });
      expect(api.headers['content-security-policy']).toBe("default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'");
    });

    it('never serves files outside the build, and keeps the session paths for the session routes', async () => {
      for (const url of ['/console/../package.json', '/console/%2e%2e/package.json', '/console/assets/%2e%2e/%2e%2e/package.json']) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.body).not.toContain('"dependencies"');
      }
      const unknown = await t.app.inject({ method: 'GET', url: '/console/session/unknown' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ status: 'Failed', message: 'Route not found: GET /console/session/unknown' });
    });
  });

  describe('sign-in', () => {
    it('signs a staff member in: the access token in the body, the refresh token only in an HttpOnly SameSite=Strict cookie', async () => {
      const browser = new Browser(t);
      const csrf = await browser.csrf();
      expect(csrf.status).toBe(200);
      expect(csrf.body).toMatchObject({ status: 'Success', data: { csrfToken: expect.any(String) } });
      const secret = setCookies(csrf).console_csrf;
      expect(secret.attributes).toMatchObject({ path: '/console/session', httponly: true, samesite: 'Strict' });
      expect(secret.attributes.secure).toBeUndefined(); // development: plain http

      const res = await browser.post('sign-in', { domain: domain.toUpperCase(), email: owner, password: 'Owner@1234' });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        status: 'Success',
        data: {
          accessToken: expect.any(String),
          expiresIn: 3600,
          idleMinutes: 30,
          staff: {
            id: expect.any(Number),
            email: owner,
            firstname: 'Olga',
            lastname: 'Owner',
            roles: ['owner'],
            permissions: expect.arrayContaining(['orders.refund', 'staff.manage', 'settings.manage']),
          },
          app: { appID: appId, name: expect.any(String), domain },
        },
        datetime: expect.any(String),
      });
      expect(res.body.data.staff.permissions).toHaveLength(22);

      const cookie = setCookies(res).console_refresh;
      expect(cookie.attributes).toMatchObject({ path: '/console/session', httponly: true, samesite: 'Strict', 'max-age': '1800' });
      expect(cookie.attributes.secure).toBeUndefined();
      const refreshToken = cookie.value.split('.').slice(2).join('.');
      expect(refreshToken.split('.')).toHaveLength(3); // a JWT
      expect(JSON.stringify(res.body)).not.toContain(refreshToken);
      expect(JSON.stringify(res.body)).not.toMatch(/refresh/i);

      // The access token is the API's: with the site-id header it calls staff routes, no cookie involved.
      const staff = await t.post('/staff/list', {}, { 'site-id': String(appId), authorization: `Bearer ${res.body.data.accessToken}` });
      expect(staff.status).toBe(200);
    });

    it('takes the tenant by appID too, and answers the roles and permissions of a staff member who is no owner', async () => {
      const browser = new Browser(t);
      await browser.csrf();
      const res = await browser.post('sign-in', { appID: appId, email: clerk, password: 'Clerk@1234' });
      expect(res.status).toBe(200);
      expect(res.body.data.staff).toMatchObject({ email: clerk, roles: ['orders'], lastname: null });
      expect(res.body.data.staff.permissions).toContain('orders.refund');
      expect(res.body.data.staff.permissions).not.toContain('staff.manage');
    });

    it('refuses an account without a staff role with 403 in the API’s words, and sets no cookie', async () => {
      const { res } = await signedIn(plain, 'Plain@1234');
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 'Failed', message: 'Insufficient permissions' });
      expect(setCookies(res).console_refresh).toBeUndefined();
    });

    it('answers bad input with 400 naming the field, and wrong credentials with 401', async () => {
      const browser = new Browser(t);
      await browser.csrf();
      const noEmail = await browser.post('sign-in', { domain, password: 'Owner@1234' });
      expect(noEmail.status).toBe(400);
      expect(noEmail.body).toEqual({
        status: 'Failed',
        message: 'Validation error',
        errors: [{ field: 'email', message: 'email is required' }],
      });

      const noTenant = await browser.post('sign-in', { email: owner, password: 'Owner@1234' });
      expect(noTenant.status).toBe(400);
      expect(noTenant.body.errors).toEqual([{ field: 'domain', message: 'domain is required (or appID)' }]);

      const unknownDomain = await browser.post('sign-in', { domain: 'nowhere.example.test', email: owner, password: 'Owner@1234' });
      expect(unknownDomain.status).toBe(400);
      expect(unknownDomain.body.errors).toEqual([{ field: 'domain', message: 'No app has this domain' }]);

      const unknownApp = await browser.post('sign-in', { appID: 2147483000, email: owner, password: 'Owner@1234' });
      expect(unknownApp.status).toBe(400);
      expect(unknownApp.body.errors).toEqual([{ field: 'appID', message: 'No app has this appID' }]);

      const otherApp = await browser.post('sign-in', { domain, appID: appId + 1, email: owner, password: 'Owner@1234' });
      expect(otherApp.body.errors).toEqual([{ field: 'appID', message: 'appID is not the app of this domain' }]);

      const badTypes = await browser.post('sign-in', { domain: 7, appID: 'x', email: owner, password: 'Owner@1234' });
      expect(badTypes.status).toBe(400);
      expect(badTypes.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['appID', 'domain']);

      const wrong = await browser.post('sign-in', { domain, email: owner, password: 'Wrong@1234' });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ status: 'Failed', message: 'Invalid credentials' });
      expect(setCookies(wrong).console_refresh).toBeUndefined();
    });

    it('counts failed sign-ins against the login limits of /auth/login', async () => {
      const browser = new Browser(t);
      await browser.csrf();
      for (let i = 0; i < 3; i++)
        expect((await browser.post('sign-in', { domain, email: guarded, password: 'Wrong@1234' })).status).toBe(401);
      const limited = await browser.post('sign-in', { domain, email: guarded, password: 'Guard@1234' });
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ status: 'Failed', message: 'Too many login attempts, please try again later' });
      expect(limited.headers['retry-after']).toBeDefined();
      // The same account's limit, counted by either route.
      expect((await t.post('/auth/login', { email: guarded, password: 'Guard@1234' }, { 'site-id': String(appId) })).status).toBe(429);
    });
  });

  describe('CSRF and origin', () => {
    it('refuses a POST without the CSRF token, with a wrong one, or with another browser’s', async () => {
      const browser = new Browser(t);
      await browser.csrf();
      const body = { domain, email: owner, password: 'Owner@1234' };
      const failure = { status: 'Failed', message: 'Invalid or missing CSRF token' };
      for (const route of ['sign-in', 'refresh', 'sign-out'] as const) {
        const missing = await t.post(`/console/session/${route}`, body, browser.headers({}));
        expect(missing).toMatchObject({ status: 403, body: failure });
      }
      expect(await browser.post('sign-in', body, { 'x-csrf-token': 'forged-token' })).toMatchObject({ status: 403, body: failure });

      // A token of another browser's secret, and a token without the secret cookie.
      const other = new Browser(t);
      await other.csrf();
      expect(await browser.post('sign-in', body, { 'x-csrf-token': other.csrfToken })).toMatchObject({ status: 403, body: failure });
      const noSecret = await t.post('/console/session/sign-in', body, { 'x-csrf-token': browser.csrfToken });
      expect(noSecret).toMatchObject({ status: 403, body: failure });

      // The same browser's token works, also again (the token is not single use).
      expect((await browser.post('sign-in', body)).status).toBe(200);
      expect((await browser.post('refresh')).status).toBe(200);
    });

    it('refuses a POST from another origin, also with a valid token; accepts the service’s own', async () => {
      const body = { domain, email: owner, password: 'Owner@1234' };
      for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example', 'http://localhost:8080']) {
        const browser = new Browser(t, origin);
        await browser.csrf();
        const res = await browser.post('sign-in', body);
        expect(res).toMatchObject({ status: 403, body: { status: 'Failed', message: 'Cross-origin requests are refused' } });
        expect(setCookies(res).console_refresh).toBeUndefined();
      }
      // inject() sends Host: localhost:80, so the service's own origin is http://localhost.
      const same = new Browser(t, 'http://localhost');
      await same.csrf();
      expect((await same.post('sign-in', body)).status).toBe(200);
    });
  });

  describe('refresh and sign-out', () => {
    it('refreshes with the cookie and replaces it: the old cookie then fails, and its answer clears the cookie', async () => {
      const { browser } = await signedIn();
      const first = browser.jar.get('console_refresh')!;
      const refreshed = await browser.post('refresh');
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.data).toMatchObject({
        accessToken: expect.any(String),
        staff: { email: owner, roles: ['owner'] },
        app: { appID: appId },
      });
      const second = browser.jar.get('console_refresh')!;
      expect(second).not.toBe(first);
      expect(setCookies(refreshed).console_refresh.attributes).toMatchObject({
        path: '/console/session',
        httponly: true,
        samesite: 'Strict',
      });
      expect(JSON.stringify(refreshed.body)).not.toContain(second.split('.').slice(2).join('.'));

      // The cookie before the refresh no longer works (and the answer clears it); the new one does.
      const stale = await t.post(
        '/console/session/refresh',
        {},
        {
          cookie: `console_csrf=${encodeURIComponent(browser.jar.get('console_csrf')!)}; console_refresh=${encodeURIComponent(first)}`,
          'x-csrf-token': browser.csrfToken,
        },
      );
      expect(stale).toMatchObject({ status: 401, body: { status: 'Failed', message: 'Invalid refresh token' } });
      expect(setCookies(stale).console_refresh).toMatchObject({ value: '', attributes: { path: '/console/session', 'max-age': '0' } });
      expect((await browser.post('refresh')).status).toBe(200);
    });

    it('reads roles fresh at each refresh, and ends the session of a member whose roles were taken away', async () => {
      const { browser, res } = await signedIn(clerk, 'Clerk@1234');
      const clerkId = res.body.data.staff.id as number;
      await t.dataSource.query(`UPDATE core_users SET staff_roles = '{support}' WHERE id = $1`, [clerkId]);
      const refreshed = await browser.post('refresh');
      expect(refreshed.body.data.staff.roles).toEqual(['support']);
      expect(refreshed.body.data.staff.permissions).not.toContain('orders.refund');

      await t.dataSource.query(`UPDATE core_users SET staff_roles = '{}' WHERE id = $1`, [clerkId]);
      const refused = await browser.post('refresh');
      expect(refused).toMatchObject({ status: 403, body: { status: 'Failed', message: 'Insufficient permissions' } });
      expect(browser.jar.has('console_refresh')).toBe(false);
      await t.dataSource.query(`UPDATE core_users SET staff_roles = '{orders}' WHERE id = $1`, [clerkId]);
    });

    it('answers 401 without a cookie or with a forged one, clearing it', async () => {
      const browser = new Browser(t);
      await browser.csrf();
      const none = await browser.post('refresh');
      expect(none).toMatchObject({ status: 401, body: { status: 'Failed', message: 'Invalid refresh token' } });
      expect(setCookies(none).console_refresh.attributes['max-age']).toBe('0');

      const { browser: real } = await signedIn();
      const parts = real.jar.get('console_refresh')!.split('.');
      const [id, token] = [parts[0], parts.slice(2).join('.')];
      for (const forged of ['garbage', `${id}.${'A'.repeat(43)}.${token}`, `${id}.${'A'.repeat(43)}.not-a-jwt`, 'x'.repeat(5000)]) {
        browser.jar.set('console_refresh', forged);
        expect((await browser.post('refresh')).status).toBe(401);
      }
    });

    it('signs out: the refresh after it is 401 and the cookie is cleared; a sign-out without a session succeeds', async () => {
      const { browser } = await signedIn();
      const cookie = browser.jar.get('console_refresh')!;
      const out = await browser.post('sign-out');
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ status: 'Success', message: 'Signed out successfully', datetime: expect.any(String) });
      expect(setCookies(out).console_refresh.attributes['max-age']).toBe('0');
      browser.jar.set('console_refresh', cookie); // a copy of the cookie kept from before
      expect((await browser.post('refresh')).status).toBe(401);
      expect((await browser.post('sign-out')).status).toBe(200);
    });

    it('ends a session not refreshed for CONSOLE_IDLE_MINUTES', async () => {
      const { browser, res } = await signedIn();
      const id = browser.jar.get('console_refresh')!.split('.')[0];
      // 29 minutes without activity: still alive, and the refresh marks it active again.
      await t.dataSource.query(`UPDATE core_console_sessions SET last_active = now() - interval '29 minutes' WHERE id = $1`, [id]);
      expect((await browser.post('refresh')).status).toBe(200);
      const [{ idle }] = await t.dataSource.query(
        `SELECT now() - last_active < interval '1 minute' AS idle FROM core_console_sessions WHERE id = $1`,
        [id],
      );
      expect(idle).toBe(true);

      await t.dataSource.query(`UPDATE core_console_sessions SET last_active = now() - interval '31 minutes' WHERE id = $1`, [id]);
      const ended = await browser.post('refresh');
      expect(ended).toMatchObject({
        status: 401,
        body: { status: 'Failed', message: 'The session has ended after a time without activity: sign in again' },
      });
      expect(browser.jar.has('console_refresh')).toBe(false);
      expect(await t.dataSource.query(`SELECT 1 FROM core_console_sessions WHERE id = $1`, [id])).toHaveLength(0);
      expect(res.status).toBe(200);
    });

    it('ends the session when the password changes', async () => {
      const { browser, res } = await signedIn(clerk, 'Clerk@1234');
      await t.dataSource.query(`UPDATE core_users SET password_changed = clock_timestamp() WHERE id = $1`, [res.body.data.staff.id]);
      const refused = await browser.post('refresh');
      expect(refused).toMatchObject({ status: 401, body: { message: 'Refresh token has expired' } });
    });
  });
});

describe('console session (production: base path /api/v2, /docs off)', () => {
  let t: TestApp;
  let dist: string;
  let appId: number;
  let domain: string;

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'console-dist-'));
    writeBuild(dist);
    t = await startTestApp({ NODE_ENV: 'production', DOCS_ENABLED: 'false', CONSOLE_DIR: dist });
    const site = siteFixture();
    const seeded = await t.seed({
      site,
      tables: { core_users: [{ user_email: 'prod-owner@console.test', password: 'Owner@1234', primary_role: 'admin' }] },
    });
    appId = seeded.appID;
    domain = site!.domain as string;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves the console outside the base path, with the base path in the page and HSTS', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/console/orders' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<meta name="platform-api-base" content="/api/v2">');
    expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/docs' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/console/session/csrf' })).statusCode).toBe(404);
  });

  it('keeps the session routes at /console/session with Secure cookies; the access token calls the API under /api/v2', async () => {
    const browser = new Browser(t);
    const csrf = await browser.csrf();
    expect(csrf.status).toBe(200);
    expect(setCookies(csrf).console_csrf.attributes.secure).toBe(true);
    const res = await browser.post('sign-in', { domain, email: 'prod-owner@console.test', password: 'Owner@1234' });
    expect(res.status).toBe(200);
    expect(setCookies(res).console_refresh.attributes).toMatchObject({
      secure: true,
      httponly: true,
      samesite: 'Strict',
      path: '/console/session',
    });
    const staff = await t.post(
      '/api/v2/staff/list',
      {},
      { 'site-id': String(appId), authorization: `Bearer ${res.body.data.accessToken}` },
    );
    expect(staff.status).toBe(200);
    expect((await browser.post('refresh')).status).toBe(200);
    expect((await browser.post('sign-out')).status).toBe(200);
    expect((await browser.post('refresh')).status).toBe(401);
  });
});
