import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { Client } from 'pg';
import { SMTPServer } from 'smtp-server';
import { adminQuery, databaseUrl, DURATION_S, goal, measure, ROOT, row, startService } from '../lib';
import { BenchContext, Scenario } from './types';

/**
 * Messaging runs on its own database (migrated and seeded through the CLI), so the shared service's
 * sender, which has no SMTP_URL, cannot claim the rows measured here.
 */
export const messagingScenario: Scenario = {
  name: 'messaging: /message/notification accepted/s, mails delivered/s, request → mail',
  async run(ctx) {
    const name = `bench_msg_${Date.now().toString(36)}`;
    await adminQuery(`CREATE DATABASE "${name}"`);
    const env = { ...ctx.env, DATABASE_URL: databaseUrl(name) };
    const smtp = await countingSmtpServer();
    const db = new Client({ connectionString: env.DATABASE_URL });
    try {
      const appId = seedTenant(env);
      await db.connect();
      const lines: string[] = [];

      // 1. Accepting: the endpoint writes Pending rows; no sender runs in this process.
      const acceptor = await startService({ ...env, NOTIFY_SENDER_ENABLED: 'false' });
      try {
        const target = {
          url: `${acceptor.url}${ctx.basePath}/message/notification`,
          headers: { 'site-id': String(appId) },
          body: JSON.stringify({ event: 'bench', email: 'reader@example.test', data: { firstname: 'Bench', order: 1234 } }),
        };
        await measure(target, { duration: 2 }); // warm-up
        const accepted = await measure(target);
        lines.push(row('service POST /message/notification', accepted));
      } finally {
        await acceptor.stop();
      }

      // 2. Delivering: N rows due at once, a service with the background sender and SMTP_URL; time until all are Sent.
      const total = Math.max(500, 300 * DURATION_S);
      await db.query('DELETE FROM core_notification_log');
      const sender = await startService({
        ...env,
        SMTP_URL: smtp.url,
        NOTIFY_SENDER_ENABLED: 'true',
        NOTIFY_POLL_INTERVAL_MS: '100',
        NOTIFY_BATCH_SIZE: '200',
      });
      try {
        smtp.count = 0;
        const started = Date.now();
        await db.query(
          `INSERT INTO core_notification_log (app_id, event, email, email_from, subject, body)
           SELECT $1, 'bench', 'r' || n || '@example.test', 'bench@example.test', 'Bench ' || n, '<p>Bench mail ' || n || '</p>'
             FROM generate_series(1, $2) AS n`,
          [appId, total],
        );
        let sent = 0;
        while (sent < total && Date.now() - started < 120_000) {
          await new Promise((r) => setTimeout(r, 100));
          sent = (await db.query(`SELECT count(*)::int AS n FROM core_notification_log WHERE status = 'Sent'`)).rows[0].n;
        }
        const seconds = (Date.now() - started) / 1000;
        lines.push(
          `${'sender: mails delivered to local SMTP'.padEnd(44)} ${(sent / seconds).toFixed(0).padStart(8)} ` +
            `mails/s   (${sent}/${total} Sent in ${seconds.toFixed(1)} s, SMTP received ${smtp.count})`,
        );
        lines.push(goal('sender: mails/s into a local SMTP server', sent / seconds, '>=', 300, (v) => `${v.toFixed(0)} mails/s`));
      } finally {
        await sender.stop();
      }

      // 3. Request → mail: one instance accepts (sender off), another sends at the default poll interval
      // (2 s), so what reaches the SMTP server sooner was woken by the queued row's notification.
      await db.query('DELETE FROM core_notification_log');
      const latency = await requestToMail(env, smtp, appId, ctx.basePath, db);
      lines.push(latency.line);
      lines.push(goal('notification request → mail delivered, p50', latency.p50, '<', 1000, (v) => `${v.toFixed(0)} ms`));

      // Baseline: nodemailer alone, same pool and mails in flight as the sender's defaults, same SMTP server, no database.
      const raw = await rawNodemailerRate(smtp.url, Math.min(total, 2000));
      lines.push(`${'baseline nodemailer pool(5), 32 in flight'.padEnd(44)} ${raw.toFixed(0).padStart(8)} mails/s`);
      return lines;
    } finally {
      await db.end().catch(() => undefined);
      await smtp.close();
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  },
};

export const messagingScenarios: Scenario[] = [messagingScenario];

function seedTenant(env: BenchContext['env']): number {
  const dir = mkdtempSync(join(tmpdir(), 'bench-msg-'));
  try {
    const fixture = {
      site: { name: 'Messaging bench', domain: 'messaging.bench.example.test', email_from: 'bench@example.test', disable_email: false },
      tables: {
        core_notifications: [
          {
            event: 'bench',
            enabled: true,
            subject: 'Order [order] for [firstname]',
            content: '<p>Hello [firstname], order [order] is ready.</p>',
          },
        ],
      },
    };
    const file = join(dir, 'fixture.json');
    writeFileSync(file, JSON.stringify(fixture));
    const cli = join(ROOT, 'dist/src/cli.js');
    execFileSync(process.execPath, [cli, 'migrate'], { env: { ...process.env, ...env }, stdio: 'ignore' });
    return JSON.parse(execFileSync(process.execPath, [cli, 'seed', file], { env: { ...process.env, ...env }, encoding: 'utf8' })).appID;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Requests per second of the request → mail measurement: a steady trickle, not a flood. */
const LATENCY_RATE = 50;

/**
 * POST /message/notification LATENCY_RATE times a second for a few seconds to an acceptor (sender off),
 * with a separate sender instance (sender on, default NOTIFY_POLL_INTERVAL_MS); the time from each request
 * being sent to its mail's arrival at the SMTP server.
 */
async function requestToMail(
  env: Record<string, string>,
  smtp: SmtpSink,
  appId: number,
  basePath: string,
  db: Client,
): Promise<{ line: string; p50: number }> {
  const count = LATENCY_RATE * Math.max(3, DURATION_S);
  const acceptor = await startService({ ...env, NOTIFY_SENDER_ENABLED: 'false' });
  try {
    const sender = await startService({ ...env, SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'true' });
    try {
      const url = `${acceptor.url}${basePath}/message/notification`;
      const sentAt = new Map<string, number>();
      let failed = 0;
      const send = async (email: string, n: number) => {
        sentAt.set(email, performance.now());
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'site-id': String(appId) },
          body: JSON.stringify({ event: 'bench', email, data: { firstname: 'Bench', order: n } }),
        });
        if (!res.ok || ((await res.json()) as { status?: string }).status !== 'Success') failed++;
      };
      smtp.arrivals.clear();
      await atRate(LATENCY_RATE, LATENCY_RATE, (n) => send(`warm${n}@example.test`, n)); // a second of warm-up
      await waitForArrivals(smtp, LATENCY_RATE - failed);
      smtp.arrivals.clear();
      failed = 0;
      await atRate(count, LATENCY_RATE, (n) => send(`latency${n}@example.test`, n));
      await waitForArrivals(smtp, count - failed);
      const { rows } = await db.query(`SELECT id, email FROM core_notification_log WHERE email LIKE 'latency%'`);
      const latencies = rows.flatMap((r: { id: number; email: string }) => {
        const arrived = smtp.arrivals.get(Number(r.id));
        return arrived === undefined ? [] : [arrived - sentAt.get(r.email)!];
      });
      const p50 = percentile(latencies, 0.5);
      return {
        p50,
        line:
          `${'notification request → mail at SMTP'.padEnd(44)} p50 ${p50.toFixed(0).padStart(4)} ms   p99 ` +
          `${percentile(latencies, 0.99).toFixed(0).padStart(4)} ms   (${latencies.length}/${count} mails at ` +
          `${LATENCY_RATE} req/s, acceptor + sender instance, poll 2 s${failed ? `, ${failed} requests failed` : ''})`,
      };
    } finally {
      await sender.stop();
    }
  } finally {
    await acceptor.stop();
  }
}

