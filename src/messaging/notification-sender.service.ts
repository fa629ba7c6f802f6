import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { MailerService } from '@nestjs-modules/mailer';
import { SchedulerRegistry } from '@nestjs/schedule';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseNotifications } from '../database/database-notifications';
import { DatabaseLock, lockForTransaction } from '../database/locks';
import { TransactionalConnection } from '../database/transactional-connection';
import { MetricsService } from '../metrics';
import { ClaimedMail, NotificationLogRepository } from './repositories/notification-log.repository';

export interface SenderRun {
  claimed: number;
  sent: number;
  /** Rows that failed and wait for their next attempt, or became Failed. */
  failed: number;
  /** The mail server could not be reached: the rows were put back without counting an attempt. */
  outage: boolean;
}

/** Errors that say the mail server is unreachable or not accepting mail at all, rather than refusing this message. */
const OUTAGE_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'EAUTH',
  'ETLS',
  'EPROXY',
]);
const OUTAGE_BACKOFF_MAX_MS = 60_000;
const SENDER_TIMEOUT = 'notification-sender';
const SENDER_ORIGIN = 'notification-sender';
/** Announced by an instance once it committed Pending rows (`queued`); every sender listens. */
export const NOTIFICATION_QUEUED_CHANNEL = 'core_notification_queued';

/**
 * Sends the Pending rows of core_notification_log (the outbox) and settles them.
 *
 * Claiming: one UPDATE whose subquery selects due rows `FOR UPDATE SKIP LOCKED` marks them with a fresh claim
 * token and a lease (next_attempt = now + NOTIFY_LEASE_MS), under the NotificationClaim advisory lock, so
 * several instances never claim the same row,
 * and a row claimed by an instance that died becomes due again when the lease runs out. Settling updates
 * only rows still holding this run's claim token.
 *
 * Waking: a round starts when a row is queued on any instance (the instance that committed it announces
 * NOTIFICATION_QUEUED_CHANNEL, every instance hears it through DatabaseNotifications), and every
 * NOTIFY_POLL_INTERVAL_MS regardless, for retries that became due, leases that ran out, rows written by SQL
 * outside the service, and whatever was queued while the listener was disconnected (or on the embedded
 * database, which has none).
 *
 * Failures: a message the server refuses counts an attempt, is retried after NOTIFY_RETRY_BASE_MS * 2^(n-1)
 * (capped by NOTIFY_RETRY_MAX_MS), and becomes Failed after NOTIFY_MAX_ATTEMPTS, with last_error kept.
 * An unreachable server counts nothing: the rows go back to Pending, due at once, and this instance waits
 * with its own growing back-off, so an outage of any length loses nothing.
 */
