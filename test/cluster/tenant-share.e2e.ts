import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { product, seedTenant, Tenant } from '../versioning/content-helpers';
import { peakActive, seedManyProducts, SLOW_READ } from '../support/slow-reads';
import { Cluster } from '../support/cluster';

const MAX = 2;
const PREFIX = `test:tenant-share:${randomBytes(6).toString('hex')}:`;

/**
 * DB_TENANT_MAX_CONNECTIONS with REDIS_URL is one count for all instances: a tenant's slow reads spread over
 * two instances (each of which would allow MAX on its own) never run more than MAX at once, and wait their
 * turn instead of failing.
 */
describe("cluster: a tenant's share of the database is shared by two instances", () => {
  let cluster: Cluster;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    cluster = await Cluster.start({
      env: {
        DB_POOL_SIZE: '4',
        DB_TENANT_MAX_CONNECTIONS: String(MAX),
        DB_TENANT_QUEUE: '20',
        DB_TENANT_QUEUE_WAIT_MS: '10000',
        DB_STATEMENT_TIMEOUT_MS: '5000',
        REDIS_KEY_PREFIX: PREFIX,
      },
    });
    a = await seedTenant(cluster.seeder);
    b = await seedTenant(cluster.seeder, [product('Small one', { meta_status: 'Published' })]);
    await seedManyProducts(cluster.database.url, a.appId, 30_000); // ~0.4 s per slow read
  }, 120_000);
  afterAll(() => cluster?.stop());

  it(`runs at most ${MAX} of the tenant's statements at once across both instances; the others wait for a turn`, async () => {
    const answers = Promise.all(Array.from({ length: 8 }, () => cluster.post('/getDataRows', SLOW_READ, a.headers)));
    const peak = await peakActive(cluster.database.url, cluster.database.name, '%ILIKE%', 5000, answers);
    const done = await answers;

    expect(peak).toBeLessThanOrEqual(MAX); // each instance alone would have let MAX run: 2 x MAX in all
    expect(done.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(done.map((r) => r.instance))).toEqual(new Set([0, 1]));
    // Another tenant is not held up meanwhile, and every lease went back to Redis.
    expect((await cluster.post('/getDataRows', { table: 'core_products' }, b.headers)).status).toBe(200);
    const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      expect(await redis.zcard(`${PREFIX}db:tenant:${a.appId}`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });
});
