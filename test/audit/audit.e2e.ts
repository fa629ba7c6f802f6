import { AuditService, MASKED } from '../../src/audit';
import { RequestContext } from '../../src/common/request-context';
import { TransactionalConnection } from '../../src/database/transactional-connection';
import { SettingsService } from '../../src/settings';
import { seedTenant, Tenant, userToken } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The audit log (README "Audit log"): rows written in the transaction of their change and never without it,
 * secrets masked, POST /staff/audit's filters, paging, permission and index-backed plan.
 */
describe('audit log', () => {
  let t: TestApp;
  let shop: Tenant;
  let other: Tenant;
  let audit: AuditService;
  let connection: TransactionalConnection;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const list = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/staff/audit', body, headers);
  const ctxOf = (tenant: Tenant, userId: number | null = tenant.adminId) => {
    const ctx = RequestContext.background('audit-test', false, { id: tenant.appId } as never);
    if (userId !== null) ctx.principal = { userId, appId: tenant.appId, authTable: 'core_users', role: 'admin', staffRoles: ['owner'] };
    return ctx;
  };
  const siteName = async (tenant: Tenant) => (await sql(`SELECT name FROM core_sites WHERE id = $1`, [tenant.appId]))[0].name as string;

  beforeAll(async () => {
    t = await startTestApp();
    shop = await seedTenant(t);
    other = await seedTenant(t);
    audit = t.get(AuditService);
    connection = t.get(TransactionalConnection);
  }, 60_000);
  afterAll(() => t?.close());

  it('writes who, what, which record and the changed fields, with secrets masked', async () => {
    const ctx = ctxOf(shop);
    await connection.inTransaction(ctx, () =>
      audit.record(ctx, {
        action: 'settings.update',
        table: 'core_sites',
        recordId: shop.appId,
        before: { name: 'Old', currency: 'aud', payment_test_private_key: 'sk_test_old', api_token: null, same: 1 },
        after: { name: 'New', currency: 'aud', payment_test_private_key: 'sk_test_new', api_token: 'tok', same: 1 },
      }),
    );
    const rows = await sql(`SELECT * FROM core_audit_log WHERE app_id = $1 AND action = 'settings.update'`, [shop.appId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor_id: shop.adminId,
      actor_table: 'core_users',
      table_name: 'core_sites',
      record_id: String(shop.appId),
    });
    expect(rows[0].changes).toEqual({
      name: { before: 'Old', after: 'New' },
      payment_test_private_key: { before: MASKED, after: MASKED },
      api_token: { before: null, after: MASKED },
    });
    expect(JSON.stringify(rows[0])).not.toMatch(/sk_test_(old|new)|"tok"/);
  });

  it('refuses to write outside a transaction: a row is only ever written with its change', async () => {
    await expect(audit.record(ctxOf(shop), { action: 'x.y', table: 'core_sites', recordId: 1 })).rejects.toThrow(/inside a transaction/);
  });

  it('fault: the audit insert succeeds, then the change fails: the transaction rolls back and no audit row stays', async () => {
    const ctx = ctxOf(shop);
    const before = await siteName(shop);
    await expect(
      connection.inTransaction(ctx, async (em) => {
        await em.query(`UPDATE core_sites SET name = 'Changed by the fault test' WHERE id = $1`, [shop.appId]);
        await audit.record(ctx, {
          action: 'fault.after',
          table: 'core_sites',
          recordId: shop.appId,
          before: { name: before },
          after: { name: 'x' },
        });
        await em.query(`UPDATE core_sites SET currency = repeat('x', 1000) WHERE id = $1`, [shop.appId]); // the change fails
      }),
    ).rejects.toThrow();
    expect(await sql(`SELECT 1 FROM core_audit_log WHERE action = 'fault.after'`)).toEqual([]);
    expect(await siteName(shop)).toBe(before);
  });

  it('fault: the audit insert fails: the change it describes never commits', async () => {
    const ctx = ctxOf(shop);
    const before = await siteName(shop);
    await expect(
      connection.inTransaction(ctx, async (em) => {
        await em.query(`UPDATE core_sites SET name = 'Changed without audit' WHERE id = $1`, [shop.appId]);
        await audit.record(ctx, { action: 'x'.repeat(65), table: 'core_sites', recordId: shop.appId }); // too long: the insert fails
      }),
    ).rejects.toThrow();
    expect(await siteName(shop)).toBe(before);
  });

  it('fault through a real use case: settings.update wrote the change and its audit row, then the transaction failed: neither stays', async () => {
    const ctx = ctxOf(shop);
    const before = await siteName(shop);
    await expect(
      connection.inTransaction(ctx, async () => {
        await t.get(SettingsService).update(ctx, { name: 'Renamed then rolled back' });
        expect(
          (
            await connection
              .manager(ctx)
              .query(`SELECT count(*)::int AS n FROM core_audit_log WHERE changes->'name'->>'after' = 'Renamed then rolled back'`)
          )[0].n,
        ).toBe(1);
        throw new Error('the use case fails after its audited change');
      }),
    ).rejects.toThrow('the use case fails');
    expect(await sql(`SELECT 1 FROM core_audit_log WHERE changes->'name'->>'after' = 'Renamed then rolled back'`)).toEqual([]);
    expect(await siteName(shop)).toBe(before);
  });

  describe('POST /staff/audit', () => {
    beforeAll(async () => {
      for (let i = 0; i < 5; i++) {
        const ctx = ctxOf(shop, i % 2 === 0 ? shop.adminId : null);
        await connection.inTransaction(ctx, () =>
          audit.record(ctx, { action: i < 3 ? 'order.refund' : 'order.cancel', table: 'core_orders', recordId: 100 + i, after: { n: i } }),
        );
      }
      const ctx = ctxOf(other);
      await connection.inTransaction(ctx, () => audit.record(ctx, { action: 'order.refund', table: 'core_orders', recordId: 100 }));
    });

    it('lists the app’s rows newest first with filters and paging; another app’s rows never show', async () => {
      const all = await list({ action: 'order.refund' });
      expect(all.status).toBe(200);
      expect(all.body.data.map((r: any) => r.recordId)).toEqual(['102', '101', '100']);
      expect(all.body.data[0]).toMatchObject({
        action: 'order.refund',
        table: 'core_orders',
        actor: { id: shop.adminId, table: 'core_users' },
      });
      expect(all.body.data[1].actor).toBeNull();
      const page = await list({ table: 'core_orders', perPage: 2, page: 2 });
      expect(page.body.data.map((r: any) => r.recordId)).toEqual(['102', '101']);
      expect(page.body.paging).toEqual({ page: 2, perPage: 2, hasMore: true });
      expect((await list({ table: 'core_orders', recordId: '103' })).body.data.map((r: any) => r.action)).toEqual(['order.cancel']);
      expect((await list({ actor: shop.adminId, table: 'core_orders' })).body.data.map((r: any) => r.recordId)).toEqual([
        '104',
        '102',
        '100',
      ]);
      expect((await list({ from: '2999-01-01T00:00:00Z' })).body.data).toEqual([]);
      expect((await list({ to: '2999-01-01T00:00:00Z', table: 'core_orders' })).body.data).toHaveLength(5);
    });

    it('answers 400 naming the field for bad input', async () => {
      for (const [body, field] of [
        [{ actor: 'x' }, 'actor'],
        [{ action: 5 }, 'action'],
        [{ table: 'x'.repeat(65) }, 'table'],
        [{ recordId: [] }, 'recordId'],
        [{ from: 'yesterday' }, 'from'],
        [{ to: 12 }, 'to'],
        [{ page: 0 }, 'page'],
        [{ perPage: 101 }, 'perPage'],
      ] as const) {
        const answer = await list(body);
        expect(answer.status).toBe(400);
        expect(JSON.stringify(answer.body)).toContain(field);
      }
    });

    it('needs audit.view: 401 without a bearer, 403 naming it for a staff member without it', async () => {
      expect((await list({}, shop.headers)).status).toBe(401);
      const userId = (await sql(`SELECT id FROM core_users WHERE app_id = $1 AND primary_role = 'user'`, [shop.appId]))[0].id;
      const answer = await list({}, { ...shop.headers, authorization: `Bearer ${userToken(t, shop, userId)}` });
      expect(answer.status).toBe(403);
      expect(JSON.stringify(answer.body)).toContain('audit.view');
    });

    it('pages through an index, without a sort or a sequential scan, whatever the filter', async () => {
      await sql(
        `INSERT INTO core_audit_log (app_id, actor_id, actor_table, action, table_name, record_id, created)
         SELECT $1, (g % 7) + 1, 'core_users', 'order.' || (g % 5), 'core_orders', (g % 1000)::text, now() - g * interval '1 second'
           FROM generate_series(1, 20000) g`,
        [other.appId],
      );
      await sql('ANALYZE core_audit_log');
      const shapes = [
        { where: '', index: 'core_audit_log_app_created_idx' },
        { where: 'AND a.actor_id = 3', index: 'core_audit_log_app_actor_idx' },
        { where: `AND a.action = 'order.2'`, index: 'core_audit_log_app_action_idx' },
        { where: `AND a.table_name = 'core_orders' AND a.record_id = '17'`, index: 'core_audit_log_app_record_idx' },
      ];
      for (const shape of shapes) {
        const plan = JSON.stringify(
          await sql(
            `EXPLAIN (FORMAT JSON) SELECT a.* FROM core_audit_log a WHERE a.app_id = $1 ${shape.where} ORDER BY a.created DESC, a.id DESC LIMIT 21 OFFSET 40`,
            [other.appId],
          ),
        );
        expect(plan).toMatch(new RegExp(shape.index));
        expect(plan).not.toContain('"Node Type":"Sort"');
        expect(plan).not.toContain('Seq Scan');
      }
    });
  });
});
