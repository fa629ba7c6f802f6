import { Client } from 'pg';
import { parseResponses, rawConnection } from '../support/raw-http';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

describe('health and OpenAPI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers liveness and readiness without a tenant', async () => {
    const live = await t.request('GET', '/health');
    expect(live.status).toBe(200);
    expect(live.body.status).toBe('Success');
    const ready = await t.request('GET', '/health/ready');
    expect(ready.body).toEqual({ status: 'Success', database: 'up' });
  });

  it('serves the OpenAPI document generated from the controllers, and Swagger UI', async () => {
    const doc = await t.request('GET', '/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/getApp', '/getApp/{domain}', '/health', '/health/ready']));
    const ui = await t.request('GET', '/docs');
    expect(ui.status).toBe(200);
    expect(String(ui.body)).toMatch(/swagger/i);
  });
});

describe('readiness with the database gone', () => {
  it('answers 503 in the failure envelope', async () => {
    const t = await startTestApp();
    await t.dataSource.destroy();
    try {
      const res = await t.request('GET', '/health/ready');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'Failed', message: 'Database unavailable' });
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});

describe('graceful shutdown', () => {
  /** A listening app whose requests for the tenant wait inside the database (core_sites locked) until `unblock`. */
  async function listeningAppWithLockedSites() {
    const t = await startTestApp();
    const appId = (await t.seed({ site: siteFixture() })).appID;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.getHttpServer().address() as { port: number };
    const blocker = new Client({ connectionString: t.database.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE core_sites IN ACCESS EXCLUSIVE MODE');
    const unblock = async () => {
      await blocker.query('COMMIT');
      await blocker.end();
    };
    return { t, appId, address, unblock };
  }

  it('finishes a request in flight before closing', async () => {
    const { t, appId, address, unblock } = await listeningAppWithLockedSites();
    const inFlight = fetch(`http://127.0.0.1:${address.port}/getApp`, { method: 'POST', headers: { 'site-id': String(appId) } });
    await new Promise((r) => setTimeout(r, 200));

    let closed = false;
    const closing = t.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(closed).toBe(false);
    await unblock();

    const res = await inFlight;
    expect(res.status).toBe(200);
    await closing;
    expect(closed).toBe(true);
  });

  it('answers a request that arrives while closing with 503 in the failure envelope', async () => {
    const { t, appId, address, unblock } = await listeningAppWithLockedSites();
    // A keep-alive connection busy with a request stays open while the server closes: the next request on it
    // reaches the application while it shuts down.
    const { socket, closed } = rawConnection(address.port);
    socket.write(`POST /getApp HTTP/1.1\r\nHost: localhost\r\nsite-id: ${appId}\r\nContent-Length: 0\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 200));
    const closing = t.close();
    await new Promise((r) => setTimeout(r, 200));
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    await unblock();

    const [inFlight, late] = parseResponses(await closed);
    expect(inFlight.status).toBe(200);
    expect(late.status).toBe(503);
    expect(late.body).toEqual({ status: 'Failed', message: 'Service is shutting down' });
    expect(late.headers.connection).toBe('close');
    await closing;
  });
});
