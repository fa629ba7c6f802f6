import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { IdCipher } from '../../src/common/id-cipher.service';
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
      t = await startTestApp(ssoEnv(peer));
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
  });

  describe('a public client (no IDP_API_KEY)', () => {
    let peer: OidcPeer;
    let t: TestApp;
    beforeAll(async () => {
      peer = await OidcPeer.start({ clients: [PUBLIC] });
      peer.trustInProcess();
      t = await startTestApp(ssoEnv(peer, { IDP_CLIENT_ID: PUBLIC.client_id, IDP_API_KEY: '', IDP_REDIRECT_URI: RELAY_URI }));
    });
    afterAll(async () => {
      await t?.close();
      await peer?.close();
    });

    it('must use PKCE, and logs in with it', async () => {
      const app = await tenant(t);
      const without = await t.post('/auth/oauth/idp/start', {}, app.headers);
      expect(without.status).toBe(400);
      expect(without.body.errors).toEqual([{ field: 'codeChallenge', message: 'codeChallenge is required: this service is a public client of the identity provider (PKCE)' }]);

      const sub = peer.account('public-user', { email: 'public@example.test', email_verified: true });
      const res = await ssoLogin(t, peer, { headers: app.headers, account: sub });
      expect(res.status).toBe(200);
      expect(t.get(IdCipher).decryptId(app.appId, res.body.user._id)).toEqual(expect.any(Number));
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
      run(process.execPath, ['-e', `require('openid-client').discovery(new URL(process.argv[1]), 'x').then((c) => console.log(c.serverMetadata().issuer), (e) => { console.log('failed:', e.cause?.code ?? e.message); process.exit(2); })`, peer.issuer], {
        env: { PATH: process.env.PATH ?? '', ...env },
        cwd: process.cwd(),
      });

    it('is trusted through NODE_EXTRA_CA_CERTS', async () => {
      const trusted = await discover({ NODE_EXTRA_CA_CERTS: peer.caFile });
      expect(trusted.stdout.trim()).toBe(peer.issuer);
      await expect(discover({})).rejects.toMatchObject({ code: 2, stdout: expect.stringMatching(/failed: (SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE)/) });
    });
  });
});
