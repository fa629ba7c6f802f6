import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

const MOBILE = '+61 400 000 077';

describe('per-account and per-number abuse limits; SMS outbox without a gateway', () => {
  let t: TestApp;
  let dataDir: string;
  let appA: number;
  let appB: number;

  function tenant() {
    return {
      site: siteFixture(),
      tables: {
        core_users: [
          { user_email: 'boss@example.test', password: 'Boss@12345', primary_role: 'admin' },
          { user_email: 'a@example.test', password: 'Alpha@1234', mobile: MOBILE },
          { user_email: 'b@example.test', password: 'Beta@12345' },
        ],
        core_folders: [{ name: 'F' }],
      },
    };
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'auth-limits-'));
    t = await startTestApp({ DATA_DIR: dataDir });
    appA = (await t.seed(tenant())).appID;
    appB = (await t.seed(tenant())).appID;
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const redis = {
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
  };
  describe.each([
    ['in process', {}],
    ['through Redis', redis],
  ])('failed logins, per account and client address (3), and per account from all addresses (5), counted %s', (_, store) => {
    let l: TestApp;
    let appId: number;
    beforeAll(async () => {
      l = await startTestApp({
        ...store,
        AUTH_LOGIN_MAX_PER_ACCOUNT: '3',
        AUTH_LOGIN_MAX_PER_ACCOUNT_ALL_ADDRESSES: '5',
        TRUST_PROXY: 'true',
      });
    });
    afterAll(() => l.close());
    beforeEach(async () => {
      appId = (await l.seed(tenant())).appID;
    });
    const login = (password: string, address: string, email = 'a@example.test', app = appId) =>
      l.post('/auth/login', { email, password }, { 'site-id': String(app), 'x-forwarded-for': address });
    const right = (address: string) => login('Alpha@1234', address);
    const wrong = (address: string) => login('Wrong@1234', address);

    it('never limits correct logins', async () => {
      for (let i = 0; i < 12; i++) expect((await right('203.0.113.1')).status).toBe(200);
    });

    it('locks the address out of the account after 3 failures, before checking the password; other addresses still log in', async () => {
      for (let i = 0; i < 3; i++) expect((await login('Wrong@1234', '203.0.113.1', 'A@example.test')).status).toBe(401);
      const limited = await right('203.0.113.1');
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ status: 'Failed', message: 'Too many login attempts, please try again later' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
      expect((await right('203.0.113.2')).status).toBe(200);
      // other accounts from the same address, and the same email in another app, are not affected
      expect((await login('Beta@12345', '203.0.113.1', 'b@example.test')).status).toBe(200);
      expect((await login('Alpha@1234', '203.0.113.1', 'a@example.test', (await l.seed(tenant())).appID)).status).toBe(200);
    });

    it("clears the address's failures on a successful login", async () => {
      // 4 failures in all: past the address's 3 without the reset, within the account's 5
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 2; i++) expect((await wrong('203.0.113.1')).status).toBe(401);
        expect((await right('203.0.113.1')).status).toBe(200);
      }
    });

    it('locks every address out of the account after 5 failures from all addresses together', async () => {
      for (let i = 0; i < 3; i++) expect((await wrong('203.0.113.1')).status).toBe(401);
      for (let i = 0; i < 2; i++) expect((await wrong('203.0.113.2')).status).toBe(401);
      for (const address of ['203.0.113.2', '203.0.113.3']) {
        const limited = await right(address);
        expect(limited.status).toBe(429);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      }
      // a refused attempt is not a failure of its address: the ceiling, not the address limit, refused it
      expect((await login('Beta@12345', '203.0.113.3', 'b@example.test')).status).toBe(200);
    });

    it('lets no more than the limit of 30 parallel wrong passwords from one address reach the password check', async () => {
      const answers = await Promise.all(Array.from({ length: 30 }, () => wrong('203.0.113.9')));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 401)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(27);
    });
  });

  it('counts SMS sends per mobile number across apps, and writes them to DATA_DIR/sms without a gateway', async () => {
    async function linkFor(appId: number): Promise<string> {
      const site = { 'site-id': String(appId) };
      const token = (await t.post('/auth/login', { email: 'boss@example.test', password: 'Boss@12345' }, site)).body.token.access_token;
      const [user] = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 AND user_email = 'a@example.test'`, [appId]);
      const [folder] = await t.dataSource.query('SELECT id FROM core_folders WHERE app_id = $1', [appId]);
      return (await t.post('/auth/invite-link', { user: user.id, folder_id: folder.id }, { ...site, authorization: `Bearer ${token}` }))
        .body.link;
    }
    const links = { [appA]: await linkFor(appA), [appB]: await linkFor(appB) };
    const statuses: number[] = [];
    for (const appId of [appA, appA, appA, appB, appB, appB]) {
      statuses.push((await t.post('/auth/user-sms-code', { userId: links[appId] }, { 'site-id': String(appId) })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const files = readdirSync(join(dataDir, 'sms'));
    expect(files).toHaveLength(5);
    const sms = JSON.parse(readFileSync(join(dataDir, 'sms', files[0]), 'utf8'));
    expect(sms.to).toBe(MOBILE);
    expect(sms.body).toMatch(/\b\d{6}\b/);
  });
});
