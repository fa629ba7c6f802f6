import { IdCipherService } from '../../src/common/id-cipher.service';
import { IdpSealer } from '../../src/idp/idp-seal';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { OidcPeer, PeerBrowser } from './support/oidc-peer';
import {
  codeForApp,
  CONFIDENTIAL,
  COOKIE_PASSWORD,
  getAt,
  LOGOUT_RELAY_URI,
  pkcePair,
  RELAY_URI,
  refreshTarget,
  ssoEnv,
  ssoLogin,
} from './support/sso-helpers';

/**
 * SSO through a real OpenID Connect provider (oidc-provider 9 over HTTPS on loopback), logged into headlessly
 * through its own pages: start → IdP → relay page → callback, on the real database.
 */
describe('SSO login (IdP facade) against a real OpenID Connect provider', () => {
  let peer: OidcPeer;
  let t: TestApp;
  let siteA: { appId: number; domain: string; headers: Record<string, string> };
  let siteB: { appId: number; domain: string; headers: Record<string, string> };
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}-${Date.now().toString(36)}`;

  async function tenant(extra: Record<string, unknown> = {}, tables: Record<string, Record<string, unknown>[]> = {}) {
    const site = siteFixture(extra);
    const seeded = await t.seed({ site, tables });
    return { appId: seeded.appID, domain: String(site.domain), headers: { 'site-id': String(seeded.appID) }, ids: seeded.ids };
  }

  beforeAll(async () => {
    peer = await OidcPeer.start({ clients: [CONFIDENTIAL] });
    peer.trustInProcess();
    t = await startTestApp(ssoEnv(peer));
    siteA = await tenant();
    siteB = await tenant();
  });
  afterAll(async () => {
    await t?.close();
    await peer?.close();
  });

  const identities = (appId: number) =>
    t.dataSource.query('SELECT auth_table, provider, provider_user_id, user_id, email FROM core_identities WHERE app_id = $1 ORDER BY id', [
      appId,
    ]);
  const customers = (appId: number) =>
    t.dataSource.query(
      'SELECT id, email, password, firstname, lastname, displayname, photourl, emailverified FROM core_customers WHERE app_id = $1 ORDER BY id',
      [appId],
    );

  describe('the whole flow', () => {
    it('start → IdP login → relay page → callback gives service tokens for a new customer and its identity', async () => {
      const sub = peer.account(unique('ada'), {
        email: `${unique('ada')}@example.test`,
        email_verified: true,
        given_name: 'Ada',
        family_name: 'Lovelace',
        name: 'Ada L',
        picture: 'https://img.example.test/ada.png',
      });
      const { email } = peer.accounts.get(sub)!;
      const at = await codeForApp(t, peer, { headers: siteA.headers, account: sub, flow: 'signup', state: 'client-state-1' });

      // The authorization request the service built.
      const auth = at.authorizationUrl.searchParams;
      expect(at.authorizationUrl.origin).toBe(peer.issuer);
      expect(auth.get('client_id')).toBe(CONFIDENTIAL.client_id);
      expect(auth.get('redirect_uri')).toBe(RELAY_URI);
      expect(auth.get('response_type')).toBe('code');
      expect(auth.get('scope')).toBe('openid email profile');
      expect(auth.get('screen_hint')).toBe('signup');
      expect(auth.get('code_challenge_method')).toBe('S256');
      expect(auth.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(auth.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(auth.get('state')).toBe(at.state);
      expect(at.state).not.toContain('client-state-1');

      // The relay page sends the browser to the app's default callback with the IdP's parameters.
      expect(at.relay.headers['content-type']).toMatch(/^text\/html/);
      expect(at.relay.headers['content-security-policy']).toContain("default-src 'none'");
      expect(at.relay.body).not.toMatch(/<script/i);
      expect(at.target.origin).toBe(`https://${siteA.domain}`);
      expect(at.target.pathname).toBe('/auth/callback');
      expect([...at.target.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
      expect(at.target.searchParams.get('iss')).toBe(peer.issuer);

      const res = await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier }, siteA.headers);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('Success');
      expect(Object.keys(res.body.token).sort()).toEqual(['access_token', 'expires_in', 'refresh_token']);
      expect(res.body.token.expires_in).toBe(3600);
      expect(res.body.clientState).toBe('client-state-1');
      const userId = t.get(IdCipherService).decryptId(siteA.appId, res.body.user._id);
      expect(res.body.user).toEqual({
        _id: expect.any(String),
        email,
        firstname: 'Ada',
        lastname: 'Lovelace',
        displayname: 'Ada L',
        photourl: 'https://img.example.test/ada.png',
        emailverified: true,
        sessionid: expect.any(String),
      });

      const [customer] = (await customers(siteA.appId)).filter((c: { id: number }) => c.id === userId);
      expect(customer).toMatchObject({ email, password: null, firstname: 'Ada', emailverified: true });
      expect(await identities(siteA.appId)).toContainEqual({
        auth_table: 'core_customers',
        provider: 'idp',
        provider_user_id: sub,
        user_id: userId,
        email,
      });
      const versions = await t.dataSource.query(
        `SELECT 1 FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_customers' AND "Current_ID" = $2`,
        [siteA.appId, userId],
      );
      expect(versions).toHaveLength(1);

      // The service's own tokens: the refresh token renews them.
      const refreshed = await t.post(
        '/auth/refresh-token',
        { payload: { access_token: res.body.token.access_token, refresh_token: res.body.token.refresh_token } },
        siteA.headers,
      );
      expect(refreshed.status).toBe(200);

      // The next login of the same IdP account is the same customer, with nothing new written.
      const again = await ssoLogin(t, peer, { headers: siteA.headers, account: sub });
      expect(again.status).toBe(200);
      expect(again.body.user._id).toBe(res.body.user._id);
      expect((await identities(siteA.appId)).filter((i: { provider_user_id: string }) => i.provider_user_id === sub)).toHaveLength(1);
    });
  });

  describe('start', () => {
    it('answers the contract messages: no app, redirectUri not the configured one, authTable not allowed', async () => {
      const noApp = await t.post('/auth/oauth/idp/start', {});
      expect(noApp.status).toBe(400);
      expect(noApp.body).toMatchObject({ status: 'Failed', message: 'Missing app context: provide appID/site-id for OAuth start' });

      const wrong = await t.post(
        '/auth/oauth/idp/start',
        { redirectUri: 'https://evil.test/auth/oauth/idp/redirect', codeChallenge: pkcePair().challenge },
        siteA.headers,
      );
      expect(wrong.status).toBe(400);
      expect(wrong.body.message).toBe(`redirectUri must match server configuration (${RELAY_URI})`);
      // The configured value itself, or the relay URI it stands for, are accepted.
      for (const redirectUri of [RELAY_URI, 'https://api.sso.test']) {
        expect((await t.post('/auth/oauth/idp/start', { redirectUri }, siteA.headers)).status).toBe(200);
      }

      for (const authTable of ['core_users', 'pg_shadow', "core_customers' OR 1=1"]) {
        const res = await t.post('/auth/oauth/idp/start', { authTable }, siteA.headers);
        expect(res.status).toBe(400);
        expect(res.body.message).toBe(`OAuth login into authTable '${authTable}' is not allowed by configuration.`);
      }
    });

    it('takes code_challenge with S256 only, naming the field otherwise', async () => {
      const plain = await t.post(
        '/auth/oauth/idp/start',
        { codeChallenge: pkcePair().challenge, codeChallengeMethod: 'plain' },
        siteA.headers,
      );
      expect(plain.status).toBe(400);
      expect(plain.body.errors).toEqual([{ field: 'codeChallengeMethod', message: 'codeChallengeMethod must be S256' }]);
      const methodOnly = await t.post('/auth/oauth/idp/start', { codeChallengeMethod: 'S256' }, siteA.headers);
      expect(methodOnly.body.errors).toEqual([
        { field: 'codeChallenge', message: 'codeChallenge is required when codeChallengeMethod is given' },
      ]);
      const malformed = await t.post('/auth/oauth/idp/start', { codeChallenge: 'short' }, siteA.headers);
      expect(malformed.body.errors[0].field).toBe('codeChallenge');
      const flow = await t.post('/auth/oauth/idp/start', { flow: 'register' }, siteA.headers);
      expect(flow.body.errors).toEqual([{ field: 'flow', message: 'flow must be signin or signup' }]);

      const explicit = await t.post(
        '/auth/oauth/idp/start',
        { codeChallenge: pkcePair().challenge, codeChallengeMethod: 'S256', flow: 'signin' },
        siteA.headers,
      );
      expect(explicit.status).toBe(200);
      const url = new URL(explicit.body.authorizationUrl);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('screen_hint')).toBe('signin');
    });

    it('seals a fresh state each time (nonce inside), unreadable and bound to the app', async () => {
      const one = await t.post('/auth/oauth/idp/start', { state: 'same' }, siteA.headers);
      const two = await t.post('/auth/oauth/idp/start', { state: 'same' }, siteA.headers);
      expect(one.body.state).not.toBe(two.body.state);
      expect(new URL(one.body.authorizationUrl).searchParams.get('nonce')).not.toBe(
        new URL(two.body.authorizationUrl).searchParams.get('nonce'),
      );
      expect(Buffer.from(one.body.state, 'base64url').toString('latin1')).not.toContain('same');
    });
  });

  it('carries the longest client state (512 characters, JSON-escaped) through the IdP and back', async () => {
    const clientState = '"\u0001\\é'.repeat(128);
    const sub = peer.account(unique('long'), { email: `${unique('long')}@example.test`, email_verified: true });
    const res = await ssoLogin(t, peer, { headers: siteA.headers, account: sub, state: clientState });
    expect(res.status).toBe(200);
    expect(res.body.clientState).toBe(clientState);
    expect((await t.post('/auth/oauth/idp/start', { state: clientState + 'x' }, siteA.headers)).body.errors).toEqual([
      { field: 'state', message: 'state must be at most 512 characters' },
    ]);
  });

  describe('PKCE and codes', () => {
    it("right verifier logs in; a wrong one gets the IdP's invalid_grant; a missing one is refused before the code is spent", async () => {
      const sub = peer.account(unique('pkce'), { email: `${unique('pkce')}@example.test`, email_verified: true });
      const at = await codeForApp(t, peer, { headers: siteA.headers, account: sub });

      const missing = await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state }, siteA.headers);
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual([
        { field: 'codeVerifier', message: 'codeVerifier is required when codeChallenge was sent to start' },
      ]);

      const right = await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier }, siteA.headers);
      expect(right.status).toBe(200);

      const other = await codeForApp(t, peer, { headers: siteA.headers, account: sub });
      const wrong = await t.post(
        '/auth/oauth/idp/callback',
        { code: other.code, state: other.state, codeVerifier: pkcePair().verifier },
        siteA.headers,
      );
      expect(wrong.status).toBe(400);
      expect(wrong.body.status).toBe('Failed');
      expect(wrong.body.message).toMatch(/^invalid_grant: /);
    });

    it("a used code answers the IdP's invalid_grant, and so does a made-up one", async () => {
      const sub = peer.account(unique('used'), { email: `${unique('used')}@example.test`, email_verified: true });
      const at = await codeForApp(t, peer, { headers: siteA.headers, account: sub });
      const body = { code: at.code, state: at.state, codeVerifier: at.verifier };
      expect((await t.post('/auth/oauth/idp/callback', body, siteA.headers)).status).toBe(200);
      const reused = await t.post('/auth/oauth/idp/callback', body, siteA.headers);
      expect(reused.status).toBe(400);
      expect(reused.body.message).toMatch(/^invalid_grant: /);

      const madeUp = await t.post('/auth/oauth/idp/callback', { ...body, code: 'x'.repeat(43) }, siteA.headers);
      expect(madeUp.status).toBe(400);
      expect(madeUp.body.message).toMatch(/^invalid_grant: /);
    });

    it('a confidential client logs in without PKCE; a verifier then is refused', async () => {
      const sub = peer.account(unique('conf'), { email: `${unique('conf')}@example.test`, email_verified: false });
      const at = await codeForApp(t, peer, { headers: siteA.headers, account: sub, pkce: false });
      expect(at.authorizationUrl.searchParams.has('code_challenge')).toBe(false);
      const extra = await t.post(
        '/auth/oauth/idp/callback',
        { code: at.code, state: at.state, codeVerifier: pkcePair().verifier },
        siteA.headers,
      );
      expect(extra.body.errors).toEqual([{ field: 'codeVerifier', message: 'codeVerifier was given but start got no codeChallenge' }]);
      const res = await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state }, siteA.headers);
      expect(res.status).toBe(200);
      expect(res.body.user.emailverified).toBe(false);
    });
  });

  describe('callback refusals', () => {
    it('code is required; the state must be one of ours, unaltered and current', async () => {
      const noCode = await t.post('/auth/oauth/idp/callback', { state: 'x' }, siteA.headers);
      expect(noCode.status).toBe(400);
      expect(noCode.body).toMatchObject({ status: 'Failed', message: 'code is required' });

      const sub = peer.account(unique('tamper'), { email: `${unique('tamper')}@example.test`, email_verified: true });
      const at = await codeForApp(t, peer, { headers: siteA.headers, account: sub });
      const flipped = at.state.slice(0, 20) + (at.state[20] === 'A' ? 'B' : 'A') + at.state.slice(21);
      const sealer = new IdpSealer(COOKIE_PASSWORD);
      const expired = sealer.seal('idp-state', { app: siteA.appId, tbl: 'core_customers', cs: null, n: 'n', pkce: false }, -1);
      const otherPurpose = sealer.seal('idp-app-ctx', { app: siteA.appId }, 600);
      const otherKey = new IdpSealer('another-cookie-password-0123456789abcdef').seal(
        'idp-state',
        { app: siteA.appId, tbl: 'core_customers', cs: null, n: 'n', pkce: false },
        600,
      );
      for (const state of [undefined, '', flipped, at.state.slice(0, -2), expired, otherPurpose, otherKey, 'not-a-state']) {
        const res = await t.post('/auth/oauth/idp/callback', { code: at.code, state, codeVerifier: at.verifier }, siteA.headers);
        expect(res.status).toBe(400);
        expect(res.body.message).toBe('Missing app context in OAuth state payload');
        expect(res.body.errors[0].field).toBe('state');
      }
      expect((await t.post('/auth/oauth/idp/callback', { code: at.code, state: expired }, siteA.headers)).body.errors[0].message).toMatch(
        /expired/,
      );
      // None of those spent the code.
      expect(
        (await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier }, siteA.headers)).status,
      ).toBe(200);
    });

    it('authTable must be allowed and the one of start; redirectUri must be the configured one', async () => {
      const sub = peer.account(unique('table'), { email: `${unique('table')}@example.test`, email_verified: true });
      const at = await codeForApp(t, peer, { headers: siteA.headers, account: sub, authTable: 'core_app_users' });
      const base = { code: at.code, state: at.state, codeVerifier: at.verifier };
      const denied = await t.post('/auth/oauth/idp/callback', { ...base, authTable: 'core_users' }, siteA.headers);
      expect(denied.body.message).toBe("OAuth login into authTable 'core_users' is not allowed by configuration.");
      const other = await t.post('/auth/oauth/idp/callback', { ...base, authTable: 'core_customers' }, siteA.headers);
      expect(other.body.errors).toEqual([{ field: 'authTable', message: 'authTable must be the one given to start (core_app_users)' }]);
      const redirect = await t.post(
        '/auth/oauth/idp/callback',
        { ...base, authTable: 'core_app_users', redirectUri: 'https://evil.test/' },
        siteA.headers,
      );
      expect(redirect.body.message).toBe(`redirectUri must match server configuration (${RELAY_URI})`);

      const res = await t.post('/auth/oauth/idp/callback', { ...base, authTable: 'core_app_users', redirectUri: RELAY_URI }, siteA.headers);
      expect(res.status).toBe(200);
      const appUsers = await t.dataSource.query('SELECT id FROM core_app_users WHERE app_id = $1 AND email = $2', [
        siteA.appId,
        peer.accounts.get(sub)!.email,
      ]);
      expect(appUsers).toHaveLength(1);
      expect(t.get(IdCipherService).decryptId(siteA.appId, res.body.user._id)).toBe(appUsers[0].id);
    });
  });

  describe('linking by email', () => {
    it('an unverified email never links: a new customer, without the email another customer holds', async () => {
      const email = `${unique('mallory')}@example.test`;
      const owner = await tenant({}, { core_customers: [{ email, password: 'Owner@1234', firstname: 'Owner' }] });
      const sub = peer.account(unique('unverified'), { email: email.toUpperCase(), email_verified: false, given_name: 'Mal' });
      const res = await ssoLogin(t, peer, { headers: owner.headers, account: sub });
      expect(res.status).toBe(200);
      const userId = t.get(IdCipherService).decryptId(owner.appId, res.body.user._id);
      expect(userId).not.toBe(owner.ids.core_customers[0]);
      expect(res.body.user.emailverified).toBe(false);
      const rows = await customers(owner.appId);
      expect(rows).toHaveLength(2);
      expect(rows.find((c: { id: number }) => c.id === owner.ids.core_customers[0])).toMatchObject({ email, firstname: 'Owner' });
      expect(rows.find((c: { id: number }) => c.id === userId)).toMatchObject({ email: null, firstname: 'Mal', emailverified: false });
      // The owner's password login is untouched.
      expect((await t.post('/auth/login', { email, password: 'Owner@1234', authTable: 'core_customers' }, owner.headers)).status).toBe(200);
    });

    it('a verified email links to the one customer of the app with it (case aside), who keeps their password', async () => {
      const email = `${unique('grace')}@example.test`;
      const owner = await tenant({}, { core_customers: [{ email, password: 'Grace@1234', firstname: 'Grace' }] });
      const sub = peer.account(unique('verified'), { email: email.toUpperCase(), email_verified: true, given_name: 'G' });
      const res = await ssoLogin(t, peer, { headers: owner.headers, account: sub });
      expect(res.status).toBe(200);
      expect(t.get(IdCipherService).decryptId(owner.appId, res.body.user._id)).toBe(owner.ids.core_customers[0]);
      expect(res.body.user).toMatchObject({ email, firstname: 'Grace' });
      expect(await customers(owner.appId)).toHaveLength(1);
      expect(await identities(owner.appId)).toEqual([
        {
          auth_table: 'core_customers',
          provider: 'idp',
          provider_user_id: sub,
          user_id: owner.ids.core_customers[0],
          email: email.toUpperCase(),
        },
      ]);
      expect((await t.post('/auth/login', { email, password: 'Grace@1234', authTable: 'core_customers' }, owner.headers)).status).toBe(200);
    });
  });

  describe('tenant isolation', () => {
    it("an identity of app A never logs into app B: B gets its own user; B's customer with the email is linked only in B", async () => {
      const email = `${unique('iso')}@example.test`;
      const b = await tenant({}, { core_customers: [{ email, password: 'Bee@12345', firstname: 'Bee' }] });
      const sub = peer.account(unique('iso'), { email, email_verified: true });
      const inA = await ssoLogin(t, peer, { headers: siteA.headers, account: sub });
      const inB = await ssoLogin(t, peer, { headers: b.headers, account: sub });
      expect(inA.status).toBe(200);
      expect(inB.status).toBe(200);
      const idA = t.get(IdCipherService).decryptId(siteA.appId, inA.body.user._id);
      expect(t.get(IdCipherService).decryptId(b.appId, inB.body.user._id)).toBe(b.ids.core_customers[0]);
      expect(idA).not.toBe(b.ids.core_customers[0]);
      // A's encrypted id means nothing in B.
      expect(t.get(IdCipherService).decryptId(b.appId, inA.body.user._id)).toBeNull();

      // A state of app A with B's site-id is refused; with no header it logs into A, never B.
      const at = await codeForApp(t, peer, { headers: siteA.headers, account: sub });
      const crossed = await t.post(
        '/auth/oauth/idp/callback',
        { code: at.code, state: at.state, codeVerifier: at.verifier },
        siteB.headers,
      );
      expect(crossed.status).toBe(400);
      expect(crossed.body.errors).toEqual([{ field: 'state', message: "state was issued for another app than this request's" }]);
      const plain = await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier });
      expect(plain.status).toBe(200);
      expect(t.get(IdCipherService).decryptId(siteA.appId, plain.body.user._id)).toBe(idA);
    });
  });

  describe('two first logins of one IdP account at once', () => {
    it.each([
      ['with an email', true],
      ['without an email', false],
    ])('%s create one user and one identity', async (_label, withEmail) => {
      const app = await tenant();
      const sub = peer.account(
        unique('race'),
        withEmail ? { email: `${unique('race')}@example.test`, email_verified: false } : { given_name: 'Noemail' },
      );
      // Four browsers (four IdP sessions), each with a fresh code for the same IdP account.
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push(await codeForApp(t, peer, { headers: app.headers, account: sub }));
      const answers = await Promise.all(
        codes.map((at) => t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier }, app.headers)),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect(new Set(answers.map((a) => a.body.user._id)).size).toBe(1);
      expect(await customers(app.appId)).toHaveLength(1);
      expect(await identities(app.appId)).toHaveLength(1);
      const versions = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_customers'`,
        [app.appId],
      );
      expect(versions[0].n).toBe(1);
    });
  });

  describe('logout', () => {
    it("builds the IdP's end-session URL; the IdP returns the browser through the logout relay to the app", async () => {
      const sub = peer.account(unique('bye'), { email: `${unique('bye')}@example.test`, email_verified: true });
      const browser = new PeerBrowser(peer);
      const at = await codeForApp(t, peer, { headers: siteA.headers, account: sub, browser });
      const login = await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier }, siteA.headers);
      const sessionId = login.body.user.sessionid;
      expect(sessionId).toEqual(expect.any(String));

      const res = await t.post('/auth/oauth/idp/logout', { sessionId, returnTo: '/goodbye?x=1' }, siteA.headers);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Signed out successfully' });
      const logoutUrl = new URL(res.body.logoutUrl);
      expect(logoutUrl.origin + logoutUrl.pathname).toBe(`${peer.issuer}/session/end`);
      expect(logoutUrl.searchParams.get('client_id')).toBe(CONFIDENTIAL.client_id);
      expect(logoutUrl.searchParams.get('post_logout_redirect_uri')).toBe(LOGOUT_RELAY_URI);
      expect(logoutUrl.searchParams.get('logout_hint')).toBe(sessionId);
      expect(logoutUrl.searchParams.get('state')).toEqual(expect.any(String));

      const back = await browser.logout(res.body.logoutUrl);
      expect(back.origin + back.pathname).toBe(LOGOUT_RELAY_URI);
      const page = await getAt(t, back);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(refreshTarget(page.body).href).toBe(`https://${siteA.domain}/goodbye?x=1`);

      // The IdP's session is gone: the next authorization asks for a login again.
      const next = await t.post('/auth/oauth/idp/start', {}, siteA.headers);
      const again = await fetch(next.body.authorizationUrl, { redirect: 'manual' });
      expect(new URL(again.headers.get('location')!, peer.issuer).pathname).toMatch(/^\/interaction\//);
    });

    it("the app's logout URL wins over returnTo; without returnTo it is /index.html on the app's domain", async () => {
      const configured = await tenant({ idp_app_logout_url: '/signed-out', auth_logout_url: 'https://elsewhere.example.test/x' });
      const first = await t.post(
        '/auth/oauth/idp/logout',
        { sessionId: 's1', returnTo: `https://${configured.domain}/ignored` },
        configured.headers,
      );
      const state = new URL(first.body.logoutUrl).searchParams.get('state')!;
      expect(refreshTarget((await getAt(t, `${LOGOUT_RELAY_URI}?state=${state}`)).body).href).toBe(
        `https://${configured.domain}/signed-out`,
      );

      const fallback = await tenant({ auth_logout_url: 'https://elsewhere.example.test/x' });
      const second = await t.post('/auth/oauth/idp/logout', { sessionId: 's1' }, fallback.headers);
      const state2 = new URL(second.body.logoutUrl).searchParams.get('state')!;
      expect(refreshTarget((await getAt(t, `${LOGOUT_RELAY_URI}?state=${state2}`)).body).href).toBe('https://elsewhere.example.test/x');

      const plain = await t.post('/auth/oauth/idp/logout', { sessionId: 's1' }, siteB.headers);
      const state3 = new URL(plain.body.logoutUrl).searchParams.get('state')!;
      // The state also works as a path segment.
      expect(refreshTarget((await getAt(t, `${LOGOUT_RELAY_URI}/${state3}`)).body).href).toBe(`https://${siteB.domain}/index.html`);
    });

    it('without a state the idp_app_ctx cookie of the login relay names the app; with neither it is refused', async () => {
      const sub = peer.account(unique('cookie'), { email: `${unique('cookie')}@example.test`, email_verified: true });
      const at = await codeForApp(t, peer, { headers: siteB.headers, account: sub });
      const setCookie = String(at.relay.headers['set-cookie']);
      const cookie = setCookie.split(';')[0];
      expect(cookie).toMatch(/^idp_app_ctx=[A-Za-z0-9_-]+$/);

      const withCookie = await getAt(t, LOGOUT_RELAY_URI, { cookie: `other=1; ${cookie}` });
      expect(withCookie.status).toBe(200);
      expect(refreshTarget(withCookie.body).href).toBe(`https://${siteB.domain}/index.html`);

      const none = await getAt(t, LOGOUT_RELAY_URI);
      expect(none.status).toBe(400);
      expect(none.body).toMatchObject({ status: 'Failed', message: 'Invalid or missing OAuth logout state' });
      const forged = await getAt(t, LOGOUT_RELAY_URI, { cookie: 'idp_app_ctx=forged' });
      expect(forged.body.message).toBe('Invalid or missing OAuth logout state');
      const badState = await getAt(t, `${LOGOUT_RELAY_URI}?state=forged`, { cookie });
      expect(badState.body.message).toBe('Invalid or missing OAuth logout state');
    });

    it('sessionId is required; returnTo must be on the app', async () => {
      const missing = await t.post('/auth/oauth/idp/logout', {}, siteA.headers);
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ status: 'Failed', message: 'sessionId is required' });
      for (const returnTo of [
        'https://evil.test/',
        '//evil.test/x',
        '/\\evil.test',
        'javascript:alert(1)',
        `https://${siteA.domain}.evil.test/`,
        `https://user@${siteA.domain}/`,
      ]) {
        const res = await t.post('/auth/oauth/idp/logout', { sessionId: 's', returnTo }, siteA.headers);
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([
          { field: 'returnTo', message: `returnTo must be a path or a URL on the app's domain (${siteA.domain})` },
        ]);
      }
    });
  });
});
