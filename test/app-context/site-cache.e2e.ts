import { SITE_SECRET_COLUMNS, SitesService } from '../../src/app-context';
import { SiteCache } from '../../src/app-context/site-cache';
import { RequestContext } from '../../src/common/request-context';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

/**
 * The tenant rows kept in memory (SITE_CACHE_MS) stay coherent: a change of core_sites by anyone reaches the
 * instance through the table's change notification, and without its listener an instance reads the database.
 */
describe('site cache', () => {
  let t: TestApp;
  let appId: number;
  let domain: string;
  const sql = (query: string, params: unknown[] = []) => t.dataSource.query(query, params);
  const logo = async (headers: Record<string, string>) => (await t.post('/getApp', {}, headers)).body.logo;

  beforeAll(async () => {
    t = await startTestApp({ SITE_CACHE_MS: '600000' });
    const site = siteFixture({ logo: '/img/first.png' });
    domain = String(site.domain);
    appId = (await t.seed({ site, tables: {} })).appID;
    await waitFor(() => t.get(SiteCache).active);
  });
  afterAll(() => t.close());

  it('serves a site from memory and drops it when the row changes, by id and by domain', async () => {
    const byId = { 'site-id': String(appId) };
    const byHost = { host: domain };
    expect(await logo(byId)).toBe('/img/first.png');
    expect(await logo(byHost)).toBe('/img/first.png');

    // With the trigger off the change is not announced: the cached row is what answers.
    await sql('ALTER TABLE core_sites DISABLE TRIGGER core_sites_changed');
    await sql('UPDATE core_sites SET logo = $2 WHERE id = $1', [appId, '/img/unannounced.png']);
    await sql('ALTER TABLE core_sites ENABLE TRIGGER core_sites_changed');
    expect(await logo(byId)).toBe('/img/first.png');
    expect(await logo(byHost)).toBe('/img/first.png');

    // An announced change (any SQL, any instance) reaches the cache within moments.
    await sql('UPDATE core_sites SET logo = $2 WHERE id = $1', [appId, '/img/second.png']);
    await waitFor(async () => (await logo(byId)) === '/img/second.png');
    await waitFor(async () => (await logo(byHost)) === '/img/second.png');
  });

  it("keeps a tenant without its secrets; they are kept apart (secretsOf) and dropped with the row's change", async () => {
    const sites = t.get(SitesService);
    const ctx = RequestContext.background('test', false);
    const secret = async () => (await sites.secretsOf(ctx, appId))?.payment_test_private_key;
    const first = await secret(); // the fixture's key, now kept
    expect(first).toMatch(/^sk_test_/);
    expect(t.get(SiteCache).cachedSecrets(appId)?.payment_test_private_key).toBe(first);
    const site = (await sites.findById(ctx, appId))!;
    expect(site).toBe(t.get(SiteCache).cached(appId)); // what every request's ctx.app is
    expect(site).toHaveProperty('payment_test_public_key');
    for (const column of SITE_SECRET_COLUMNS) expect(site).not.toHaveProperty(column);

    await sql('ALTER TABLE core_sites DISABLE TRIGGER core_sites_changed');
    await sql('UPDATE core_sites SET payment_test_private_key = $2 WHERE id = $1', [appId, 'sk_test_unannounced']);
    await sql('ALTER TABLE core_sites ENABLE TRIGGER core_sites_changed');
    expect(await secret()).toBe(first);

    await sql('UPDATE core_sites SET payment_test_private_key = $2 WHERE id = $1', [appId, 'sk_test_second']);
    await waitFor(async () => (await secret()) === 'sk_test_second');
  });

  it('a deleted site is gone at once, and a new domain is found', async () => {
    const other = (await t.seed({ site: siteFixture(), tables: {} })).appID;
    expect((await t.post('/getApp', {}, { 'site-id': String(other) })).status).toBe(200);
    await sql('UPDATE core_sites SET domain = $2 WHERE id = $1', [other, `moved-${other}.example.test`]);
    await waitFor(async () => (await t.post('/getApp', {}, { host: `moved-${other}.example.test` })).status === 200);
    await sql('DELETE FROM core_sites WHERE id = $1', [other]);
    await waitFor(async () => (await t.post('/getApp', {}, { 'site-id': String(other) })).status === 404);
  });

  it('without its listener an instance reads every site from the database, and listens again', async () => {
    const [{ pid }] = await sql(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'platform-listener' AND datname = current_database()`,
    );
    await sql('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor(() => !t.get(SiteCache).active);

    await sql('ALTER TABLE core_sites DISABLE TRIGGER core_sites_changed');
    await sql('UPDATE core_sites SET logo = $2 WHERE id = $1', [appId, '/img/while-deaf.png']);
    await sql('ALTER TABLE core_sites ENABLE TRIGGER core_sites_changed');
    expect(await logo({ 'site-id': String(appId) })).toBe('/img/while-deaf.png');

    await waitFor(() => t.get(SiteCache).active, 10_000);
    expect(await logo({ 'site-id': String(appId) })).toBe('/img/while-deaf.png');
  });
});
