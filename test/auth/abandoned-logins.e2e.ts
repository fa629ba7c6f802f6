import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { PasswordHasherService } from '../../src/auth/password/password-hasher.service';
import { parseResponses, rawConnection } from '../support/raw-http';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

const USER = { email: 'flood@example.test', password: 'Flood@1234' };

/**
 * A login whose client closed its connection before a bcrypt thread took its check costs no bcrypt
 * (RequestContext.clientGone, BcryptPool): under a flood, clients that time out would otherwise cost the
 * cores as much as the ones served. Over real connections, with the pool's threads (one per core) busy.
 */
describe('logins whose clients left', () => {
  let t: TestApp;
  let port: number;
  let appId: number;

  beforeAll(async () => {
    // Cost 12: a check takes a few hundred milliseconds, so none finishes while the test's clients wait.
    t = await startTestApp({ BCRYPT_COST: '12', AUTH_LOGIN_MAX_PER_ACCOUNT: '1000' });
    appId = (await t.seed({ site: siteFixture(), tables: { core_users: [{ user_email: USER.email, password: USER.password }] } })).appID;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => t.close());

  const loginRequest = (password: string) => {
    const body = JSON.stringify({ email: USER.email, password });
    return `POST /auth/login HTTP/1.1\r\nHost: localhost\r\nsite-id: ${appId}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  };

  /** The bcrypt threads' pool of the service (its tasks queued and completed; read, never driven, by this test). */
  const checks = () => (t.get(PasswordHasherService) as unknown as { bcrypt: { pool: Piscina } }).bcrypt.pool;

  async function skippedChecks(): Promise<number> {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(/^password_checks_skipped_total (\S+)$/m.exec(text)?.[1]);
  }

  it('skips the checks still waiting for a thread, counts them, and goes on serving', async () => {
    const threads = availableParallelism();
    const abandoned = threads + 6; // at most `threads` checks can have started
    const before = await skippedChecks();
    const completedBefore = checks().completed;
    const clients = Array.from({ length: abandoned }, (_, i) => {
      const client = rawConnection(port);
      client.socket.write(loginRequest(i % 2 === 0 ? USER.password : 'Wrong@1234'));
      return client;
    });
    // Every login has reached the pool: the checks beyond the running ones wait for a thread.
    await waitFor(() => checks().queueSize + checks().completed - completedBefore >= abandoned - threads, 10_000, 'the checks to queue');
    for (const { socket } of clients) socket.destroy();
    // A login answered before its client left was checked, and so was one running then; every other was skipped.
    const answered = (await Promise.all(clients.map((c) => c.closed))).filter((text) => parseResponses(text).length > 0).length;
    const mustSkip = abandoned - answered - threads;
    expect(mustSkip).toBeGreaterThan(0); // else this test proves nothing: the checks were faster than the clients
    await waitFor(async () => (await skippedChecks()) - before >= mustSkip);

    // The checks that ran end with nobody to answer; the service goes on serving logins.
    const login = await t.post('/auth/login', USER, { 'site-id': String(appId) });
    expect(login.status).toBe(200);
    expect(login.body.token.access_token).toEqual(expect.any(String));
    expect((await skippedChecks()) - before).toBeLessThanOrEqual(abandoned);
  });
});
