import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

const LIMIT = { RATE_LIMIT_MAX_REQUESTS: '3', RATE_LIMIT_WINDOW_MS: '60000' };
/** Generous: the point is that no request waits seconds for an unreachable Redis. */
const FAST_MS = 500;
const REDIS = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

/** POSTs /getApp n times for the tenant; the statuses, and checks each answered fast. */
async function hits(t: TestApp, appId: number, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await t.app.inject({
      method: 'POST',
      url: '/getApp',
      headers: { 'site-id': String(appId), 'content-type': 'application/json' },
      payload: '{}',
      remoteAddress: '203.0.113.5',
    });
    expect(performance.now() - started).toBeLessThan(FAST_MS);
    statuses.push(res.statusCode);
  }
  return statuses;
}

/**
 * A TCP relay in front of the real Redis that the test can take away (connections dropped, port closed),
 * freeze (connections open, nothing answered) and bring back on the same port.
 */
class RedisRelay {
  private server: Server | null = null;
  private readonly pairs = new Set<[Socket, Socket]>();
  private frozen = false;
  port = 0;

  async up(): Promise<void> {
    this.frozen = false;
    const server = createServer((client) => {
      const upstream = connect(Number(REDIS.port || 6379), REDIS.hostname);
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      if (!this.frozen) client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Redis stops answering: connections stay open, nothing is relayed. */
  freeze(): void {
    this.frozen = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
    }
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

/** The limiter's log lines about where it counts (one per switch). */
function storeSwitches(spy: jest.SpyInstance): string[] {
  return spy.mock.calls
    .filter(([fields]) => (fields as { event?: string })?.event === 'rate_limit_store')
    .map(([fields]) => (fields as { store: string }).store);
}

let warn: jest.SpyInstance;
let log: jest.SpyInstance;
let consoleError: jest.SpyInstance;

beforeEach(() => {
  warn = jest.spyOn(Logger.prototype, 'warn');
  log = jest.spyOn(Logger.prototype, 'log');
  consoleError = jest.spyOn(console, 'error');
});
afterEach(() => {
  // ioredis prints its unhandled errors there, as plain text
  expect(consoleError).not.toHaveBeenCalled();
  jest.restoreAllMocks();
});

describe('rate limits with REDIS_URL where nothing listens', () => {
  let t: TestApp;
  let closedPort: number;

  beforeAll(async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
  });
  afterAll(() => t?.close());

  it('starts without waiting, answers fast, still enforces the limit in process, and says so once', async () => {
    const started = Date.now();
    t = await startTestApp({ ...LIMIT, REDIS_URL: `redis://127.0.0.1:${closedPort}` });
    expect(Date.now() - started).toBeLessThan(5000);
    const appId = (await t.seed({ site: siteFixture() })).appID;
    expect(await hits(t, appId, 4)).toEqual([200, 200, 200, 429]);

    const login = await t.seed({ site: siteFixture(), tables: { core_users: [{ user_email: 'a@example.test', password: 'Alpha@1234' }] } });
    const loginStarted = performance.now();
    expect(
      (await t.post('/auth/login', { email: 'a@example.test', password: 'Alpha@1234' }, { 'site-id': String(login.appID) })).status,
    ).toBe(200);
    expect(performance.now() - loginStarted).toBeLessThan(1000); // one bcrypt verify, no Redis waits

    expect(storeSwitches(warn)).toEqual(['memory']);
    const [fields, message] = warn.mock.calls.find(([f]) => (f as { event?: string })?.event === 'rate_limit_store')!;
    expect(fields).toMatchObject({ store: 'memory', err: expect.stringContaining('ECONNREFUSED') });
    expect(message).toMatch(/Redis unreachable/);
  });
});

describe('rate limits when the shared Redis goes away and comes back', () => {
  const relay = new RedisRelay();
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    await relay.up();
    const env = { ...LIMIT, REDIS_URL: `redis://127.0.0.1:${relay.port}`, REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:` };
    first = await startTestApp(env);
    second = await startTestApp(env, first.database);
  });
  afterAll(async () => {
    await second.close();
    await first.close();
    await relay.down();
  });

  const tenant = async () => (await first.seed({ site: siteFixture() })).appID;

  it('counts in each process while Redis is down, fast, with one line per instance, and shares the counts again once it is back', async () => {
    const before = await tenant();
    expect(await hits(first, before, 2)).toEqual([200, 200]);
    expect(await hits(second, before, 2)).toEqual([200, 429]);

    await relay.down();
    const during = await tenant();
    expect(await hits(first, during, 4)).toEqual([200, 200, 200, 429]);
    expect(await hits(second, during, 4)).toEqual([200, 200, 200, 429]);
    expect(storeSwitches(warn)).toEqual(['memory', 'memory']);

    await relay.up();
    await waitFor(() => storeSwitches(log).length === 2, 10_000);
    expect(storeSwitches(log)).toEqual(['redis', 'redis']);
    const after = await tenant();
    expect(await hits(first, after, 2)).toEqual([200, 200]);
    expect(await hits(second, after, 2)).toEqual([200, 429]);
    expect(await hits(first, after, 1)).toEqual([429]);
    expect(storeSwitches(warn)).toEqual(['memory', 'memory']);
  });

  it('stops waiting for a Redis that holds the connection but never answers', async () => {
    const appId = await tenant();
    relay.freeze();
    expect(await hits(first, appId, 4)).toEqual([200, 200, 200, 429]);
    expect(storeSwitches(warn)).toEqual(['memory']);
  });
});
