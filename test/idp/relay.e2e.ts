import { IdpSealer } from '../../src/idp/idp-seal';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { OidcPeer } from './support/oidc-peer';
import { CONFIDENTIAL, COOKIE_PASSWORD, getAt, LOGOUT_RELAY_URI, RELAY_URI, refreshTarget, ssoEnv } from './support/sso-helpers';

const EVIL = 'https://evil.test/steal';

/**
 * The relay pages the IdP sends the browser to: where they send it (only ever the tenant's configured URL
 * or its domain), the idp_app_ctx cookie, and the page itself (meta refresh, no script, escaped values).
 */
describe('SSO relay pages', () => {
  let peer: OidcPeer;
  let t: TestApp;

  async function tenant(extra: Record<string, unknown> = {}) {
    const site = siteFixture(extra);
    const seeded = await t.seed({ site, tables: {} });
    return { appId: seeded.appID, domain: String(site.domain), headers: { 'site-id': String(seeded.appID) } };
  }

  async function stateFor(headers: Record<string, string>): Promise<string> {
    const res = await t.post('/auth/oauth/idp/start', {}, headers);
    expect(res.status).toBe(200);
    return res.body.state;
  }

  function relay(query: string, headers: Record<string, string> = {}, path = RELAY_URI) {
    return getAt(t, `${path}?${query}`, headers);
  }

  beforeAll(async () => {
    peer = await OidcPeer.start({ clients: [CONFIDENTIAL] });
    peer.trustInProcess();
    t = await startTestApp(ssoEnv(peer, { TRUST_PROXY: 'true', IDP_DEBUG_AUTH: 'true' }));
  });
  afterAll(async () => {
    await t?.close();
    await peer?.close();
  });

  it('answers a page with a meta refresh and a continue link, no script, under a CSP that allows nothing', async () => {
    const app = await tenant();
    const state = await stateFor(app.headers);
    const res = await relay(`code=abc&state=${state}&iss=${encodeURIComponent(peer.issuer)}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).not.toMatch(/<script|<style|\son\w+=|javascript:/i);
    const target = refreshTarget(res.body);
    expect(target.origin + target.pathname).toBe(`https://${app.domain}/auth/callback`);
    expect([...target.searchParams]).toEqual([
      ['code', 'abc'],
      ['state', state],
      ['iss', peer.issuer],
    ]);

    // The alias path does the same.
    const alias = await relay(`code=abc&state=${state}`, {}, RELAY_URI.replace(/redirect$/, 'callback'));
    expect(alias.status).toBe(200);
    expect(refreshTarget(alias.body).origin).toBe(`https://${app.domain}`);
  });

  it('sets idp_app_ctx HttpOnly, SameSite=Lax, on the relay path; Secure when the request came over https (x-forwarded-proto behind TRUST_PROXY)', async () => {
    const app = await tenant();
    const state = await stateFor(app.headers);
    const plain = await relay(`code=c&state=${state}`);
    const cookie = String(plain.headers['set-cookie']);
    expect(cookie).toMatch(/^idp_app_ctx=[A-Za-z0-9_-]{40,}; Path=\/auth\/oauth\/idp; Max-Age=2592000; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toContain(String(app.appId));
    const secure = await relay(`code=c&state=${state}`, { 'x-forwarded-proto': 'https' });
    expect(String(secure.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });

  it("forwards every query parameter, in order, repeated ones too, the IdP's errors included; every value HTML-escaped", async () => {
    const app = await tenant();
    const state = await stateFor(app.headers);
    const hostile = "\"><script>alert(1)</script><a href='x'>&amp;";
    const res = await relay(`error=access_denied&error_description=${encodeURIComponent(hostile)}&state=${state}&x=1&x=2&empty=`);
    expect(res.status).toBe(200);
    expect(res.body).not.toContain('<script');
    expect(res.body).not.toContain('"><');
    const target = refreshTarget(res.body);
    expect([...target.searchParams]).toEqual([
      ['error', 'access_denied'],
      ['error_description', hostile],
      ['state', state],
      ['x', '1'],
      ['x', '2'],
      ['empty', ''],
    ]);
  });

  it("sends the browser to the app's callback URL in the contract's order: idp_app_callback_url, oauth_callback_url, auth_callback_url, then <domain>/auth/callback", async () => {
    const cases: [Record<string, unknown>, (domain: string) => string][] = [
      [{ idp_app_callback_url: '/idp-cb', oauth_callback_url: '/oauth-cb', auth_callback_url: '/auth-cb' }, (d) => `https://${d}/idp-cb`],
      [{ oauth_callback_url: '/oauth-cb', auth_callback_url: '/auth-cb' }, (d) => `https://${d}/oauth-cb`],
      [{ auth_callback_url: '/auth-cb' }, (d) => `https://${d}/auth-cb`],
      [{}, (d) => `https://${d}/auth/callback`],
      // Relative paths are resolved against the tenant's domain, their own query kept.
      [{ idp_app_callback_url: '/sso/done?from=idp' }, (d) => `https://${d}/sso/done?from=idp`],
      [{ idp_app_callback_url: 'sso/done' }, (d) => `https://${d}/sso/done`],
      // An absolute URL is used as configured.
      [{ idp_app_callback_url: 'https://app.partner.test/cb', oauth_callback_url: '/never' }, () => 'https://app.partner.test/cb'],
      [{ idp_app_callback_url: '   ', oauth_callback_url: 'http://localhost:8080/cb' }, () => 'http://localhost:8080/cb'],
    ];
    for (const [columns, expected] of cases) {
      const app = await tenant(columns);
      const res = await relay(`code=k&state=${await stateFor(app.headers)}`);
      expect(res.status).toBe(200);
      const target = refreshTarget(res.body);
      target.searchParams.delete('code');
      target.searchParams.delete('state');
      expect(target.href.replace(/\?$/, '')).toBe(expected(app.domain));
    }
  });

  it('refuses a configured callback that would leave the tenant, and a tenant without a usable domain: Unable to resolve app redirect URL', async () => {
    for (const idp_app_callback_url of [
      '//evil.test/x',
      '/\\evil.test/x',
      'javascript:alert(1)',
      'data:text/html,hi',
      'https://user:pw@evil.test/',
      'ftp://files.test/',
    ]) {
      const app = await tenant({ idp_app_callback_url });
      const res = await relay(`code=k&state=${await stateFor(app.headers)}`);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ status: 'Failed', message: 'Unable to resolve app redirect URL' });
    }
    const noDomain = await tenant({ domain: `bad domain ${Date.now()}/x` });
    const res = await relay(`code=k&state=${await stateFor(noDomain.headers)}`);
    expect(res.body.message).toBe('Unable to resolve app redirect URL');
  });

  it('never leaves the tenant whatever the query or headers say (open-redirect attempts through every parameter)', async () => {
    const app = await tenant();
    const state = await stateFor(app.headers);
    const names = [
      'redirect_uri',
      'redirectUri',
      'returnTo',
      'return_to',
      'next',
      'url',
      'redirect',
      'callback',
      'callback_url',
      'target',
      'continue',
      'domain',
      'host',
      'iss',
      'code',
      'error_uri',
    ];
    for (const name of names) {
      for (const value of [EVIL, '//evil.test', '/\\evil.test', 'javascript:alert(1)']) {
        const res = await relay(`${name}=${encodeURIComponent(value)}&state=${state}`, {
          host: 'evil.test',
          'x-forwarded-host': 'evil.test',
          'x-original-host': 'evil.test',
        });
        expect(res.status).toBe(200);
        const target = refreshTarget(res.body);
        expect(target.origin).toBe(`https://${app.domain}`);
        expect(target.pathname).toBe('/auth/callback');
        expect(target.searchParams.get(name)).toBe(value);
      }
    }
    // The same on the logout relay: only the sealed state (or cookie) and the app's settings count.
    const logout = await t.post('/auth/oauth/idp/logout', { sessionId: 's' }, app.headers);
    const logoutState = new URL(logout.body.logoutUrl).searchParams.get('state')!;
    for (const name of names.filter((n) => n !== 'code')) {
      const res = await getAt(t, `${LOGOUT_RELAY_URI}?${name}=${encodeURIComponent(EVIL)}&state=${logoutState}`, {
        host: 'evil.test',
        'x-forwarded-host': 'evil.test',
      });
      expect(refreshTarget(res.body).href).toBe(`https://${app.domain}/index.html`);
    }
    for (const path of [
      `${LOGOUT_RELAY_URI}/${encodeURIComponent(EVIL)}`,
      `${LOGOUT_RELAY_URI}/%2F%2Fevil.test`,
      `${LOGOUT_RELAY_URI}?state=${encodeURIComponent(EVIL)}`,
    ]) {
      const res = await getAt(t, path);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Invalid or missing OAuth logout state');
    }
  });

  it('refuses a missing, repeated, altered or foreign state with JSON: Invalid or missing OAuth state', async () => {
    const app = await tenant();
    const state = await stateFor(app.headers);
    const sealer = new IdpSealer(COOKIE_PASSWORD);
    const logoutState = sealer.seal('idp-logout', { app: app.appId, rt: null }, 600);
    const otherKey = new IdpSealer('some-other-cookie-password-0123456789').seal(
      'idp-state',
      { app: app.appId, tbl: 'core_customers', cs: null, n: 'n', pkce: false },
      600,
    );
    const unknownApp = sealer.seal('idp-state', { app: 2147480000, tbl: 'core_customers', cs: null, n: 'n', pkce: false }, 600);
    for (const query of [
      'code=c',
      'code=c&state=',
      `code=c&state=${state}&state=${state}`,
      `code=c&state=${state.slice(0, -3)}`,
      `code=c&state=${logoutState}`,
      `code=c&state=${otherKey}`,
      `code=c&state=${unknownApp}`,
      `code=c&state=${EVIL}`,
    ]) {
      const res = await relay(query);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ status: 'Failed', message: 'Invalid or missing OAuth state' });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('still relays an authentic state past its expiry (the callback then refuses it), so a slow login lands on the app', async () => {
    const app = await tenant();
    const expired = new IdpSealer(COOKIE_PASSWORD).seal(
      'idp-state',
      { app: app.appId, tbl: 'core_customers', cs: null, n: 'n', pkce: false },
      -60,
    );
    const res = await relay(`code=c&state=${expired}`);
    expect(res.status).toBe(200);
    expect(refreshTarget(res.body).origin).toBe(`https://${app.domain}`);
    const callback = await t.post('/auth/oauth/idp/callback', { code: 'c', state: expired }, app.headers);
    expect(callback.body.message).toBe('Missing app context in OAuth state payload');
    expect(callback.body.errors[0].message).toMatch(/expired/);
  });
});