/** Calls `send(0 … count-1)` at `perSecond`, each on time whether or not the earlier ones have answered. */
export async function atRate(count: number, perSecond: number, send: (n: number) => Promise<void>): Promise<void> {
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let n = 0; n < count; n++) {
    const due = started + (n * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(send(n));
  }
  await Promise.all(inFlight);
}

/** Until the SMTP server has `count` mails (or 60 s passed). */
export async function waitForArrivals(smtp: SmtpSink, count: number): Promise<void> {
  const until = Date.now() + 60_000;
  while (smtp.arrivals.size < count && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/** The value below which `q` of `values` fall (nearest rank); NaN without values. */
export function percentile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

export interface SmtpSink {
  url: string;
  count: number;
  /** performance.now() at the end of each mail's DATA, by core_notification_log id (from the sender's Message-ID). */
  arrivals: Map<number, number>;
  close(): Promise<void>;
}

/** The sender's Message-ID: `<notification-<log id>.<app id>@<domain>>`. */
const NOTIFICATION_MESSAGE_ID = /^Message-ID:\s*<notification-(\d+)\./im;

/** A local SMTP server that counts mails and notes when each notification's mail arrived. */
export async function countingSmtpServer(): Promise<SmtpSink> {
  const state = { count: 0 };
  const arrivals = new Map<number, number>();
  const server = new SMTPServer({
    authOptional: true,
    disableReverseLookup: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 8192 && !head.includes('\r\n\r\n')) head += chunk.toString('latin1');
      });
      stream.on('end', () => {
        state.count++;
        const id = NOTIFICATION_MESSAGE_ID.exec(head.split('\r\n\r\n')[0]);
        if (id) arrivals.set(Number(id[1]), performance.now());
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    url: `smtp://127.0.0.1:${port}`,
    get count() {
      return state.count;
    },
    set count(value: number) {
      state.count = value;
    },
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Mails in flight, as the sender's default NOTIFY_CONCURRENCY. */
const IN_FLIGHT = 32;

async function rawNodemailerRate(url: string, total: number): Promise<number> {
  const transport = nodemailer.createTransport({ url, pool: true, maxConnections: 5 } as Parameters<typeof nodemailer.createTransport>[0]);
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const n = next++;
      await transport.sendMail({
        from: 'bench@example.test',
        to: `r${n}@example.test`,
        subject: `Bench ${n}`,
        html: `<p>Bench mail ${n}</p>`,
      });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  transport.close();
  return total / ((Date.now() - started) / 1000);
}
