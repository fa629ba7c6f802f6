import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { Client } from 'pg';
import { SMTPServer } from 'smtp-server';
import { adminQuery, databaseUrl, DURATION_S, freePort, measure, ROOT, row, startNode } from '../lib';
import { BenchContext, Scenario } from './types';


/**
 * Messaging runs on its own database (migrated and seeded through the CLI), so the shared service's
 * sender, which has no SMTP_URL, cannot claim the rows measured here.
 */
export const messagingScenario: Scenario = {
  name: 'messaging: /message/notification accepted/s, mails delivered/s',
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
      const acceptor = await startNode(join(ROOT, 'dist/src/main.js'), { ...env, NOTIFY_SENDER_ENABLED: 'false' }, await freePort(), '/health/ready');
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
      const sender = await startNode(
        join(ROOT, 'dist/src/main.js'),
        { ...env, SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'true', NOTIFY_POLL_INTERVAL_MS: '100', NOTIFY_BATCH_SIZE: '200' },
        await freePort(),
        '/health/ready',
      );
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
        lines.push(`${'sender: mails delivered to local SMTP'.padEnd(44)} ${(sent / seconds).toFixed(0).padStart(8)} mails/s   (${sent}/${total} Sent in ${seconds.toFixed(1)} s, SMTP received ${smtp.count})`);
      } finally {
        await sender.stop();
      }

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
        core_notifications: [{ event: 'bench', enabled: true, subject: 'Order [order] for [firstname]', content: '<p>Hello [firstname], order [order] is ready.</p>' }],
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

async function countingSmtpServer(): Promise<{ url: string; count: number; close(): Promise<void> }> {
  const state = { count: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disableReverseLookup: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('end', () => {
        state.count++;
        callback();
      });
      stream.resume();
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
      await transport.sendMail({ from: 'bench@example.test', to: `r${n}@example.test`, subject: `Bench ${n}`, html: `<p>Bench mail ${n}</p>` });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  transport.close();
  return total / ((Date.now() - started) / 1000);
}
