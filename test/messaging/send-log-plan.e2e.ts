import { seedTenant, Tenant } from '../versioning/content-helpers';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The send log's pages come from an index, never a sort of the app's rows or a scan of the table: the plan of
 * each filter's query, the first page and a page after a cursor deep in the log (README "Staff API: the send
 * log"). The statements are the ones NotificationLogRepository.sendLog builds.
 */
describe('the send log: plans', () => {
  let t: TestApp;
  let big: Tenant;
  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);

  beforeAll(async () => {
    t = await startTestApp({ NOTIFY_SENDER_ENABLED: 'false' });
    big = await seedTenant(t);
    const neighbour = await seedTenant(t);
    for (const app of [big.appId, neighbour.appId])
      await sql(
        `INSERT INTO core_notification_log (app_id, event, email, status, created, email_from, subject, body, attempts)
         SELECT $1, 'event_' || (g % 40), 'Buyer' || (g % 2000) || '@example.test',
                CASE WHEN g % 100 = 0 THEN 'Failed' WHEN g % 50 = 1 THEN 'Pending' ELSE 'Sent' END,
                now() - g * interval '1 second', 'shop@example.test', 'Subject ' || g, repeat('x', 200), 1
         FROM generate_series(1, 30000) g`,
        [app],
      );
    await sql('ANALYZE core_notification_log');
  }, 120_000);
  afterAll(() => t?.close());

  const LISTED = `l.id, l.notification_id, l.event, l.email, l.subject, l.status, l.attempts, l.last_error, l.created, l.sent, l.linked_table, l.master_id,
    to_char(l.created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key`;
  const shapes = [
    { name: 'no filter', where: '', index: 'core_notification_log_app_created_idx' },
    { name: 'status', where: `AND l.status = 'Failed'`, index: 'core_notification_log_app_status_idx' },
    { name: 'recipient', where: `AND lower(l.email) = lower('BUYER7@example.test')`, index: 'core_notification_log_app_email_idx' },
    { name: 'event', where: `AND l.event = 'event_3'`, index: 'core_notification_log_app_(event|created)_idx' },
    {
      name: 'from/to',
      where: `AND l.created >= now() - interval '5 hours' AND l.created < now() - interval '2 hours'`,
      index: 'core_notification_log_app_created_idx',
    },
    {
      name: 'status and event',
      where: `AND l.status = 'Failed' AND l.event = 'event_0'`,
      index: 'core_notification_log_app_(status|event)_idx',
    },
  ];

  it.each(shapes)('$name: an index scan in (created DESC, id DESC) order, first page and after a deep cursor', async (shape) => {
    const [deep] = await sql<{ created: string; id: number }>(
      `SELECT to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created, id FROM core_notification_log
       WHERE app_id = $1 ORDER BY created DESC, id DESC OFFSET 20000 LIMIT 1`,
      [big.appId],
    );
    for (const after of ['', `AND (l.created, l.id) < (CAST('${deep.created}' AS timestamptz), ${deep.id})`]) {
      const plan = JSON.stringify(
        await sql(
          `EXPLAIN (FORMAT JSON) SELECT ${LISTED} FROM core_notification_log l WHERE l.app_id = $1 ${shape.where} ${after}
           ORDER BY l.created DESC, l.id DESC LIMIT 21`,
          [big.appId],
        ),
      );
      expect(plan).toMatch(new RegExp(`"Index Name":"${shape.index}"`));
      expect(plan).not.toContain('"Node Type":"Sort"');
      expect(plan).not.toContain('Seq Scan');
      expect(plan).not.toContain('Bitmap');
      if (after) expect(plan).toMatch(/"Index Cond":"[^"]*ROW\(created, id\) < ROW/);
    }
  });

  it('a deep page through the API reads only its rows (the cursor is an index condition)', async () => {
    const first = await t.post('/message/log', { perPage: 100 }, big.adminHeaders);
    let cursor = first.body.paging.nextCursor;
    for (let page = 0; page < 3; page++)
      cursor = (await t.post('/message/log', { perPage: 100, cursor }, big.adminHeaders)).body.paging.nextCursor;
    const page = await t.post('/message/log', { perPage: 20, cursor, status: 'Sent' }, big.adminHeaders);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(20);
    expect(page.body.data.every((row: { status: string }) => row.status === 'Sent')).toBe(true);
  });
});