@Injectable()
export class NotificationSenderService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(NotificationSenderService.name);
  private readonly settings: AppConfig['notifications'];
  private current: Promise<SenderRun> | null = null;
  private stopped = false;
  private outageDelayMs = 0;
  private woken = false;
  /** Whether the queued-row notifications reach this instance now. */
  private listening = false;
  /** Background work has no request: each statement runs on its own, outside any transaction. */
  private readonly ctx: RequestContext;

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly log: NotificationLogRepository,
    private readonly mailer: MailerService,
    private readonly scheduler: SchedulerRegistry,
    private readonly notifications: DatabaseNotifications,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = config.notifications;
    this.ctx = RequestContext.background(SENDER_ORIGIN, config.production);
  }

  onModuleInit(): void {
    if (!this.settings.senderEnabled) return;
    this.notifications.subscribe(NOTIFICATION_QUEUED_CHANNEL, {
      notified: () => this.wake(),
      listening: (listening) => {
        this.listening = listening;
        if (listening) this.wake(); // rows queued while nothing was heard
      },
    });
  }

  onApplicationBootstrap(): void {
    this.wake();
  }

  // At module destroy, not application shutdown: MailerService closes its transport at its own module
  // destroy (global modules go last), so the round in flight still finishes its sends.
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.unschedule(); // the next round's timeout
    await this.current?.catch(() => undefined);
  }

  /**
   * This instance committed Pending rows: every instance's sender is told; this one is woken directly only
   * while it does not listen (else it hears the announcement like the others).
   */
  queued(): void {
    this.notifications.notify(NOTIFICATION_QUEUED_CHANNEL);
    if (!this.listening) this.wake();
  }

  /**
   * A row was queued: the next round starts now instead of after the poll interval (a round running now is
   * followed by another at once). Nothing while the mail server is down: the back-off stands.
   */
  wake(): void {
    if (!this.settings.senderEnabled || this.stopped || this.outageDelayMs > 0) return;
    if (this.current) {
      this.woken = true;
      return;
    }
    this.unschedule();
    this.schedule(0);
  }

  /** One claim-and-send round; a call while a round is running joins that round. */
  runOnce(): Promise<SenderRun> {
    this.current ??= this.round()
      .then(
        (run) => {
          this.metrics.jobFinished('notification_sender', !run.outage);
          return run;
        },
        (error: unknown) => {
          this.metrics.jobFinished('notification_sender', false);
          throw error;
        },
      )
      .finally(() => {
        this.current = null;
      });
    return this.current;
  }

  /** Rounds until nothing is due (or the server is unreachable): what tests and the benchmark drive. */
  async drain(): Promise<SenderRun> {
    const total: SenderRun = { claimed: 0, sent: 0, failed: 0, outage: false };
    for (;;) {
      const run = await this.runOnce();
      total.claimed += run.claimed;
      total.sent += run.sent;
      total.failed += run.failed;
      total.outage ||= run.outage;
      if (run.claimed === 0 || run.outage) return total;
    }
  }

  /**
   * The next round, after a delay that depends on the last one (at once while a full batch came back, the
   * poll interval, or a growing back-off during an outage): a timeout in @nestjs/schedule's registry, which
   * clears it before shutdown.
   */
  private schedule(delayMs: number): void {
    // A wake that came between a round's end and its tick scheduling the next one has scheduled it already.
    if (this.stopped || this.scheduler.doesExist('timeout', SENDER_TIMEOUT)) return;
    const timeout = setTimeout(() => void this.tick(), delayMs);
    timeout.unref();
    this.scheduler.addTimeout(SENDER_TIMEOUT, timeout);
  }

  private unschedule(): void {
    if (this.scheduler.doesExist('timeout', SENDER_TIMEOUT)) this.scheduler.deleteTimeout(SENDER_TIMEOUT);
  }

  private async tick(): Promise<void> {
    this.unschedule();
    this.woken = false;
    let delay = this.settings.pollIntervalMs;
    try {
      const run = await this.runOnce();
      if (run.outage) {
        this.outageDelayMs = Math.min(Math.max(this.settings.pollIntervalMs, this.outageDelayMs * 2), OUTAGE_BACKOFF_MAX_MS);
        delay = this.outageDelayMs;
      } else {
        this.outageDelayMs = 0;
        if (run.claimed === this.settings.batchSize || this.woken) delay = 0; // more may be due
      }
    } catch (error) {
      this.logger.error(`Notification sender round failed: ${(error as Error).message}`);
    }
    this.schedule(delay);
  }

  private async round(): Promise<SenderRun> {
    const token = randomUUID();
    const rows = await this.claim(token);
    const run: SenderRun = { claimed: rows.length, sent: 0, failed: 0, outage: false };
    let next = 0;
    const worker = async () => {
      while (next < rows.length) {
        const row = rows[next++];
        if (run.outage || this.stopped) {
          await this.release(row, token, null);
          continue;
        }
        await this.deliver(row, token, run);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.settings.concurrency, rows.length) }, worker));
    return run;
  }

  /**
   * Claims a batch under the NotificationClaim advisory lock: instances take turns claiming (a few ms) and
   * then send in parallel; SKIP LOCKED and the lease keep the claim correct even without the lock. The claim
   * is this job's own transaction (the tick is an edge).
   */
  private async claim(token: string): Promise<ClaimedMail[]> {
    const ctx = RequestContext.background(SENDER_ORIGIN, this.ctx.production);
    return this.connection.inTransaction(ctx, async (em) => {
      await lockForTransaction(em, DatabaseLock.NotificationClaim);
      return this.log.claimDue(ctx, token, this.settings.batchSize, this.settings.leaseMs);
    });
  }

  private async deliver(row: ClaimedMail, token: string, run: SenderRun): Promise<void> {
    try {
      await this.mailer.sendMail({
        from: row.email_from,
        to: row.email ?? undefined,
        // A row without a recipient is a NONE mail: BCC only, also for rows queued while CC was still stored for it.
        cc: row.email === null ? undefined : (row.email_cc ?? undefined),
        bcc: row.email_bcc ?? undefined,
        subject: row.subject,
        ...(row.content_type === 'text'
          ? { text: row.body }
          : row.text_body === null
            ? { html: row.body }
            : { html: row.body, text: row.text_body }),
        messageId: `<notification-${row.id}.${row.app_id}@${domainOf(row.email_from)}>`,
      });
    } catch (error) {
      if (isOutage(error)) {
        if (!run.outage) this.logger.warn(`Mail server unreachable, notifications wait: ${describe(error)}`);
        run.outage = true;
        await this.release(row, token, describe(error));
      } else {
        run.failed++;
        await this.recordFailure(row, token, describe(error));
      }
      return;
    }
    run.sent++;
    await this.log.markSent(this.ctx, row.id, token);
  }

  /** Puts a claimed row back, due at once, without counting an attempt. */
  private async release(row: ClaimedMail, token: string, error: string | null): Promise<void> {
    await this.log.putBack(this.ctx, row.id, token, error);
  }

  private async recordFailure(row: ClaimedMail, token: string, error: string): Promise<void> {
    const attempts = row.attempts + 1;
    const failed = attempts >= this.settings.maxAttempts;
    const delayMs = Math.min(this.settings.retryMaxMs, this.settings.retryBaseMs * 2 ** (attempts - 1));
    await this.log.recordFailure(this.ctx, row.id, token, { attempts, failed, error, delayMs });
    if (failed) this.logger.warn(`Notification ${row.id} failed after ${attempts} attempts: ${error}`);
  }
}

function isOutage(error: unknown): boolean {
  const e = error as { code?: string; responseCode?: number };
  if (typeof e.responseCode === 'number') return e.responseCode === 421; // 421: service not available
  return e.code !== undefined && OUTAGE_CODES.has(e.code);
}

function describe(error: unknown): string {
  const e = error as { responseCode?: number; code?: string; message?: string };
  return [e.responseCode, e.code, e.message]
    .filter((part) => part !== undefined && part !== '')
    .join(' ')
    .slice(0, 2000);
}

function domainOf(address: string): string {
  const domain = address.split('@')[1]?.replace(/[^A-Za-z0-9.-]/g, '');
  return domain || 'localhost';
}
