import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdpSealer } from '../../src/idp/idp-seal';
import { ensureBuilt, SERVICE_MAIN } from '../support/cluster';
import { databaseUrl, dropDatabase } from '../support/database';
import { freePort } from '../messaging/support/smtp-peer';
import { createTestDatabase, siteFixture, startTestApp, TestApp, TestResponse, TEST_ENV } from '../support/test-app';

/*
 * Safe by default in production (README "Operations"): CORS an allow-list, security headers on every answer,
 * no /docs unless asked, no mail or SMS silently written to files, one clear line for a start that fails,
 * and a start that says little.
 */

const FRONT = 'https://front.example.com';
/** A production app as a test starts it, with the production defaults these tests are about (TEST_ENV opts out of some). */
const PRODUCTION = { NODE_ENV: 'production', DOCS_ENABLED: '', MAIL_TO_FILES: 'true', SMS_TO_FILES: 'true' };

const header = (res: TestResponse, name: string) => res.headers[name];

describe('CORS in production: an allow-list', () => {
  let t: TestApp;
  let appId: number;
  let domain: string;

  beforeAll(async () => {
    t = await startTestApp({ ...PRODUCTION, CORS_ORIGINS: `${FRONT},http://localhost:5173` });
    const site = siteFixture();
    domain = String(site.domain);
    appId = (await t.seed({ site })).appID;
  });
  afterAll(() => t?.close());

  const getApp = (origin?: string) => t.post('/api/v2/getApp', {}, { 'site-id': String(appId), ...(origin ? { origin } : {}) });
  const preflight = (origin: string) =>
    t.app.inject({
      method: 'OPTIONS',
      url: '/api/v2/getApp',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'site-id,content-type' },
    });

  it('lets a CORS_ORIGINS origin read answers, with the exposed headers', async () => {
    for (const origin of [FRONT, 'http://localhost:5173']) {
      const res = await getApp(origin);
      expect(res.status).toBe(200);
      expect(header(res, 'access-control-allow-origin')).toBe(origin);
      expect(header(res, 'access-control-expose-headers')).toBe('x-request-id, retry-after');
      expect(String(header(res, 'vary'))).toMatch(/Origin/);
    }
  });

  it('lets https://<domain> of an app read answers; not http://, not a look-alike', async () => {
    expect(header(await getApp(`https://${domain}`), 'access-control-allow-origin')).toBe(`https://${domain}`);
    for (const origin of [`http://${domain}`, `https://${domain}.evil.test`, `https://x.${domain}`]) {
      expect(header(await getApp(origin), 'access-control-allow-origin')).toBeUndefined();
    }
  });

  it('gives another origin no CORS header at all, and an answer without Origin none either', async () => {
    const other = await getApp('https://evil.example.net');
    expect(other.status).toBe(200); // the answer is the same; the browser keeps it from the page
    expect(header(other, 'access-control-allow-origin')).toBeUndefined();
    expect(header(other, 'access-control-expose-headers')).toBeUndefined();
    expect(header(await getApp(), 'access-control-allow-origin')).toBeUndefined();
  });

  it("answers the preflight of an allowed origin (204, methods, headers, request id), and not another one's", async () => {
    for (const origin of [FRONT, `https://${domain}`]) {
      const res = await preflight(origin);
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-methods']).toBe('GET,HEAD,POST');
      expect(res.headers['access-control-allow-headers']).toBe('site-id,content-type');
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
    }
    const refused = await preflight('https://evil.example.net');
    expect(refused.statusCode).toBe(404);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.headers['access-control-allow-methods']).toBeUndefined();
  });

  it("lets no origin read answers without CORS_ORIGINS but the apps' domains, and not those either with CORS_APP_DOMAINS=false", async () => {
    const bare = await startTestApp({ ...PRODUCTION }, t.database);
    const strict = await startTestApp({ ...PRODUCTION, CORS_ORIGINS: FRONT, CORS_APP_DOMAINS: 'false' }, t.database);
    try {
      const from = (app: TestApp, origin: string) => app.post('/api/v2/getApp', {}, { 'site-id': String(appId), origin });
      expect(header(await from(bare, FRONT), 'access-control-allow-origin')).toBeUndefined();
      expect(header(await from(bare, 'http://localhost:3001'), 'access-control-allow-origin')).toBeUndefined();
      expect(header(await from(bare, `https://${domain}`), 'access-control-allow-origin')).toBe(`https://${domain}`);
      expect(header(await from(strict, FRONT), 'access-control-allow-origin')).toBe(FRONT);
      expect(header(await from(strict, `https://${domain}`), 'access-control-allow-origin')).toBeUndefined();
    } finally {
      await bare.close();
      await strict.close();
    }
  });

  it('lets any origin read answers with CORS_ORIGINS=*', async () => {
    const open = await startTestApp({ ...PRODUCTION, CORS_ORIGINS: '*' }, t.database);
    try {
      const res = await open.post('/api/v2/getApp', {}, { 'site-id': String(appId), origin: 'https://anywhere.example.org' });
      expect(header(res, 'access-control-allow-origin')).toBe('https://anywhere.example.org');
    } finally {
      await open.close();
    }
  });
});

