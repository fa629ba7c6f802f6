import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { PaymentEvent } from '../entities';

/** A recorded event as the operator's `events:failed` lists it. */
export type ListedPaymentEvent = Pick<
  PaymentEvent,
  'app_id' | 'event_id' | 'type' | 'status' | 'attempts' | 'last_error' | 'order_id' | 'payment_intent_id' | 'received' | 'next_attempt_at'
>;

/** The inbox's state for /metrics: events waiting, the oldest one's age, events Failed. */
export interface InboxState {
  pending: number;
  oldestPendingSeconds: number;
  failed: number;
}

/** An event the worker claimed: whose, and the event as recorded. */
export type ClaimedPaymentEvent = Pick<PaymentEvent, 'app_id' | 'event_id' | 'payload'>;

/** How long a claimed event is left to the instance that claimed it before another may try it. */
const CLAIM_LEASE_SECONDS = 120;

/** core_payment_events: the inbox of the provider's events, one row per app and event id. */
@Injectable()
export class PaymentEventRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /**
   * Records a verified event of the app as `pending`, due after `firstTryInMs` (the delivery tries it at
   * once; the worker only if that try never finished). False when the app has the event already (a
   * redelivery: ON CONFLICT DO NOTHING waits for a concurrent delivery of it to commit, then finds it).
   */
  async record(
    ctx: RequestContext,
    event: Pick<PaymentEvent, 'event_id' | 'type' | 'payload' | 'order_id' | 'payment_intent_id'>,
    firstTryInMs: number,
  ): Promise<boolean> {
    const inserted = await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .insert()
      .into(PaymentEvent)
      .values({
        ...event,
        app_id: ctx.appId,
        status: 'pending',
        next_attempt_at: () => `now() + make_interval(secs => ${firstTryInMs / 1000})`,
      })
      .orIgnore()
      .returning(['event_id'])
      .updateEntity(false)
      .execute();
    return (inserted.raw as unknown[]).length > 0;
  }

  /** In the caller's transaction: the event locked while it is still pending, else null (applied or given up already). */
  lockPending(ctx: RequestContext, eventId: string): Promise<PaymentEvent | null> {
    return this.connection
      .repository(ctx, PaymentEvent)
      .findOne({ where: { app_id: ctx.appId, event_id: eventId, status: 'pending' }, lock: { mode: 'pessimistic_write' } });
  }

  /** In the transaction that applied it: processed, with what it did. */
  async markProcessed(
    ctx: RequestContext,
    eventId: string,
    done: Pick<PaymentEvent, 'outcome' | 'order_id' | 'payment_intent_id'>,
  ): Promise<void> {
    await this.connection
      .repository(ctx, PaymentEvent)
      .update(
        { app_id: ctx.appId, event_id: eventId },
        { ...done, status: 'processed', processed_at: () => 'now()', next_attempt_at: null },
      );
  }

  /**
   * A try that failed: counted, due again after a backoff that doubles from 10 s up to an hour, and Failed
   * once `maxAttempts` tries failed. Answers the status it leaves.
   */
  async markAttemptFailed(ctx: RequestContext, eventId: string, error: string, maxAttempts: number): Promise<string | null> {
    // Raw SQL: the backoff is computed from the row's own count in the same statement.
    const rows = (await this.connection.manager(ctx).query(
      `UPDATE core_payment_events
          SET attempts = attempts + 1,
              last_error = $3,
              status = CASE WHEN attempts + 1 >= $4 THEN 'failed' ELSE 'pending' END,
              next_attempt_at = CASE WHEN attempts + 1 >= $4 THEN NULL
                                     ELSE now() + make_interval(secs => least(3600, 10 * power(2, least(attempts, 12)))) END
        WHERE app_id = $1 AND event_id = $2 AND status = 'pending'
        RETURNING status`,
      [ctx.appId, eventId, error.slice(0, 500), maxAttempts],
    )) as [{ status: string }[], number];
    return rows[0]?.[0]?.status ?? null;
  }

  /**
   * The worker's claim, across apps and instances: up to `limit` pending events that are due, each leased
   * for CLAIM_LEASE_SECONDS (rows another instance is claiming are skipped). Applying one still locks it
   * and checks it is pending, so a lease that runs out only lets another instance try it again.
   */
  async claimDue(em: EntityManager, limit: number): Promise<ClaimedPaymentEvent[]> {
    // Raw SQL: UPDATE … WHERE … IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING has no builder form.
    const [rows] = (await em.query(
      `UPDATE core_payment_events SET next_attempt_at = now() + make_interval(secs => ${CLAIM_LEASE_SECONDS})
        WHERE (app_id, event_id) IN (
          SELECT app_id, event_id FROM core_payment_events
           WHERE status = 'pending' AND next_attempt_at <= now()
           ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING app_id, event_id, payload`,
      [limit],
    )) as [ClaimedPaymentEvent[], number];
    return rows;
  }

  /** `ctx`'s app's Failed events, newest first, at most `limit`, and how many there are. */
  async failed(ctx: RequestContext, limit: number): Promise<{ total: number; events: ListedPaymentEvent[] }> {
    const [events, total] = await this.connection.repository(ctx, PaymentEvent).findAndCount({
      select: {
        app_id: true,
        event_id: true,
        type: true,
        status: true,
        attempts: true,
        last_error: true,
        order_id: true,
        payment_intent_id: true,
        received: true,
        next_attempt_at: true,
      },
      where: { app_id: ctx.appId, status: 'failed' },
      order: { received: 'DESC' },
      take: limit,
    });
    return { total, events };
  }

  /** Puts `ctx`'s app's Failed events (or only `eventId`) back in the inbox, due now, tries counted from zero; their ids. */
  async requeueFailed(ctx: RequestContext, eventId?: string): Promise<string[]> {
    const result = await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .update(PaymentEvent)
      .set({ status: 'pending', attempts: 0, next_attempt_at: () => 'now()' })
      .where({ app_id: ctx.appId, status: 'failed', ...(eventId !== undefined ? { event_id: eventId } : {}) })
      .returning(['event_id'])
      .updateEntity(false)
      .execute();
    return (result.raw as { event_id: string }[]).map((row) => row.event_id);
  }

  /** Across apps, for /metrics. */
  async state(em: EntityManager): Promise<InboxState> {
    // Raw SQL: three aggregates in one pass over the partial index of the events not processed.
    const [row] = (await em.query(
      `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
              coalesce(extract(epoch FROM now() - min(received) FILTER (WHERE status = 'pending')), 0)::float8 AS oldest,
              count(*) FILTER (WHERE status = 'failed')::int AS failed
         FROM core_payment_events WHERE status <> 'processed'`,
    )) as { pending: number; oldest: number; failed: number }[];
    return { pending: row.pending, oldestPendingSeconds: Math.max(0, row.oldest), failed: row.failed };
  }
}
