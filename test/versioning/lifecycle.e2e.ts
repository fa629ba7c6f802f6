import { ExpiryJob } from '../../src/versioning/expiry.job';
import { DatabaseLock } from '../../src/database/locks';
import { seedTenant, Tenant } from './content-helpers';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

describe('versioned content: lifecycle transitions, scheduling and expiry', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ CONTENT_EXPIRY_TICK_MS: '0' });
    a = await seedTenant(t, []);
  });
  afterAll(() => t.close());

  const call = (action: string, body: Record<string, unknown>) =>
    t.post(`/content/${action}`, { table: 'core_products', ...body }, a.adminHeaders);
  const history = async (masterId: number) => (await call('history', { masterId })).body.data as Record<string, any>[];
  const publicTitles = async (mode: Record<string, unknown> = {}) =>
    ((await t.post('/getDataRows', { table: 'core_products', ...mode }, mode.isLive ? a.adminHeaders : a.headers)).body.data as any[]).map(
      (r) => r.title,
    );
  const flags = (v: Record<string, any>) => ({
    Status: v.Status,
    Published: v.Published,
    Staged: v.Staged,
    IsExpired: v.IsExpired,
    IsCurrent: v.IsCurrent,
    Lock: v.Lock,
  });
  const newRecord = async (title: string) => (await call('create', { data: { title, price: 100 } })).body.data.Master_ID as number;

  it('walks New → Editing → Staged → Published (promote) → Editing → Published (live), with the documented flags', async () => {
    const masterId = await newRecord('Walk');
    expect(flags((await history(masterId))[0])).toEqual({ Status: 'New', Published: 0, Staged: 0, IsExpired: 0, IsCurrent: 1, Lock: 0 });

    const edited = await call('edit', { masterId, data: { title: 'Walk v2' } });
    expect(flags(edited.body.data)).toEqual({ Status: 'Editing', Published: 0, Staged: 0, IsExpired: 0, IsCurrent: 1, Lock: 1 });

    const staged = await call('stage', { masterId });
    expect(staged.status).toBe(200);
    expect(staged.body.message).toBe('Record staged');
    expect(flags(staged.body.data)).toEqual({ Status: 'Staged', Published: 0, Staged: 1, IsExpired: 0, IsCurrent: 1, Lock: 0 });
    expect(staged.body.data.Publish_By).toBe(a.adminId);
    expect(staged.body.data.Publish_Set_Date).not.toBeNull();
    expect(await publicTitles()).not.toContain('Walk v2');
    expect(await publicTitles({ isStage: true })).toContain('Walk v2');
    const again = await call('stage', { masterId });
    expect([again.body.message, again.body.data.Publish_Set_Date]).toEqual(['Record already staged', staged.body.data.Publish_Set_Date]);

    const promoted = await call('promote', { masterId });
    expect(promoted.body.message).toBe('Record promoted');
    expect(flags(promoted.body.data)).toEqual({ Status: 'Published', Published: 1, Staged: 1, IsExpired: 0, IsCurrent: 1, Lock: 0 });
    expect(await publicTitles()).toContain('Walk v2');
    expect((await call('promote', { masterId })).body.message).toBe('Record already published');

    await call('edit', { masterId, data: { title: 'Walk v3' } });
    expect(await publicTitles()).toContain('Walk v2'); // the published version stays live during the edit
    const published = await call('publish', { masterId });
    expect(flags(published.body.data)).toEqual({ Status: 'Published', Published: 1, Staged: 1, IsExpired: 0, IsCurrent: 1, Lock: 0 });
    const chain = await history(masterId);
    // Publishing live reset Staged/Published on every other version of the record.
    expect(chain.filter((v) => v.Published === 1 || v.Staged === 1).map((v) => v.ID)).toEqual([published.body.data.ID]);
    expect((await publicTitles()).filter((x) => x.startsWith('Walk'))).toEqual(['Walk v3']);
    // Idempotent.
    expect((await call('publish', { masterId })).body.message).toBe('Record already published');
  });

  it('refuses transitions the lifecycle does not have with 409, and answers idempotently for the state already reached', async () => {
    const masterId = await newRecord('Strict');
    expect((await call('promote', { masterId })).status).toBe(409);
    expect((await call('expire', { masterId })).status).toBe(409);
    await call('publish', { masterId });
    expect((await call('stage', { masterId })).status).toBe(409);
    const expired = await call('expire', { masterId });
    expect(expired.status).toBe(200);
    expect(flags(expired.body.data)).toEqual({ Status: 'Expired', Published: 0, Staged: 0, IsExpired: 1, IsCurrent: 1, Lock: 0 });
    expect(new Date(expired.body.data.Publish_Expire_Date).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect((await call('expire', { masterId })).body.message).toBe('Record already expired');
    expect(await publicTitles()).not.toContain('Strict');
  });

  it('expires a staged record manually too', async () => {
    const masterId = await newRecord('Staged then expired');
    await call('stage', { masterId });
    const expired = await call('expire', { masterId });
    expect(flags(expired.body.data)).toMatchObject({ Status: 'Expired', Published: 0, Staged: 0, IsExpired: 1 });
    expect(await publicTitles({ isStage: true })).not.toContain('Staged then expired');
  });

  it('soft-deletes: the current version becomes Deleted, nothing stays visible, the rows are preserved', async () => {
    const masterId = await newRecord('Doomed');
    await call('publish', { masterId });
    await call('edit', { masterId, data: { price: 200 } });
    const deleted = await call('delete', { masterId });
    expect(deleted.status).toBe(200);
    expect(flags(deleted.body.data)).toMatchObject({ Status: 'Deleted', Published: 0, Staged: 0, IsCurrent: 1 });
    expect(await publicTitles()).not.toContain('Doomed');
    expect(await history(masterId)).toHaveLength(2);
    expect((await call('delete', { masterId })).body.message).toBe('Record already deleted');
    expect((await call('edit', { masterId, data: { price: 1 } })).status).toBe(409);
  });

  it('rolls back to an earlier version: IsCurrent moves, the chosen version is Rolled Back and can be published', async () => {
    const masterId = await newRecord('Roll v1');
    await call('publish', { masterId });
    await call('edit', { masterId, data: { title: 'Roll v2' } });
    await call('edit', { masterId, data: { title: 'Roll v3' } });
    const before = await history(masterId);

    const rolled = await call('rollback', { masterId, toCurrentId: before[1].Current_ID });
    expect(rolled.status).toBe(200);
    expect(flags(rolled.body.data)).toMatchObject({ Status: 'Rolled Back', IsCurrent: 1 });
    const after = await history(masterId);
    expect(after.map((v) => v.IsCurrent)).toEqual([0, 1, 0]);
    expect(after[2].Status).toBe('Editing');
    const live = await t.post(
      '/getDataRows',
      {
        table: 'core_products',
        isLive: true,
        whereConditions: { conditions: [{ field: 'meta_master_id', operator: 'equals', value: String(masterId) }] },
      },
      a.adminHeaders,
    );
    expect(live.body.data.map((r: any) => r.title)).toEqual(['Roll v2']);
    expect(await publicTitles()).toContain('Roll v1'); // publication is unchanged until published explicitly

    expect((await call('rollback', { masterId, toCurrentId: before[1].Current_ID })).body.message).toBe(
      'Record already rolled back to this version',
    );
    expect((await call('rollback', { masterId, toCurrentId: 999999 })).body.errors[0].field).toBe('toCurrentId');

    const published = await call('publish', { masterId });
    expect(flags(published.body.data)).toMatchObject({ Status: 'Published', Published: 1, IsCurrent: 1 });
    expect((await publicTitles()).filter((x) => x.startsWith('Roll'))).toEqual(['Roll v2']);

    // An edit after the rollback continues the chain from the restored version.
    const edited = await call('edit', { masterId, data: { title: 'Roll v4' } });
    expect(edited.body.data.Last_ID).toBe(before[1].ID);
    expect((await history(masterId)).find((v) => v.ID === before[1].ID)!.Next_ID).toBe(edited.body.data.ID);
  });

  it('rolls a deleted record back to life', async () => {
    const masterId = await newRecord('Lazarus');
    await call('edit', { masterId, data: { price: 150 } });
    await call('delete', { masterId });
    const chain = await history(masterId);
    expect(chain.map((v) => v.Status)).toEqual(['New', 'Deleted']);
    const restored = await call('rollback', { masterId, toCurrentId: chain[0].Current_ID });
    expect(flags(restored.body.data)).toMatchObject({ Status: 'Rolled Back', IsCurrent: 1 });
    expect((await call('edit', { masterId, data: { price: 175 } })).status).toBe(200);
  });

  it('schedules publication: a future Publish_Set_Date is invisible until it comes', async () => {
    const masterId = await newRecord('Scheduled');
    const at = new Date(Date.now() + 1500).toISOString();
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const res = await call('publish', { masterId, publishSetDate: at, publishExpireDate: until });
    expect(res.status).toBe(200);
    // Live target: Published = 1, Staged = 1, both schedule dates and Publish_By set.
    expect(res.body.data).toMatchObject({
      Status: 'Published',
      Published: 1,
      Staged: 1,
      IsExpired: 0,
      Lock: 0,
      Publish_By: a.adminId,
      Publish_Set_Date: at,
      Publish_Expire_Date: until,
    });
    expect(await publicTitles()).not.toContain('Scheduled');
    await waitFor(async () => (await publicTitles()).includes('Scheduled'), 10_000, 'the scheduled version to show');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at)); // not before its date
  });

  it('refuses a schedule that ends before it starts', async () => {
    const masterId = await newRecord('Bad schedule');
    const res = await call('publish', { masterId, publishSetDate: '2030-01-02T00:00:00Z', publishExpireDate: '2030-01-01T00:00:00Z' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('publishExpireDate');
    expect((await call('publish', { masterId, publishSetDate: 'soon' })).body.errors[0].field).toBe('publishSetDate');
    // Dates the calendar does not have, or forms PostgreSQL would refuse, are named too (they were a 400 on `data`).
    for (const [name, value] of [
      ['publishSetDate', '2024-02-30'],
      ['publishSetDate', '2024-W01'],
      ['publishSetDate', '20240101'],
      ['publishExpireDate', '2031-02-29T00:00:00Z'],
    ]) {
      const res = await call('publish', { masterId, [name]: value });
      expect({ value, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ value, status: 400, field: name });
    }
    const offset = await call('stage', { masterId, publishSetDate: '2030-01-01 09:00+1000' });
    expect(offset.status).toBe(200);
    expect(offset.body.data.Publish_Set_Date).toBe('2029-12-31T23:00:00.000Z');
  });

  it('the expiry job turns Published rows past Publish_Expire_Date into Expired, once per tick across instances', async () => {
    const ids = [await newRecord('Expiring 1'), await newRecord('Expiring 2'), await newRecord('Lasting')];
    const soon = new Date(Date.now() + 1000).toISOString();
    await call('publish', { masterId: ids[0], publishExpireDate: soon });
    await call('publish', { masterId: ids[1], publishExpireDate: soon });
    await call('publish', { masterId: ids[2], publishExpireDate: '2999-01-01T00:00:00Z' });
    // Readers stop seeing them at the date, before any tick runs (this instance has no timer, the other starts after).
    await waitFor(async () => !(await publicTitles()).includes('Expiring 1'), 10_000, 'the expired version to be hidden');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(soon));
    expect((await history(ids[0])).at(-1)!.Status).toBe('Published');

    const second = await startTestApp({ CONTENT_EXPIRY_TICK_MS: '0' }, t.database);
    try {
      // While another instance holds the tick, this one skips it.
      const holder = t.dataSource.createQueryRunner();
      await holder.connect();
      await holder.startTransaction();
      await holder.query('SELECT pg_advisory_xact_lock($1)', [DatabaseLock.ContentExpiryTick]);
      expect(await second.get(ExpiryJob).tick()).toBeNull();
      await holder.rollbackTransaction();
      await holder.release();

      const results = await Promise.all([t.get(ExpiryJob).tick(), second.get(ExpiryJob).tick()]);
      const expiredIds = results.flatMap((r) => r ?? []);
      const rows = await t.dataSource.query(
        `SELECT "ID", "Master_ID" FROM core_data WHERE "Shop_ID" = $1 AND "Master_ID" = ANY($2) AND "Status" = 'Expired'`,
        [a.appId, ids],
      );
      expect(rows.map((r: any) => r.Master_ID).sort()).toEqual([ids[0], ids[1]].sort());
      // Each due row was expired by exactly one of the two instances.
      expect(expiredIds.filter((id) => rows.some((r: any) => r.ID === id)).sort()).toEqual(rows.map((r: any) => r.ID).sort());
      expect(new Set(expiredIds).size).toBe(expiredIds.length);
      for (const id of ids.slice(0, 2))
        expect(flags((await history(id)).at(-1)!)).toEqual({
          Status: 'Expired',
          Published: 0,
          Staged: 0,
          IsExpired: 1,
          IsCurrent: 1,
          Lock: 0,
        });
      expect((await history(ids[2]))[0].Status).toBe('Published');
      // A second tick finds nothing to do.
      expect(await t.get(ExpiryJob).tick()).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('runs the expiry job on its own timer', async () => {
    const timed = await startTestApp({ CONTENT_EXPIRY_TICK_MS: '200' }, t.database);
    try {
      const masterId = await newRecord('Timer');
      await call('publish', { masterId, publishExpireDate: new Date(Date.now() + 300).toISOString() });
      // Nothing else runs ticks: `t` has no timer and this test calls none.
      await waitFor(async () => (await history(masterId))[0].Status === 'Expired', 10_000, 'the timer to expire the version');
    } finally {
      await timed.close();
    }
  });
});