describe('CORS outside production: any origin (local front ends)', () => {
  it('reflects any origin by default, and keeps to CORS_ORIGINS when it is set', async () => {
    const t = await startTestApp();
    const listed = await startTestApp({ CORS_ORIGINS: 'http://localhost:5173' }, t.database);
    try {
      const health = (app: TestApp, origin: string) => app.request('GET', '/health', undefined, { origin });
      expect(header(await health(t, 'http://localhost:4200'), 'access-control-allow-origin')).toBe('http://localhost:4200');
      expect(header(await health(listed, 'http://localhost:4200'), 'access-control-allow-origin')).toBeUndefined();
      expect(header(await health(listed, 'http://localhost:5173'), 'access-control-allow-origin')).toBe('http://localhost:5173');
    } finally {
      await listed.close();
      await t.close();
    }
  });
});

describe('security headers', () => {
  let production: TestApp;
  let development: TestApp;
  let appId: number;

  beforeAll(async () => {
    production = await startTestApp({ ...PRODUCTION });
    development = await startTestApp({}, production.database);
    appId = (await production.seed({ site: siteFixture() })).appID;
  });
  afterAll(async () => {
    await development?.close();
    await production?.close();
  });

  function expectApiHeaders(res: TestResponse): void {
    expect(header(res, 'x-content-type-options')).toBe('nosniff');
    expect(header(res, 'x-frame-options')).toBe('DENY');
    expect(header(res, 'content-security-policy')).toBe("default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'");
    expect(header(res, 'referrer-policy')).toBe('no-referrer');
    expect(header(res, 'x-powered-by')).toBeUndefined();
  }

  it('are on every JSON answer (success, failure, unknown route, method not allowed), HSTS in production only', async () => {
    const answers = [
      await production.post('/api/v2/getApp', {}, { 'site-id': String(appId) }),
      await production.post('/api/v2/getApp', {}),
      await production.request('GET', '/api/v2/no-such-route'),
      await production.request('GET', '/api/v2/getApp'),
      await production.request('GET', '/health'),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 400, 404, 405, 200]);
    for (const res of answers) {
      expectApiHeaders(res);
      expect(header(res, 'strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    }
    const local = await development.post('/getApp', {}, { 'site-id': String(appId) });
    expect(local.status).toBe(200);
    expectApiHeaders(local);
    expect(header(local, 'strict-transport-security')).toBeUndefined();
  });

  it('are on the relay pages, whose own policy allows nothing to load or run (they have no script or style)', async () => {
    const cookie = `idp_app_ctx=${production.get(IdpSealer).seal('idp-app-ctx', { app: appId }, 600)}`;
    const res = await production.request('GET', '/api/v2/auth/oauth/idp/logout/redirect', undefined, { cookie });
    expect(res.status).toBe(200);
    expect(header(res, 'content-type')).toBe('text/html; charset=utf-8');
    expect(String(res.body)).toMatch(/<meta http-equiv="refresh"/);
    expect(String(res.body)).not.toMatch(/<script|<style|\sstyle=|\son\w+=/i);
    expect(header(res, 'content-security-policy')).toBe("default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(header(res, 'x-frame-options')).toBe('DENY');
    expect(header(res, 'x-content-type-options')).toBe('nosniff');
    expect(header(res, 'strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(header(res, 'x-powered-by')).toBeUndefined();
  });

  it('give Swagger UI a policy it works under: its own scripts only, never framed', async () => {
    const ui = await development.request('GET', '/docs');
    expect(ui.status).toBe(200);
    const csp = String(header(ui, 'content-security-policy'));
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(String(ui.body)).not.toMatch(/<script>|<script(?![^>]*\ssrc=)[^>]*>/); // every script is a file of its own origin
    expect(header(ui, 'x-frame-options')).toBe('DENY');
    expect(header(ui, 'x-content-type-options')).toBe('nosniff');
  });
});

describe('/docs in production', () => {
  it('is not served without DOCS_ENABLED, and is with DOCS_ENABLED=true', async () => {
    const off = await startTestApp({ ...PRODUCTION });
    const on = await startTestApp({ ...PRODUCTION, DOCS_ENABLED: 'true' }, off.database);
    try {
      expect((await off.request('GET', '/api/v2/docs')).status).toBe(404);
      expect((await off.request('GET', '/api/v2/docs/openapi.json')).status).toBe(404);
      expect((await on.request('GET', '/api/v2/docs')).status).toBe(200);
      const doc = await on.request('GET', '/api/v2/docs/openapi.json');
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toMatch(/^3\./);
    } finally {
      await on.close();
      await off.close();
    }
  });
});

/** The built service (SERVICE_MAIN) with `env` over the tests' fixed secrets, nothing of this process's service variables. */
function serviceEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, SMTP_URL: _s, SMS_WEBHOOK_URL: _w, PAYMENT_API_URL: _p, DEBUG: _g, ...inherited } = process.env;
  return {
    ...inherited,
    ...TEST_ENV,
    LOG_LEVEL: 'info',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'prod-defaults-')),
    HOST: '127.0.0.1',
    ...env,
  };
}

/** Runs the service until it exits (a start that fails). */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVICE_MAIN], { env: serviceEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not exit: ${stdout}${stderr}`));
    }, 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // 'exit' may come before the last output is read: the streams close after.
      child.stderr.once('close', () => resolve({ code, stdout, stderr, ms: Date.now() - started }));
      if (child.stderr.closed) resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** A start that fails: exit code 1, one line on stderr and nothing else, no stack. */
function expectOneLineFailure(run: { code: number | null; stdout: string; stderr: string }, line: RegExp): void {
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr.split('\n').filter(Boolean)).toEqual([expect.stringMatching(line)]);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

describe('a production start that fails says why in one line', () => {
  const production = { NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:1', SMS_WEBHOOK_URL: 'http://127.0.0.1:1/sms' };

  beforeAll(() => ensureBuilt(), 180_000);

  it('without SMTP_URL or SMS_WEBHOOK_URL, naming them and the opt-ins', async () => {
    const run = await runToExit({
      ...production,
      SMTP_URL: '',
      SMS_WEBHOOK_URL: '',
      MAIL_TO_FILES: '',
      SMS_TO_FILES: '',
      DATABASE_URL: databaseUrl('never_reached'),
    });
    expectOneLineFailure(
      run,
      /^Invalid configuration: SMTP_URL is required in production .*MAIL_TO_FILES=true.*; SMS_WEBHOOK_URL is required in production .*SMS_TO_FILES=true/,
    );
  }, 30_000);

  it('with a database that refuses connections: the URL with its password masked, and the reason, at once', async () => {
    const run = await runToExit({ ...production, DATABASE_URL: 'postgresql://platform:s3cret-pw@127.0.0.1:1/platform?sslmode=disable' });
    expectOneLineFailure(
      run,
      /^Cannot connect to the database at postgresql:\/\/platform:\*\*\*@127\.0\.0\.1:1\/platform \(ECONNREFUSED\)$/,
    );
    expect(run.stderr).not.toContain('s3cret-pw');
    // At the first refusal: no connect timeout waited for, no retries (TypeORM's took seconds).
    expect(run.ms).toBeLessThan(10_000);
  }, 30_000);

  it('with a database that does not exist on the server', async () => {
    const name = `missing_${process.pid}_${Date.now()}`;
    const run = await runToExit({ ...production, DATABASE_URL: databaseUrl(name) });
    expectOneLineFailure(
      run,
      new RegExp(`^Cannot connect to the database at postgresql://[^ ]*/${name}: database "${name}" does not exist \\(3D000\\)$`),
    );
  }, 30_000);

  it("with a module's own configuration check failing", async () => {
    const db = await createTestDatabase();
    try {
      const run = await runToExit({ ...production, DATABASE_URL: db.url, IDP_ALLOWED_AUTH_TABLES: 'core_customers,pg_authid' });
      expectOneLineFailure(run, /^Invalid configuration: IDP_ALLOWED_AUTH_TABLES names unknown tables \(pg_authid\)/);
    } finally {
      await dropDatabase(db.name);
    }
  }, 30_000);
});

