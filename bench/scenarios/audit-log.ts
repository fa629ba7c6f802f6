import { Client } from 'pg';
import { goal, measure, row } from '../lib';
import { Scenario } from './types';

/** Rows of the bench app's audit log the pages are measured on. */
const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 1_000_000);

/**
 * POST /staff/audit on a log of 1,000,000 rows (README "Audit log"): the rows are seeded with generate_series
 * (ten actors, twelve actions, 10,000 orders, one row a second going back), then pages are measured through
 * the service with the fixture admin's bearer: the newest page, a deep page (page 50), and pages filtered by
 * action, actor and record. Every filter is an index ending in (created DESC, id DESC), so a page costs about
 * the same whatever the number of rows.
 */
export const auditLogScenario: Scenario = {
  name: `staff: POST /staff/audit on ${ROWS.toLocaleString('en')} rows`,
  async run(ctx) {
    const db = new Client({ connectionString: ctx.databaseUrl });
    await db.connect();
    try {
      const started = Date.now();
      await db.query(
        `INSERT INTO core_audit_log (app_id, actor_id, actor_table, action, table_name, record_id, ip, created, changes)
         SELECT $1, (g % 10) + 1, 'core_users', (ARRAY['order.refund','order.cancel','content.publish','content.rollback','content.expire','content.delete',
                'staff.invite','staff.roles','staff.remove','template.update','settings.update','order.note'])[(g % 12) + 1],
                'core_orders', (g % 10000)::text, '10.0.0.1', now() - g * interval '1 second',
                jsonb_build_object('payment_status', jsonb_build_object('before', 'Success', 'after', 'Refunded'))
           FROM generate_series(1, $2::int) g`,
        [ctx.appId, ROWS],
      );
      await db.query('VACUUM ANALYZE core_audit_log'); // hint bits and the visibility map set once, as on a log that was written over time
      const seeded = ((Date.now() - started) / 1000).toFixed(1);

      const url = `${ctx.service.url}${ctx.basePath}`;
      const login = await fetch(`${url}/auth/login`, {
        method: 'POST',
        headers: { 'site-id': String(ctx.appId), 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench-admin@bench.example.test', password: 'Bench@1234' }),
      });
      const token = ((await login.json()) as { token: { access_token: string } }).token.access_token;
      const headers = { 'site-id': String(ctx.appId), authorization: `Bearer ${token}` };
      const page = async (name: string, body: Record<string, unknown>, connections: number) => {
        const target = { url: `${url}/staff/audit`, headers, body: JSON.stringify({ perPage: 20, ...body }) };
        const check = await fetch(target.url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: target.body,
        });
        const answer = (await check.json()) as { data?: unknown[] };
        if (check.status !== 200 || !answer.data?.length)
          throw new Error(`POST /staff/audit ${name}: ${check.status} ${JSON.stringify(answer).slice(0, 300)}`);
        await measure(target, { connections, duration: 2 }); // warm-up
        return { name, figures: await measure(target, { connections }) };
      };
      const results = [
        await page('newest page, 1 connection', {}, 1),
        await page('newest page, 10 connections', {}, 10),
        await page('page 50, 10 connections', { page: 50 }, 10),
        await page("action 'order.refund', 10 connections", { action: 'order.refund' }, 10),
        await page('actor 3, page 10, 10 connections', { actor: 3, page: 10 }, 10),
        await page('one record (table + recordId), 10 connections', { table: 'core_orders', recordId: '4242' }, 10),
      ];
      const newest = results[0].figures;
      return [
        `${ROWS.toLocaleString('en')} rows seeded in ${seeded} s`,
        ...results.map((r) => row(r.name, r.figures)),
        goal('POST /staff/audit newest page p50 on 1,000,000 rows, 1 connection', newest.p50, '<', 20, (v) => `${v} ms`),
      ];
    } finally {
      await db.end();
    }
  },
};
