import { Cluster } from '../support/cluster';
import { siteFixture } from '../support/test-app';

const LIMIT = 10;

/** The request limit is one count in Redis for all instances: spread over two, the sum never exceeds it. */
describe('cluster: rate limit shared by two instances', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.start({ env: { RATE_LIMIT_MAX_REQUESTS: String(LIMIT), RATE_LIMIT_WINDOW_MS: '60000' } });
  });
  afterAll(() => cluster?.stop());

  const getApp = (appId: number) => cluster.post('/getApp', {}, { 'site-id': String(appId) });

  it(`lets at most ${LIMIT} of ${LIMIT * 4} concurrent requests through, whichever instance counts them`, async () => {
    const appId = (await cluster.seeder.seed({ site: siteFixture() })).appID;
    const answers = await Promise.all(Array.from({ length: LIMIT * 4 }, () => getApp(appId)));

    const passed = answers.filter((a) => a.status >= 200 && a.status < 300);
    const refused = answers.filter((a) => a.status === 429);
    // Counted per instance, each of the two would let LIMIT through (2 x LIMIT in all).
    expect(passed.length).toBeLessThanOrEqual(LIMIT);
    expect(passed.length).toBe(LIMIT); // Redis counts exactly: nothing lost either
    expect(refused).toHaveLength(answers.length - LIMIT);
    expect(new Set(answers.map((a) => a.instance))).toEqual(new Set([0, 1]));
    expect(new Set(refused.map((a) => a.instance))).toEqual(new Set([0, 1]));
    expect(refused[0].body).toEqual({ status: 'Failed', message: 'Too many requests, please try again later' });

    // The window is closed on both instances, and another tenant has its own count.
    const after = [await getApp(appId), await getApp(appId)];
    expect(after.map((a) => a.status)).toEqual([429, 429]);
    expect(new Set(after.map((a) => a.instance)).size).toBe(2);
    const other = (await cluster.seeder.seed({ site: siteFixture() })).appID;
    expect((await getApp(other)).status).toBe(200);
  });

  it('counts sequential requests alternating between instances as one sequence', async () => {
    const appId = (await cluster.seeder.seed({ site: siteFixture() })).appID;
    const statuses: number[] = [];
    const instances: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await getApp(appId);
      statuses.push(res.status);
      instances.push(res.instance);
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429, 429]);
    // Round robin: each instance answered every other request, so each saw only half the count itself.
    expect(instances.filter((i) => i === 0)).toHaveLength((LIMIT + 2) / 2);
  });
});