describe('a production start says little', () => {
  let child: ChildProcess | undefined;
  let db: { name: string; url: string };

  beforeAll(async () => {
    ensureBuilt();
    db = await createTestDatabase();
  }, 180_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await dropDatabase(db.name);
  });

  it('writes a few JSON lines until it listens: the opted-in files warning and Listening, no Nest module lines', async () => {
    const port = await freePort();
    child = spawn(process.execPath, [SERVICE_MAIN], {
      env: serviceEnv({
        NODE_ENV: 'production',
        DATABASE_URL: db.url,
        PORT: String(port),
        MAIL_TO_FILES: 'true',
        SMS_TO_FILES: 'true',
        DOCS_ENABLED: '',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const lines = await new Promise<string[]>((resolve, reject) => {
      child!.stdout!.on('data', (chunk) => {
        stdout += chunk;
        const complete = stdout.split('\n').slice(0, -1);
        if (complete.some((line) => /"msg":"Listening"/.test(line))) resolve(complete);
      });
      child!.once('exit', (code) => reject(new Error(`the service exited (${code}): ${stdout}${stderr}`)));
    });

    expect(stderr).toBe('');
    expect(lines.length).toBeLessThanOrEqual(5);
    const parsed = lines.map((line) => JSON.parse(line) as { level: number; msg: string; context?: string; docs?: string });
    expect(parsed.filter((line) => line.context !== undefined)).toEqual([]); // Nest's InstanceLoader, RoutesResolver, RouterExplorer… are debug
    expect(parsed.map((line) => line.msg)).toEqual([
      expect.stringMatching(/^Production instance writes mail .* and SMS .*: nothing of it is sent$/),
      'Listening',
    ]);
    expect(parsed[0].level).toBe(40);
    expect(parsed[1].docs).toBeUndefined();

    // Listening for real: security headers over the wire, and no /docs.
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(health.headers.get('x-powered-by')).toBeNull();
    expect((await fetch(`http://127.0.0.1:${port}/api/v2/docs`)).status).toBe(404);
  }, 60_000);
});
