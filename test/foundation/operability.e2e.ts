import { connect } from 'node:net';
import { Client } from 'pg';
import { SMTPServer } from 'smtp-server';
import { freePort } from '../messaging/support/smtp-peer';
import { waitFor } from '../support/wait';
import { parseResponses, rawConnection, rawRequest } from '../support/raw-http';
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
    /** Until a request of the app waits for the lock on core_sites. */
    const requestWaiting = () =>
      waitFor(
        async () =>
          (
            await blocker.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
            )
          ).rows.length > 0,
        5000,
        'a request waiting for the lock',
      );
    return { t, appId, address, unblock, requestWaiting };
  }

  /** Whether a new connection to `port` is refused (the server has stopped listening: it is closing). */
  const refused = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });

  it('finishes a request in flight before closing', async () => {
    const { t, appId, address, unblock, requestWaiting } = await listeningAppWithLockedSites();
    const inFlight = fetch(`http://127.0.0.1:${address.port}/getApp`, { method: 'POST', headers: { 'site-id': String(appId) } });
    await requestWaiting();

    let closed = false;
    const closing = t.close().then(() => (closed = true));
    await waitFor(() => refused(address.port), 5000, 'the server to stop listening'); // closing, waiting for the request
    expect(closed).toBe(false);
    await unblock();

    const res = await inFlight;
    expect(res.status).toBe(200);
    await closing;
    expect(closed).toBe(true);
  });

  it('answers a request that arrives while closing with 503 in the failure envelope', async () => {
    const { t, appId, address, unblock, requestWaiting } = await listeningAppWithLockedSites();
    let lateArrived = false;
    t.app.getHttpServer().on('request', (req: { url?: string }) => (lateArrived ||= req.url === '/health'));
    // A keep-alive connection busy with a request stays open while the server closes: the next request on it
    // reaches the application while it shuts down.
    const { socket, closed } = rawConnection(address.port);
    socket.write(`POST /getApp HTTP/1.1\r\nHost: localhost\r\nsite-id: ${appId}\r\nContent-Length: 0\r\n\r\n`);
    await requestWaiting();
    const closing = t.close();
    await waitFor(() => refused(address.port), 5000, 'the server to stop listening');
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await waitFor(() => lateArrived, 5000, 'the late request to reach the server');
    await unblock();

    const [inFlight, late] = parseResponses(await closed);
    expect(inFlight.status).toBe(200);
    expect(late.status).toBe(503);
    expect(late.body).toEqual({ status: 'Failed', message: 'Service is shutting down' });
    expect(late.headers.connection).toBe('close');
    expect(late.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await closing;
  });
});

