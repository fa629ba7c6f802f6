import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { IdCipherService } from '../../src/common/id-cipher.service';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { OidcPeer } from './support/oidc-peer';
import { codeForApp, CONFIDENTIAL, PUBLIC, RELAY_URI, ssoEnv, ssoLogin } from './support/sso-helpers';

const run = promisify(execFile);
const UNAVAILABLE = 'Identity provider unavailable: try again later';
const NOT_CONFIGURED = 'Identity provider clientId (IDP_CLIENT_ID) is not configured';

async function tenant(t: TestApp) {
  const seeded = await t.seed({ site: siteFixture(), tables: {} });
  return { appId: seeded.appID, headers: { 'site-id': String(seeded.appID) } };
}

describe('SSO availability and configuration', () => {
  it('refuses to start when IDP_ALLOWED_AUTH_TABLES names a table that is not a user table', async () => {
    await expect(startTestApp({ IDP_ALLOWED_AUTH_TABLES: 'core_customers,pg_authid' })).rejects.toThrow(
      /IDP_ALLOWED_AUTH_TABLES names unknown tables \(pg_authid\); allowed: core_users, core_customers, core_app_users/,
    );
  });

  describe('without IDP_CLIENT_ID', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t?.close());

    it('the SSO routes answer that the IdP is not configured; the relays find no state of ours', async () => {
      const app = await tenant(t);
      for (const [path, body] of [
        ['/auth/oauth/idp/start', {}],
        ['/auth/oauth/idp/callback', { code: 'c', state: 's' }],
        ['/auth/oauth/idp/logout', { sessionId: 's' }],
      ] as const) {
        const res = await t.post(path, body, app.headers);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ status: 'Failed', message: NOT_CONFIGURED });
      }
      expect((await t.request('GET', '/auth/oauth/idp/redirect?code=c&state=s')).body.message).toBe('Invalid or missing OAuth state');
      expect((await t.request('GET', '/auth/oauth/idp/logout/redirect')).body.message).toBe('Invalid or missing OAuth logout state');
    });

    it('every SSO route is in the OpenAPI document with its summary and answers', async () => {
      const doc = (await t.request('GET', '/docs/openapi.json')).body;
      const routes: [string, string, string[]][] = [
        ['/auth/oauth/idp/start', 'post', ['200', '400', '503']],
        ['/auth/oauth/idp/callback', 'post', ['200', '400', '500', '503']],
        ['/auth/oauth/idp/logout', 'post', ['200', '400', '503']],
        ['/auth/oauth/idp/redirect', 'get', ['200', '400']],
        ['/auth/oauth/idp/callback', 'get', ['200', '400']],
        ['/auth/oauth/idp/logout/redirect', 'get', ['200', '400']],
        ['/auth/oauth/idp/logout/redirect/{state}', 'get', ['200', '400']],
      ];
      for (const [path, method, statuses] of routes) {
        const operation = doc.paths[path]?.[method];
        expect(operation?.summary).toEqual(expect.any(String));
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(statuses));
      }
      const start = doc.components.schemas.IdpStartRequest.properties;
      expect(Object.keys(start).sort()).toEqual([
        'appID',
        'authTable',
        'codeChallenge',
        'codeChallengeMethod',
        'flow',
        'redirectUri',
        'state',
      ]);
      expect(Object.keys(doc.components.schemas.IdpCallbackRequest.properties).sort()).toEqual([
        'authTable',
        'code',
        'codeVerifier',
        'redirectUri',
        'state',
      ]);
      expect(Object.keys(doc.components.schemas.IdpLogoutRequest.properties).sort()).toEqual(['appID', 'returnTo', 'sessionId']);
    });
  });

  describe('an IdP that is down', () => {
    let peer: OidcPeer;
    let t: TestApp;
    beforeAll(async () => {
      // This IdP keeps the email in UserInfo (oidc-provider's default): the service reads it there.
      peer = await OidcPeer.start({ clients: [CONFIDENTIAL], conformIdTokenClaims: true });
      peer.trustInProcess();
      await peer.stop();
    });
    afterAll(async () => {
      await t?.close();
      await peer?.close();
    });

    it('does not stop the service from starting: other routes work, the SSO routes answer 503, until the IdP is back', async () => {
      t = await startTestApp(ssoEnv(peer, { IDP_TIMEOUT_MS: '500' }));
      const app = await tenant(t);
      expect((await t.request('GET', '/health')).status).toBe(200);
      expect((await t.post('/getApp', {}, app.headers)).status).toBe(200);

      for (const [path, body] of [
        ['/auth/oauth/idp/start', {}],
        ['/auth/oauth/idp/logout', { sessionId: 's' }],
      ] as const) {
        const res = await t.post(path, body, app.headers);
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ status: 'Failed', message: UNAVAILABLE });
      }

      await peer.resume();
      const start = await t.post('/auth/oauth/idp/start', {}, app.headers);
      expect(start.status).toBe(200);
      expect(new URL(start.body.authorizationUrl).origin).toBe(peer.issuer);

      const sub = peer.account('down-then-up', { email: 'back@example.test', email_verified: true, given_name: 'Back' });
      const login = await ssoLogin(t, peer, { headers: app.headers, account: sub });
      expect(login.status).toBe(200);
      expect(login.body.user).toMatchObject({ email: 'back@example.test', emailverified: true, firstname: 'Back' });
    });

    it('keeps the discovery: start works while the IdP is down again; the code exchange answers 503 and works once it is back', async () => {
      const app = await tenant(t);
      const sub = peer.account('flaky', { email: 'flaky@example.test', email_verified: true });
      const at = await codeForApp(t, peer, { headers: app.headers, account: sub });
      await peer.stop();
      try {
        expect((await t.post('/auth/oauth/idp/start', {}, app.headers)).status).toBe(200);
        const res = await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier }, app.headers);
        expect(res.body).toEqual({ status: 'Failed', message: UNAVAILABLE });
        expect(res.status).toBe(503);
      } finally {
        await peer.resume();
      }
      const res = await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier }, app.headers);
      expect(res.status).toBe(200);
      expect(res.body.user.email).toBe('flaky@example.test');
    });

    it('answers 503 when the IdP does not answer the code exchange within IDP_TIMEOUT_MS', async () => {
      const app = await tenant(t);
      const sub = peer.account('slow', { email: 'slow@example.test', email_verified: true });
      const at = await codeForApp(t, peer, { headers: app.headers, account: sub });
      peer.tokenDelayMs = 1500;
      try {
        const began = Date.now();
        const res = await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier }, app.headers);
        expect(res.body).toEqual({ status: 'Failed', message: UNAVAILABLE });
        expect(res.status).toBe(503);
        expect(Date.now() - began).toBeLessThan(1400);
      } finally {
        peer.tokenDelayMs = 0;
        await peer.settled();
      }
      // The IdP never saw the exchange: the code still works.
      expect(
        (await t.post('/auth/oauth/idp/callback', { code: at.code, state: at.state, codeVerifier: at.verifier }, app.headers)).status,
      ).toBe(200);
    });
  });

  describe('a public client (no IDP_API_KEY)', () => {
    let peer: OidcPeer;
    let t: TestApp;
    beforeAll(async () => {
      peer = await OidcPeer.start({ clients: [PUBLIC] });
      peer.trustInProcess();
      t = await startTestApp(
        ssoEnv(peer, {
          IDP_CLIENT_ID: PUBLIC.client_id,
          IDP_API_KEY: '',
          IDP_REDIRECT_URI: RELAY_URI,
          IDP_ALLOWED_AUTH_TABLES: 'core_customers,core_users',
        }),
      );
    });
    afterAll(async () => {
      await t?.close();
      await peer?.close();
    });

    it('must use PKCE, and logs in with it', async () => {
      const app = await tenant(t);
      const without = await t.post('/auth/oauth/idp/start', {}, app.headers);
      expect(without.status).toBe(400);
      expect(without.body.errors).toEqual([
        { field: 'codeChallenge', message: 'codeChallenge is required: this service is a public client of the identity provider (PKCE)' },
      ]);

      const sub = peer.account('public-user', { email: 'public@example.test', email_verified: true });
      const res = await ssoLogin(t, peer, { headers: app.headers, account: sub });
      expect(res.status).toBe(200);
      expect(t.get(IdCipherService).decryptId(app.appId, res.body.user._id)).toEqual(expect.any(Number));
    });

    it('admin SSO into core_users when configured: a verified email logs into the admin (role kept); another email needs a free one', async () => {
      const seeded = await t.seed({
        site: siteFixture(),
        tables: {
          core_users: [
            { user_email: 'root@example.test', password: 'Root@12345', primary_role: 'admin' },
            { user_email: 'taken@example.test', password: 'Taken@1234' },
          ],
        },
      });
      const headers = { 'site-id': String(seeded.appID) };
      const admin = peer.account('admin-sso', { email: 'ROOT@example.test', email_verified: true });
      const res = await ssoLogin(t, peer, { headers, account: admin, authTable: 'core_users' });
      expect(res.status).toBe(200);
      expect(t.get(IdCipherService).decryptId(seeded.appID, res.body.user._id)).toBe(seeded.ids.core_users[0]);
      expect(res.body.user).toMatchObject({ email: 'root@example.test', emailverified: false, displayname: null, photourl: null });
      const claims = JSON.parse(Buffer.from(res.body.token.access_token.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({ app: seeded.appID, tbl: 'core_users', role: 'admin' });

      const newcomer = peer.account('new-admin-user', { email: 'new-user@example.test', email_verified: false });
      const created = await ssoLogin(t, peer, { headers, account: newcomer, authTable: 'core_users' });
      expect(created.status).toBe(200);
      const [row] = await t.dataSource.query('SELECT user_email, password, primary_role FROM core_users WHERE id = $1', [
        t.get(IdCipherService).decryptId(seeded.appID, created.body.user._id),
      ]);
      expect(row).toEqual({ user_email: 'new-user@example.test', password: null, primary_role: 'user' });

      const squatter = peer.account('squatter', { email: 'taken@example.test', email_verified: false });
      const refused = await ssoLogin(t, peer, { headers, account: squatter, authTable: 'core_users' });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toBe('The identity provider gave no email address that can be used for a new account of this table');
      expect(
        await t.dataSource.query('SELECT 1 FROM core_identities WHERE app_id = $1 AND provider_user_id = $2', [seeded.appID, 'squatter']),
      ).toHaveLength(0);
    });
  });

  describe('an IdP with a private CA', () => {
    let peer: OidcPeer;
    beforeAll(async () => {
      peer = await OidcPeer.start({ clients: [CONFIDENTIAL] });
    });
    afterAll(() => peer?.close());

    // What the README tells operators: a process started with NODE_EXTRA_CA_CERTS trusts the IdP; without it, discovery fails on TLS.
    const discover = (env: Record<string, string>) =>
      run(
        process.execPath,
        [
          '-e',
          `require('openid-client').discovery(new URL(process.argv[1]), 'x').then((c) => console.log(c.serverMetadata().issuer), (e) => { console.log('failed:', e.cause?.code ?? e.message); process.exit(2); })`,
          peer.issuer,
        ],
        {
          env: { PATH: process.env.PATH ?? '', ...env },
          cwd: process.cwd(),
        },
      );

    it('is trusted through NODE_EXTRA_CA_CERTS', async () => {
      const trusted = await discover({ NODE_EXTRA_CA_CERTS: peer.caFile });
      expect(trusted.stdout.trim()).toBe(peer.issuer);
      await expect(discover({})).rejects.toMatchObject({
        code: 2,
        stdout: expect.stringMatching(/failed: (SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE)/),
      });
    });
  });
});
