import { Client } from 'pg';
import { goal, measure, row } from '../lib';
import { Scenario } from './types';

/** Rows of the bench app's send log the pages are measured on. */
const ROWS = Number(process.env.BENCH_SEND_LOG_ROWS ?? 1_000_000);

/** A cursor as POST /message/log answers it (SendLogService): `<created to the microsecond>~<id>` in base64url. */
const CURSOR_SQL = `SELECT to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '~' || id AS cursor FROM core_notification_log`;

/**
 * POST /message/log on a send log of 1,000,000 rows (README "Staff API: the send log"): rows seeded with
 * generate_series (20 events, 5,000 recipients, 1 % Failed, 2 % Pending due in a year so the sender leaves them,
 * one row a second going back), then pages measured through the service with the fixture admin's bearer: the
 * newest page and a page 500,000 rows deep (a keyset cursor), with and without filters. Beside them, the time of
 * the same deep page by OFFSET in SQL, which keyset paging avoids.
 */
export const sendLogScenario: Scenario = {
  name: `staff: POST /message/log (the send log) on ${ROWS.toLocaleString('en')} rows`,
  async run(ctx) {
    const db = new Client({ connectionString: ctx.databaseUrl });
    await db.connect();
    try {
      const started = Date.now();
      await db.query(
        `INSERT INTO core_notification_log (app_id, event, email, status, created, sent, email_from, subject, body, attempts, next_attempt, last_error)
         SELECT $1, 'event_' || (g % 20), 'buyer' || (g % 5000) || '@bench.example.test',
                CASE WHEN g % 100 = 0 THEN 'Failed' WHEN g % 50 = 1 THEN 'Pending' ELSE 'Sent' END,
                now() - g * interval '1 second', CASE WHEN g % 100 <> 0 AND g % 50 <> 1 THEN now() - g * interval '1 second' END,
                'shop@bench.example.test', 'Your order ' || g, '<p>' || repeat('Thank you for your order. ', 20) || '</p>',
                CASE WHEN g % 100 = 0 THEN 5 WHEN g % 50 = 1 THEN 0 ELSE 1 END,
                now() + interval '1 year', CASE WHEN g % 100 = 0 THEN '550 Mailbox unavailable' END
           FROM generate_series(1, $2::int) g`,
        [ctx.appId, ROWS],
      );
      await db.query('ANALYZE core_notification_log');
      const seeded = ((Date.now() - started) / 1000).toFixed(1);

      const cursorAt = async (where: string, offset: number): Promise<string> => {
        const { rows } = await db.query<{ cursor: string }>(
          `${CURSOR_SQL} WHERE app_id = $1 ${where} ORDER BY created DESC, id DESC OFFSET $2 LIMIT 1`,
          [ctx.appId, offset],
        );
        return Buffer.from(rows[0].cursor, 'utf8').toString('base64url');
      };
      const deep = Math.floor(ROWS / 2);
      const deepCursor = await cursorAt('', deep);
      const deepSentCursor = await cursorAt(`AND status = 'Sent'`, Math.floor(deep * 0.97));
      const deepEventCursor = await cursorAt(`AND event = 'event_7'`, Math.floor(ROWS / 40));
      const offsetStarted = process.hrtime.bigint();
      await db.query(
        `SELECT id, event, email, subject, status, attempts, last_error, created, sent FROM core_notification_log
         WHERE app_id = $1 ORDER BY created DESC, id DESC OFFSET $2 LIMIT 21`,
        [ctx.appId, deep],
      );
      const offsetMs = Number(process.hrtime.bigint() - offsetStarted) / 1e6;

      const url = `${ctx.service.url}${ctx.basePath}`;
      const login = await fetch(`${url}/auth/login`, {
        method: 'POST',
        headers: { 'site-id': String(ctx.appId), 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench-admin@bench.example.test', password: 'Bench@1234' }),
      });
      const token = ((await login.json()) as { token: { access_token: string } }).token.access_token;
      const headers = { 'site-id': String(ctx.appId), authorization: `Bearer ${token}` };
      const page = async (name: string, body: Record<string, unknown>, connections: number) => {
        const target = { url: `${url}/message/log`, headers, body: JSON.stringify({ perPage: 20, ...body }) };
        const check = await fetch(target.url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: target.body,
        });
        const answer = (await check.json()) as { data?: unknown[] };
        if (check.status !== 200 || answer.data?.length !== 20)
          throw new Error(`POST /message/log ${name}: ${check.status} ${JSON.stringify(answer).slice(0, 300)}`);
        return { name, figures: await measure(target, { connections }) };
      };
      const results = [
        await page('newest page, 1 connection', {}, 1),
        await page(`page ${deep.toLocaleString('en')} rows deep (cursor), 1 connection`, { cursor: deepCursor }, 1),
        await page('newest page, 10 connections', {}, 10),
        await page(`page ${deep.toLocaleString('en')} rows deep (cursor), 10 connections`, { cursor: deepCursor }, 10),
        await page('status Failed, newest page, 10 connections', { status: 'Failed' }, 10),
        await page('status Sent, deep page (cursor), 10 connections', { status: 'Sent', cursor: deepSentCursor }, 10),
        await page('recipient (any case), newest page, 10 connections', { email: 'BUYER42@bench.example.test' }, 10),
        await page("event 'event_7', deep page (cursor), 10 connections", { event: 'event_7', cursor: deepEventCursor }, 10),
        await page(
          'event and status Failed, from/to a week, 10 connections',
          {
            event: 'event_0',
            status: 'Failed',
            from: new Date(Date.now() - 8 * 86_400_000).toISOString(),
            to: new Date(Date.now() - 86_400_000).toISOString(),
          },
          10,
        ),
      ];
      return [
        `${ROWS.toLocaleString('en')} rows seeded in ${seeded} s`,
        ...results.map((r) => row(r.name, r.figures)),
        `(the same deep page by OFFSET ${deep.toLocaleString('en')} in SQL, which the cursor avoids: ${offsetMs.toFixed(0)} ms)`,
        goal('POST /message/log newest page p50 on 1,000,000 rows, 1 connection', results[0].figures.p50, '<', 20, (v) => `${v} ms`),
        goal('POST /message/log page 500,000 rows deep p50, 1 connection', results[1].figures.p50, '<', 20, (v) => `${v} ms`),
      ];
    } finally {
      await db.end();
    }
  },
};
