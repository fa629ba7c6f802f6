import { seedTenant, Tenant } from '../versioning/content-helpers';
import { Cluster } from '../support/cluster';
import { waitFor, waitForJobRuns } from '../support/wait';

const K = 24;
/** Two intervals, so that neither instance's ticks keep landing just after the other's. */
const TICKS_MS = [100, 70];

/**
 * The content expiry job runs in both instances (every 100 and 70 ms); published versions coming due one
 * after another over about a second are each expired once, by whichever instance's tick found them.
 */
describe('cluster: the expiry job acts once per record', () => {
  let cluster: Cluster;
  let tenant: Tenant;

  beforeAll(async () => {
    // LOG_LEVEL info: each tick that expires something logs how many, which the test adds up per instance.
    cluster = await Cluster.start({
      env: { LOG_LEVEL: 'info' },
      perInstance: TICKS_MS.map((ms) => ({ CONTENT_EXPIRY_TICK_MS: String(ms) })),
    });
    tenant = await seedTenant(cluster.seeder);
  });
  afterAll(() => cluster?.stop());

  const call = async (action: string, body: Record<string, unknown>) => {
    const res = await cluster.post(`/content/${action}`, { table: 'core_products', ...body }, tenant.adminHeaders);
    if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };

  it(`expires each of ${K} published records exactly once with both instances ticking`, async () => {
    const masters: number[] = [];
    for (let i = 0; i < K; i++) {
      const masterId = (await call('create', { data: { title: `Due ${i}`, price: 100 } })).Master_ID as number;
      await call('publish', { masterId, publishExpireDate: '2999-01-01T00:00:00Z' });
      // Every third record has history: a second version published over the first, which stays hidden.
      if (i % 3 === 0) {
        await call('edit', { masterId, data: { title: `Due ${i} v2` } });
        await call('publish', { masterId, publishExpireDate: '2999-01-01T00:00:00Z' });
      }
      masters.push(masterId);
    }
    const lasting = (await call('create', { data: { title: 'Lasting', price: 100 } })).Master_ID as number;
    await call('publish', { masterId: lasting, publishExpireDate: '2999-01-01T00:00:00Z' });

    const versions = async (ids: number[]) =>
      cluster.sql<{ Master_ID: number; ID: number; Status: string; Published: number; IsExpired: number }>(
        `SELECT "Master_ID", "ID", "Status", "Published", "IsExpired" FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = 'core_products' AND "Master_ID" = ANY($2) ORDER BY "ID"`,
        [tenant.appId, ids],
      );
    const before = await versions(masters);
    expect(before).toHaveLength(K + Math.ceil(K / 3));
    const live = before.filter((v) => v.Published === 1);
    expect(live).toHaveLength(K);

    // Raw SQL: a test-only audit of every update that leaves a version Expired (the job writes no history of its own), and
    // due moments 40 ms apart set in one statement (the API refuses an expiry date in the past).
    await cluster.sql(
      `CREATE TABLE test_expiry_audit ("ID" integer NOT NULL, status_before varchar(20), at timestamptz NOT NULL DEFAULT clock_timestamp())`,
    );
    await cluster.sql(`CREATE FUNCTION test_expiry_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO test_expiry_audit ("ID", status_before) VALUES (NEW."ID", OLD."Status"); RETURN NEW; END $$`);
    await cluster.sql(
      `CREATE TRIGGER test_expiry_audit AFTER UPDATE ON core_data FOR EACH ROW WHEN (NEW."Status" = 'Expired') EXECUTE FUNCTION test_expiry_audit()`,
    );
    await cluster.sql(
      `UPDATE core_data SET "Publish_Expire_Date" = now() + (200 + 40 * ("ID" - $2)) * interval '1 millisecond' WHERE "ID" = ANY($1)`,
      [live.map((v) => v.ID), Math.min(...live.map((v) => v.ID))],
    );

    await waitFor(async () => (await versions(masters)).filter((v) => v.Status === 'Expired').length === K, 15_000);
    await waitForJobRuns(cluster.instances, 'content_expiry', 10); // ten more ticks of each instance

    // Each live version expired by exactly one update; hidden older versions and the other record untouched.
    const audit = await cluster.sql<{ ID: number; status_before: string }>(
      'SELECT "ID", status_before FROM test_expiry_audit ORDER BY "ID"',
    );
    expect(audit).toEqual(live.map((v) => ({ ID: v.ID, status_before: 'Published' })));
    const after = await versions(masters);
    expect(after.map((v) => v.ID)).toEqual(before.map((v) => v.ID)); // no version added or removed
    for (const v of after) {
      const wasLive = live.some((l) => l.ID === v.ID);
      expect([v.ID, v.Status, v.Published, v.IsExpired]).toEqual(
        wasLive ? [v.ID, 'Expired', 0, 1] : [v.ID, before.find((b) => b.ID === v.ID)!.Status, 0, 0],
      );
    }
    expect((await versions([lasting])).map((v) => v.Status)).toEqual(['Published']);

    // What the instances say they did adds up to K (no row counted by both), and both took part.
    const expiredBy = cluster.instances.map((instance) =>
      instance
        .logLines()
        .filter((line) => line.context === 'ContentExpiry' && line.msg === 'Expired published content')
        .reduce((sum, line) => sum + Number(line.expired), 0),
    );
    expect(expiredBy[0] + expiredBy[1]).toBe(K);
    expect(expiredBy.every((n) => n > 0)).toBe(true);
  });
});
