import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    t = await startTestApp({ AUTH_LOGIN_MAX_PER_ACCOUNT: '3', DATA_DIR: dataDir });
    appA = (await t.seed(tenant())).appID;
    appB = (await t.seed(tenant())).appID;
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses login attempts past the per-account limit, even with the right password', async () => {
    const site = { 'site-id': String(appA) };
    for (let i = 0; i < 3; i++) expect((await t.post('/auth/login', { email: 'A@example.test', password: 'Wrong@1234' }, site)).status).toBe(401);
    const limited = await t.post('/auth/login', { email: 'a@example.test', password: 'Alpha@1234' }, site);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ status: 'Failed', message: 'Too many login attempts, please try again later' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // other accounts, and the same email in another app, are not affected
    expect((await t.post('/auth/login', { email: 'b@example.test', password: 'Beta@12345' }, site)).status).toBe(200);
    expect((await t.post('/auth/login', { email: 'a@example.test', password: 'Alpha@1234' }, { 'site-id': String(appB) })).status).toBe(200);
  });

  it('counts SMS sends per mobile number across apps, and writes them to DATA_DIR/sms without a gateway', async () => {
    async function linkFor(appId: number): Promise<string> {
      const site = { 'site-id': String(appId) };
      const token = (await t.post('/auth/login', { email: 'boss@example.test', password: 'Boss@12345' }, site)).body.token.access_token;
      const [user] = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 AND user_email = 'a@example.test'`, [appId]);
      const [folder] = await t.dataSource.query('SELECT id FROM core_folders WHERE app_id = $1', [appId]);
      return (await t.post('/auth/invite-link', { user: user.id, folder_id: folder.id }, { ...site, authorization: `Bearer ${token}` })).body.link;
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
