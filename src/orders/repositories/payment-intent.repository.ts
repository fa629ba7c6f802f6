import { Injectable } from '@nestjs/common';
import { EntityManager, In, Not } from 'typeorm';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { IntentStatus, OrderPaymentIntent } from '../entities';

/** An open intent the reconciliation claimed. */
export type ClaimedIntent = Pick<OrderPaymentIntent, 'app_id' | 'intent_id' | 'order_id' | 'livemode' | 'cancel_requested'>;

/** Open intents are asked about for this long after their checkout, then left alone (the provider expires them too). */
const RECONCILE_FOR_DAYS = 7;

/** core_payment_intents: the payment intents checkouts made, per app. */
@Injectable()
export class PaymentIntentRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** A new intent of the app's order, asked about after `reconcileAfterMs` (a retried checkout that got the same intent adds nothing). */
  async record(
    ctx: RequestContext,
    row: Pick<OrderPaymentIntent, 'intent_id' | 'order_id' | 'amount' | 'currency' | 'livemode'>,
    reconcileAfterMs: number,
  ): Promise<void> {
    await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .insert()
      .into(OrderPaymentIntent)
      .values({
        ...row,
        app_id: ctx.appId,
        status: 'open',
        reconcile_at: () => `now() + make_interval(secs => ${Math.trunc(reconcileAfterMs) / 1000})`,
      })
      .orIgnore()
      .updateEntity(false)
      .execute();
  }

  /** The order's open intents, but `except`, oldest first. */
  openOfOrder(ctx: RequestContext, orderId: number, except?: string): Promise<OrderPaymentIntent[]> {
    return this.connection.repository(ctx, OrderPaymentIntent).find({
      where: { app_id: ctx.appId, order_id: orderId, status: 'open', ...(except ? { intent_id: Not(except) } : {}) },
      order: { created: 'ASC' },
    });
  }

  /** Marks `intentIds` to be cancelled, due for the reconciliation at once (it retries a cancel that fails). */
  async requestCancel(ctx: RequestContext, intentIds: string[]): Promise<void> {
    if (intentIds.length === 0) return;
    await this.connection
      .repository(ctx, OrderPaymentIntent)
      .update(
        { app_id: ctx.appId, intent_id: In(intentIds), status: 'open' },
        { cancel_requested: () => 'now()', reconcile_at: () => 'now()' },
      );
  }

  /** The intent's status as the provider reported it (an event, a cancel, the reconciliation). */
  async setStatus(ctx: RequestContext, intentId: string, status: IntentStatus): Promise<void> {
    await this.connection.repository(ctx, OrderPaymentIntent).update({ app_id: ctx.appId, intent_id: intentId }, { status });
  }

  /**
   * The reconciliation's claim, across apps and instances: up to `limit` open intents that are due (to be
   * cancelled, or checked out PAYMENT_RECONCILE_AFTER_MS ago, less than RECONCILE_FOR_DAYS ago), each claimed
   * until its next check: as long again as its age, so an abandoned intent is asked about a few times over its
   * days, not every tick.
   */
  async claimDue(em: EntityManager, limit: number): Promise<ClaimedIntent[]> {
    // Raw SQL: UPDATE … WHERE … IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING has no builder form.
    const [rows] = (await em.query(
      `UPDATE core_payment_intents
          SET reconcile_at = now() + greatest(now() - created, interval '1 minute')
        WHERE (app_id, intent_id) IN (
          SELECT app_id, intent_id FROM core_payment_intents
           WHERE status = 'open' AND reconcile_at <= now() AND created > now() - make_interval(days => ${RECONCILE_FOR_DAYS})
           ORDER BY reconcile_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING app_id, intent_id, order_id, livemode, cancel_requested`,
      [limit],
    )) as [ClaimedIntent[], number];
    return rows;
  }
}