describe('graceful shutdown with background work in flight', () => {
  /** Whether `closing` is still pending after `ms`. */
  async function stillClosing(closing: Promise<unknown>, ms = 300): Promise<boolean> {
    let done = false;
    void closing.then(
      () => (done = true),
      () => (done = true),
    );
    await new Promise((r) => setTimeout(r, ms));
    return !done;
  }

  it('waits for the notification sender round in flight: its mail is sent and its row settled', async () => {
    // An SMTP server that takes the message and answers only when released.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let receiving = false;
    const smtp = new SMTPServer({
      authOptional: true,
      disableReverseLookup: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, _session, callback) => {
        receiving = true;
        stream.resume();
        stream.on('end', () => void released.then(() => callback()));
      },
    });
    const smtpPort = await freePort();
    await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
    const owner = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false' });
    try {
      const appId = (
        await owner.seed({
          site: siteFixture(),
          tables: { core_notifications: [{ event: 'welcome', subject: 'Hi', content: '<p>Hi</p>' }] },
        })
      ).appID;
      const sender = await startTestApp(
        { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, NOTIFY_SENDER_ENABLED: 'true', NOTIFY_POLL_INTERVAL_MS: '50' },
        owner.database,
      );
      const res = await sender.post(
        '/message/notification',
        { event: 'welcome', email: 'cust@example.test' },
        { 'site-id': String(appId) },
      );
      expect(res.body).toEqual({ status: 'Success' });
      await waitFor(() => receiving);

      const closing = sender.close();
      expect(await stillClosing(closing)).toBe(true);
      release();
      await closing;
      const rows = await owner.dataSource.query(`SELECT status, attempts, claim_token FROM core_notification_log WHERE app_id = $1`, [
        appId,
      ]);
      expect(rows).toEqual([{ status: 'Sent', attempts: 1, claim_token: null }]);
    } finally {
      release();
      await owner.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  it('waits for the content expiry tick in flight: the versions it expires are committed', async () => {
    const owner = await startTestApp({ CONTENT_EXPIRY_TICK_MS: '0' });
    const blocker = new Client({ connectionString: owner.database.url });
    try {
      const seeded = await owner.seed({
        site: siteFixture(),
        tables: { core_products: [{ title: 'Expiring', price: 100, tax: 0, bond: 0, IsDigital: 0, IsEvent: 0, meta_status: 'Published' }] },
      });
      const masterId = seeded.ids.core_products[0];
      const ticking = await startTestApp({ CONTENT_EXPIRY_TICK_MS: '50' }, owner.database);
      // The next tick waits inside its UPDATE for core_data, which the blocker holds while it makes the version due.
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE core_data IN ACCESS EXCLUSIVE MODE');
      await blocker.query(
        `UPDATE core_data SET "Publish_Expire_Date" = now() - interval '1 minute' WHERE "Master_ID" = $1 AND "Published" = 1`,
        [masterId],
      );
      await waitFor(async () => {
        const [{ waiting }] = await owner.dataSource.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE "core_data"%'`,
        );
        return waiting > 0;
      });

      const closing = ticking.close();
      expect(await stillClosing(closing)).toBe(true);
      await blocker.query('COMMIT');
      await closing;
      const versions = await owner.dataSource.query(
        `SELECT "Status", "Published" FROM core_data WHERE "Master_ID" = $1 AND "IsCurrent" = 1`,
        [masterId],
      );
      expect(versions).toEqual([{ Status: 'Expired', Published: 0 }]);
    } finally {
      await blocker.end().catch(() => undefined);
      await owner.close();
    }
  });
});

describe('request id on every answer', () => {
  const LIMIT = 2;
  let t: TestApp;
  let port: number;
  let site: Record<string, string>;
  let addresses = 0;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX_REQUESTS: String(LIMIT) });
    site = { 'site-id': String((await t.seed({ site: siteFixture() })).appID) };
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => t.close());

  /** One request from its own client address (the rate limit counts per address), with or without an incoming id. */
  const send = (method: string, url: string, payload?: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: method as 'GET',
      url,
      payload,
      headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers },
      remoteAddress: `10.1.0.${++addresses}`,
    });

  it('returns the incoming x-request-id, or a generated one, with successes and every kind of error', async () => {
    const answers: [string, number, (id: Record<string, string>) => ReturnType<typeof send>][] = [
      ['success', 200, (id) => send('POST', '/getApp', '{}', { ...site, ...id })],
      ['liveness', 200, (id) => send('GET', '/health', undefined, id)],
      ['metrics', 200, (id) => send('GET', '/metrics', undefined, id)],
      [
        'CORS preflight',
        204,
        (id) =>
          send('OPTIONS', '/getApp', undefined, { origin: 'https://shop.example.test', 'access-control-request-method': 'POST', ...id }),
      ],
      ['malformed JSON', 400, (id) => send('POST', '/getApp', '{"a":', { ...site, ...id })],
      ['forbidden property', 400, (id) => send('POST', '/getApp', '{"__proto__":{}}', { ...site, ...id })],
      ['validation', 400, (id) => send('POST', '/message/notification', '{"event": 7}', { ...site, ...id })],
      ['missing credentials', 401, (id) => send('POST', '/message/notification', '{}', id)],
      ['no route', 404, (id) => send('GET', '/no/such/route', undefined, id)],
      ["a route's own 404", 404, (id) => send('POST', '/getApp/nowhere.example.test', '{}', id)],
      ['wrong method', 405, (id) => send('DELETE', '/health', undefined, id)],
      ['body too large', 413, (id) => send('POST', '/getApp', JSON.stringify({ pad: 'x'.repeat(20_000) }), { ...site, ...id })],
      ['URL too long', 414, (id) => send('GET', `/health?${'a'.repeat(9000)}`, undefined, id)],
      ['not JSON', 415, (id) => send('POST', '/getApp', 'a=1', { ...site, 'content-type': 'application/x-www-form-urlencoded', ...id })],
    ];
    for (const [what, status, answer] of answers) {
      const generated = await answer({});
      expect({ what, status: generated.statusCode, id: generated.headers['x-request-id'] }).toEqual({
        what,
        status,
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      const id = `trace-${what.replace(/\W+/g, '-')}`;
      const traced = await answer({ 'x-request-id': id });
      expect({ what, status: traced.statusCode, id: traced.headers['x-request-id'] }).toEqual({ what, status, id });
    }
  });

  it('on a 429 from the rate limit and on the generic 500', async () => {
    let limited;
    for (let i = 0; i <= LIMIT; i++)
      limited = await t.app.inject({
        method: 'POST',
        url: '/getApp',
        headers: { ...site, 'x-request-id': `limited-${i}` },
        remoteAddress: '10.2.0.1',
      });
    expect(limited!.statusCode).toBe(429);
    expect(limited!.headers['x-request-id']).toBe(`limited-${LIMIT}`);

    await t.dataSource.query(`ALTER TABLE core_sites RENAME TO core_sites_gone`);
    try {
      const res = await send('POST', '/getApp', '{}', { ...site, 'x-request-id': 'broken-1' });
      expect(res.statusCode).toBe(500);
      expect(res.headers['x-request-id']).toBe('broken-1');
    } finally {
      await t.dataSource.query(`ALTER TABLE core_sites_gone RENAME TO core_sites`);
    }
  });

  it('on answers written before any route runs, on a real socket', async () => {
    const head = (path: string, extra = '') =>
      rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}Connection: close\r\n\r\n`);
    const answers: [string, number, () => Promise<{ status: number; headers: Record<string, string> }>][] = [
      ['malformed URL', 400, () => rawRequest(port, 'POST /getApp/%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')],
      ['URL too long for the parser', 414, () => head(`/health?${'a'.repeat(20_000)}`)],
      ['headers too large', 431, () => head('/health', `X-Padding: ${'b'.repeat(20_000)}\r\n`)],
      ['not HTTP', 400, () => rawRequest(port, 'HELLO\r\n\r\n')],
    ];
    for (const [what, status, answer] of answers) {
      const res = await answer();
      expect({ what, status: res.status, id: res.headers['x-request-id'] }).toEqual({
        what,
        status,
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
    }
  });
});
