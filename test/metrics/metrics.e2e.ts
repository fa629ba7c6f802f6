import { NotificationSenderService } from '../../src/messaging/notification-sender.service';
import { OUTBOX_STATE_SQL } from '../../src/messaging/repositories/notification-log.repository';
import { ExpiryJob } from '../../src/versioning/expiry.job';
import { freePort, SmtpPeer } from '../messaging/support/smtp-peer';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

/** One sample of the exposition text: the value of `name` with exactly these labels (undefined when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '')
      .split(/,(?=[a-zA-Z_]+=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (have === wanted) return Number(match[3]);
  }
  return undefined;
}

/** Every label set `name` has in the text. */
function labelSets(text: string, name: string): Record<string, string>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => Object.fromEntries([...line.matchAll(/([a-zA-Z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]])));
}

const LIMIT = 3;

describe('GET /metrics', () => {
  let t: TestApp;
  let smtpPort: number;
  let smtp: SmtpPeer | null = null; // started by the outbox test, after a round that finds it down
  let appId: number;
  const site = () => ({ 'site-id': String(appId) });

  beforeAll(async () => {
    smtpPort = await freePort();
    t = await startTestApp({
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      NOTIFY_SENDER_ENABLED: 'false',
      CONTENT_EXPIRY_TICK_MS: '0',
      RATE_LIMIT_MAX_REQUESTS: String(LIMIT),
    });
    appId = (
      await t.seed({ site: siteFixture(), tables: { core_notifications: [{ event: 'welcome', subject: 'Hi', content: '<p>Hi</p>' }] } })
    ).appID;
  });
  afterAll(async () => {
    await t.close();
    await smtp?.stop();
  });

  let addresses = 0;
  /** A request from its own client address, so that the rate limit (per tenant and address) stays out of the way. */
  const request = (method: string, url: string, body?: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: method as 'GET',
      url,
      payload: body,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      remoteAddress: `10.0.${Math.floor(++addresses / 250)}.${addresses % 250}`,
    });

  async function scrape(): Promise<string> {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return res.body;
  }

  it('counts requests and their durations per method, route template and status; unknown routes under one label', async () => {
    const before = await scrape();
    const count = (text: string, labels: Record<string, string>) => sample(text, 'http_request_duration_seconds_count', labels) ?? 0;
    for (let i = 0; i < 3; i++) expect((await request('POST', '/getApp', '{}', site())).statusCode).toBe(200);
    expect((await request('POST', '/getApp', '{"appID": 7,', site())).statusCode).toBe(400);
    expect((await request('POST', '/getApp/nowhere.example.test', '{}')).statusCode).toBe(404); // a route's own 404
    expect((await request('POST', '/getApp/elsewhere.example.test', '{}')).statusCode).toBe(404);
    for (const path of ['/no/such/route', '/wp-admin/setup.php', `/x${'y'.repeat(100)}`])
      expect((await request('GET', path)).statusCode).toBe(404);
    expect((await request('GET', '/getApp/x.example.test')).statusCode).toBe(405);
    expect((await request('HEAD', '/health')).statusCode).toBe(200);

    const after = await scrape();
    const delta = (labels: Record<string, string>) => count(after, labels) - count(before, labels);
    expect(delta({ method: 'POST', route: '/getApp', status: '200' })).toBe(3);
    expect(delta({ method: 'POST', route: '/getApp', status: '400' })).toBe(1);
    expect(delta({ method: 'POST', route: '/getApp/:domain', status: '404' })).toBe(2);
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(3);
    expect(delta({ method: 'GET', route: 'unmatched', status: '405' })).toBe(1);
    expect(delta({ method: 'HEAD', route: '/health', status: '200' })).toBe(1);
    // The scrape before this one is counted too, under its own route.
    expect(count(after, { method: 'GET', route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(1);

    // Durations: buckets, sum and count of the same series agree.
    const labels = { method: 'POST', route: '/getApp', status: '200' };
    expect(sample(after, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(count(after, labels));
    expect(sample(after, 'http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);

    // Labels are route templates, never a raw URL: no domain, no unknown path.
    const routes = new Set(labelSets(after, 'http_request_duration_seconds_count').map((l) => l.route));
    expect([...routes].filter((route) => /example\.test|no\/such|wp-admin|yyy/.test(route))).toEqual([]);
    expect(routes).toEqual(new Set(['/getApp', '/getApp/:domain', '/health', '/metrics', 'unmatched']));
  });

  it('reports the database pool when scraped', async () => {
    const text = await scrape();
    const total = sample(text, 'db_pool_connections')!;
    const idle = sample(text, 'db_pool_idle_connections')!;
    expect(total).toBeGreaterThanOrEqual(1);
    expect(idle).toBeGreaterThanOrEqual(0);
    expect(idle).toBeLessThanOrEqual(total);
    expect(sample(text, 'db_pool_waiting_requests')).toBe(0);
    expect(sample(text, 'db_pool_max_connections')).toBe(10);
  });

  it('reports the pool busy while queries hold its connections', async () => {
    // Ten sleeping queries hold the ten connections; two more wait for one.
    const pool = (t.dataSource.driver as unknown as { master: { totalCount: number; idleCount: number; waitingCount: number } }).master;
    const sleepers = Array.from({ length: 12 }, () => t.dataSource.query('SELECT pg_sleep(0.5)'));
    await waitFor(() => pool.waitingCount === 2, 5000, 'two queries waiting for a connection'); // the ten are taken
    const busy = { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
    const res = await t.app.inject({ method: 'GET', url: '/metrics' }); // its outbox query waits too, at most 1 s
    await Promise.all(sleepers);
    expect(busy).toEqual({ total: 10, idle: 0, waiting: 2 });
    expect(sample(res.body, 'db_pool_connections')).toBe(10);
    expect(sample(res.body, 'db_pool_idle_connections')).toBe(0);
    expect(sample(res.body, 'db_pool_waiting_requests')).toBe(2);
  });

  it('reports the outbox depth and the age of the oldest Pending row, and counts sender rounds', async () => {
    expect(sample(await scrape(), 'outbox_pending_notifications')).toBe(0);
    expect(sample(await scrape(), 'outbox_oldest_pending_age_seconds')).toBe(0);
    for (const email of ['a@example.test', 'b@example.test']) {
      const res = await request('POST', '/message/notification', JSON.stringify({ event: 'welcome', email }), site());
      expect(JSON.parse(res.body)).toEqual({ status: 'Success' });
    }
    // The oldest row's age counts whole seconds of the database's clock: scraped until it shows one.
    let queued = '';
    await waitFor(async () => sample((queued = await scrape()), 'outbox_oldest_pending_age_seconds')! >= 1, 10_000, 'an age of 1 s');
    expect(sample(queued, 'outbox_pending_notifications')).toBe(2);
    const age = sample(queued, 'outbox_oldest_pending_age_seconds')!;
    expect(age).toBeGreaterThanOrEqual(1);
    expect(age).toBeLessThan(30);
    const runs = (text: string) => sample(text, 'job_runs_total', { job: 'notification_sender' })!;
    const failures = (text: string) => sample(text, 'job_failures_total', { job: 'notification_sender' })!;
    expect(failures(queued)).toBe(0);
    expect(sample(queued, 'job_last_success_timestamp_seconds', { job: 'notification_sender' })).toBeUndefined();

    // The sender is off: rounds are driven here. A round that finds the mail server unreachable is a failure; the rows wait.
    expect(await t.get(NotificationSenderService).runOnce()).toMatchObject({ claimed: 2, sent: 0, outage: true });
    const down = await scrape();
    expect(runs(down) - runs(queued)).toBe(1);
    expect(failures(down)).toBe(1);
    expect(sample(down, 'outbox_pending_notifications')).toBe(2);

    // Two rounds: one sends both, the next finds nothing.
    smtp = await SmtpPeer.start(smtpPort);
    expect(await t.get(NotificationSenderService).drain()).toMatchObject({ claimed: 2, sent: 2 });
    const sent = await scrape();
    expect(runs(sent) - runs(down)).toBe(2);
    expect(failures(sent)).toBe(1);
    expect(sample(sent, 'job_last_success_timestamp_seconds', { job: 'notification_sender' })).toBeCloseTo(Date.now() / 1000, -1);
    expect(sample(sent, 'outbox_pending_notifications')).toBe(0);
    expect(sample(sent, 'outbox_oldest_pending_age_seconds')).toBe(0);
  });

  it('reads the outbox with the partial due index', async () => {
    const plan = await t.dataSource.transaction(async (em) => {
      await em.query('SET LOCAL enable_seqscan = off'); // a table this small is read sequentially otherwise
      return (await em.query(`EXPLAIN ${OUTBOX_STATE_SQL}`)).map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/Index Only Scan using core_notification_log_due_idx/);
    expect(plan).toMatch(/Index Scan using core_notification_log_pkey/);
  });

  it('counts content expiry ticks', async () => {
    const before = sample(await scrape(), 'job_runs_total', { job: 'content_expiry' })!;
    expect(await t.get(ExpiryJob).tick()).toEqual([]);
    const after = await scrape();
    expect(sample(after, 'job_runs_total', { job: 'content_expiry' })).toBe(before + 1);
    expect(sample(after, 'job_failures_total', { job: 'content_expiry' })).toBe(0);
  });

  it('counts rate-limit rejections by reason and route', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/getApp',
        headers: { ...site(), 'content-type': 'application/json' },
        payload: '{}',
        remoteAddress: '203.0.113.9',
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const text = await scrape();
    expect(sample(text, 'rate_limit_rejections_total', { reason: 'requests', route: '/getApp' })).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/getApp', status: '429' })).toBe(2);
  });

  it('includes the process and Node defaults', async () => {
    const text = await scrape();
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('is in the OpenAPI document, with its token scheme', async () => {
    const doc = (await t.request('GET', '/docs/openapi.json')).body;
    // The token is needed only when METRICS_TOKEN is set: no credential is one of the ways in.
    expect(doc.paths['/metrics'].get.security).toEqual([{}, { 'metrics-token': [] }]);
    expect(doc.paths['/metrics'].get.responses['200'].content).toEqual({ 'text/plain': { schema: { type: 'string' } } });
    expect(doc.paths['/metrics'].get.description).toMatch(/http_request_duration_seconds/);
    expect(doc.components.securitySchemes['metrics-token']).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let t: TestApp;
  const token = 'metrics-0123456789abcdef';

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: token });
  });
  afterAll(() => t.close());

  it('requires the token as a bearer', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${token}`, `Bearer ${token}x`, 'Bearer']) {
      const res = await t.request('GET', '/metrics', undefined, authorization === undefined ? {} : { authorization });
      expect({ authorization, status: res.status, body: res.body }).toEqual({
        authorization,
        status: 401,
        body: { status: 'Failed', message: 'Unauthorized' },
      });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    }
    const res = await t.request('GET', '/metrics', undefined, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(res.body).toMatch(/^# HELP http_request_duration_seconds /m);
  });
});

describe('GET /metrics in production', () => {
  it('stays outside the /api/v2 base path, like /health; route labels are the registered templates', async () => {
    const t = await startTestApp({ NODE_ENV: 'production' });
    try {
      expect((await t.request('GET', '/api/v2/metrics')).status).toBe(404);
      expect((await t.post('/api/v2/getApp', {})).status).toBe(400);
      const res = await t.request('GET', '/metrics');
      expect(res.status).toBe(200);
      expect(labelSets(res.body, 'http_request_duration_seconds_count')).toEqual([
        { method: 'GET', route: 'unmatched', status: '404' },
        { method: 'POST', route: '/api/v2/getApp', status: '400' },
      ]);
    } finally {
      await t.close();
    }
  });
});
