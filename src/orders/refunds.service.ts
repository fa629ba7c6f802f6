import { Injectable, Logger } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { paysLive } from '../app-context';
import { ApiError } from '../common/api-error';
import { idFromText } from '../common/id-cipher.service';
import { RequestContext, TenantSite } from '../common/request-context';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { TokenIssuer } from '../tokens';
import { HELD_REFUND_STATUSES, Order, PaymentStatus, Refund, RefundSource } from './entities';
import { OrderAccess, OrderRef } from './order-access.service';
import { OrderMails } from './order-mails';
import { allows } from './order-transitions';
import { ordersError } from './orders.errors';
import { PaymentGateway, RefundRequestFailed, RefundView } from './payments';

/** refundOrder's answer (README "Refunds and cancellation"). */
export interface RefundAnswer {
  refundID: string;
  amount: number;
  currency: string;
  refundedTotal: number;
  paymentStatus: PaymentStatus;
}

/**
 * What recording a provider refund did: `refunded` (counted now), `known` (recorded before: nothing
 * changed), `failed` (the provider failed or cancelled it: a counted refund is taken back, a reservation
 * released), `order_not_found` (no order of the app paid with its intent), `currency_mismatch` (logged).
 */
export type RefundOutcome = 'refunded' | 'known' | 'failed' | 'order_not_found' | 'currency_mismatch';

/** Provider statuses of money on its way back (pending settles later, but it was committed). */
const COUNTED = new Set(['succeeded', 'pending', 'requires_action']);

/**
 * Refunds of card payments (README "Refunds and cancellation"), on the same rules as completion:
 *
 *  1. one transaction locks the order, checks it is Paid and that the amount fits the remainder
 *     (paid − refunded − reserved), and reserves the amount as a core_refunds row: concurrent refunds take
 *     turns on the lock, so together they never exceed what was paid;
 *  2. the provider refunds, outside any transaction, under the idempotency key `refund-<app>-<row id>`;
 *  3. `record` settles the row under the order's lock: refunded_total, payment_status, the refund mail
 *     (outbox), and on a full refund the order's tokens expire.
 *
 * The provider's webhook (charge.refunded, refund.updated) goes through the same `record`, so a refund made
 * here and announced by the provider, or made in the provider's dashboard, is counted once.
 * A request for the amount of a reservation that is not settled yet resumes it with the same key, so the
 * provider refunds once: a double submit, a retry after an answer that never came (the reservation is then
 * `unknown`), or after the database failed once the provider had refunded.
 */
@Injectable()
export class RefundsService {
  private readonly logger = new Logger(RefundsService.name);

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly access: OrderAccess,
    private readonly gateway: PaymentGateway,
    private readonly tokens: TokenIssuer,
    private readonly mails: OrderMails,
  ) {}

  /**
   * refundOrder: `amount` cents (default: the whole remainder) of the order's payment. `requestKey` (the
   * request's Idempotency-Key) names the refund: a retry with it resumes or answers that refund.
   */
  async refund(
    ctx: RequestContext,
    ref: OrderRef,
    amount: number | undefined,
    reason: string | null,
    requestKey: string | null = null,
  ): Promise<RefundAnswer> {
    const { order, reservation } = await this.connection.inTransaction(ctx, async (em) => {
      const locked = await this.access.load(ctx, ref, { lock: true });
      const prior = requestKey
        ? await em.getRepository(Refund).findOneBy({ app_id: ctx.appId, order_id: locked.id, request_key: requestKey })
        : null;
      if (prior) return { order: locked, reservation: this.resume(prior, amount) };
      if (!isRefundable(locked)) throw ordersError('ORDER_NOT_PAID');
      return { order: locked, reservation: await this.reserve(em, locked, amount, reason, requestKey) };
    });

    let refund: RefundView;
    try {
      refund = await this.gateway.createRefund(ctx.app, order.payment_livemode ?? paysLive(ctx.app, ctx.production, undefined), {
        paymentIntentId: reservation.payment_intent_id,
        amount: reservation.amount,
        metadata: {
          appID: String(ctx.appId),
          orderID: String(order.id),
          refundRowID: String(reservation.id),
          ...(reservation.reason ? { reason: reservation.reason } : {}),
        },
        idempotencyKey: `refund-${ctx.appId}-${reservation.id}`,
      });
    } catch (error) {
      if (!(error instanceof RefundRequestFailed)) throw error;
      // Refused: nothing happened at the provider, so nothing stays recorded. Unknown: the reservation stays
      // held for a retry to resume (or for the provider's event to settle).
      const rows = this.connection.repository(ctx, Refund);
      if (error.refused) await rows.delete({ id: reservation.id, app_id: ctx.appId, status: In([...HELD_REFUND_STATUSES]) });
      else await rows.update({ id: reservation.id, app_id: ctx.appId, status: 'reserved' }, { status: 'unknown' });
      throw ordersError('PAYMENT_PROVIDER_ERROR', { detail: error.message });
    }
    await this.record(ctx, ctx.app, refund, 'api', reservation.id);
    const settled = await this.connection.repository(ctx, Order).findOneByOrFail({ id: order.id, app_id: ctx.appId });
    return {
      refundID: refund.id,
      amount: refund.amount,
      currency: refund.currency,
      refundedTotal: settled.refunded_total,
      paymentStatus: settled.payment_status!,
    };
  }

  /** The whole remainder of a Paid order, for cancelOrder (null when nothing is left to refund). */
  async refundRemainder(ctx: RequestContext, ref: OrderRef, reason: string | null): Promise<RefundAnswer | null> {
    const order = await this.access.load(ctx, ref);
    if (!isRefundable(order)) return null;
    return this.refund(ctx, ref, undefined, reason);
  }

  /**
   * A refund the provider reports (its answer to us, or its webhook), recorded once on the order paid with
   * its intent: under the order's lock, found by its id, or by the reservation it was made for.
   */
  async record(
    scope: TransactionScope,
    site: TenantSite,
    refund: RefundView,
    source: RefundSource,
    reservationId?: number,
  ): Promise<RefundOutcome> {
    return this.connection.inTransaction(scope, async (em) => {
      const order = await this.lockPaidOrder(em, site.id, refund);
      if (!order) return 'order_not_found';
      const rows = em.getRepository(Refund);
      const rowId = reservationId ?? idFromText(refund.metadata.appID === String(site.id) ? refund.metadata.refundRowID : undefined);
      const known =
        (await rows.findOneBy({ app_id: site.id, refund_id: refund.id })) ??
        (rowId ? await rows.findOneBy({ id: rowId, app_id: site.id, order_id: order.id, status: In([...HELD_REFUND_STATUSES]) }) : null);
      const counted = COUNTED.has(refund.status);

      if (known?.status === 'succeeded') {
        if (counted) return 'known';
        // Counted before, failed or cancelled at the provider since: the money did not go back.
        await rows.update({ id: known.id }, { status: 'failed' });
        await this.applyToOrder(em, scope, site, order, -known.amount, null);
        return 'failed';
      }
      if (!counted) {
        if (known) await rows.update({ id: known.id }, { status: 'failed', refund_id: refund.id });
        return 'failed';
      }
      if (refund.currency.toLowerCase() !== order.currency) {
        this.logger.error(
          { appId: site.id, orderId: order.id, refundId: refund.id, currency: refund.currency, orderCurrency: order.currency },
          'refund in another currency than the order: not counted',
        );
        return 'currency_mismatch';
      }
      if (known) await rows.update({ id: known.id }, { status: 'succeeded', refund_id: refund.id, amount: refund.amount });
      else {
        await rows.insert({
          app_id: site.id,
          order_id: order.id,
          refund_id: refund.id,
          payment_intent_id: order.AuthCode!,
          amount: refund.amount,
          currency: order.currency,
          status: 'succeeded',
          source,
          reason: null,
        });
      }
      if (order.refunded_total + refund.amount > order.total) {
        this.logger.error(
          {
            appId: site.id,
            orderId: order.id,
            refundId: refund.id,
            refunded: order.refunded_total,
            amount: refund.amount,
            paid: order.total,
          },
          'the provider refunded more than the order total',
        );
      }
      await this.applyToOrder(em, scope, site, order, refund.amount, {
        amount: refund.amount,
        reason: known?.reason ?? refund.metadata.reason ?? null,
      });
      return 'refunded';
    });
  }

  /** The refund an Idempotency-Key already named: asked again under the same provider key, so the provider answers the same refund. */
  private resume(prior: Refund, amount: number | undefined): Refund {
    if (amount !== undefined && amount !== prior.amount)
      throw ApiError.field('amount', `This Idempotency-Key was used for a refund of ${prior.amount} cents`);
    if (prior.status === 'failed')
      throw ordersError('PAYMENT_PROVIDER_ERROR', { detail: 'the refund of this Idempotency-Key failed at the provider' });
    return prior;
  }

  /**
   * Reserves `amount` (default the remainder) of a locked Paid order. Without an Idempotency-Key, a request
   * for the amount of a reservation not settled yet resumes it instead (the same key at the provider).
   */
  private async reserve(
    em: EntityManager,
    order: Order,
    amount: number | undefined,
    reason: string | null,
    requestKey: string | null,
  ): Promise<Refund> {
    const rows = em.getRepository(Refund);
    const held = await rows.find({
      where: { app_id: order.app_id, order_id: order.id, status: In([...HELD_REFUND_STATUSES]), source: 'api' },
      order: { id: 'ASC' },
    });
    const resumed = requestKey
      ? undefined
      : held.find((row) => row.request_key === null && (amount === undefined || row.amount === amount));
    if (resumed) return resumed;
    const remainder = order.total - order.refunded_total - held.reduce((sum, row) => sum + row.amount, 0);
    const wanted = amount ?? remainder;
    if (wanted > remainder || wanted < 1)
      throw ApiError.field('amount', `amount must be at most the refundable remainder (${Math.max(0, remainder)} cents)`);
    const inserted = await rows.insert({
      app_id: order.app_id,
      order_id: order.id,
      payment_intent_id: order.AuthCode!,
      amount: wanted,
      currency: order.currency,
      status: 'reserved',
      source: 'api',
      reason,
      request_key: requestKey,
    });
    return rows.findOneByOrFail({ id: (inserted.identifiers[0] as { id: number }).id });
  }

  /** The Paid order of the app whose payment the refund is about (its metadata's order, else the order paid with its intent), locked. */
  private async lockPaidOrder(em: EntityManager, appId: number, refund: RefundView): Promise<Order | null> {
    const query = em.getRepository(Order).createQueryBuilder('o').where('o.app_id = :appId', { appId }).setLock('pessimistic_write');
    const orderId = idFromText(refund.metadata.appID === String(appId) ? refund.metadata.orderID : undefined);
    if (orderId) query.andWhere('o.id = :orderId', { orderId });
    else if (refund.paymentIntentId) query.andWhere('o."AuthCode" = :intent', { intent: refund.paymentIntentId });
    else return null;
    const order = await query.getOne();
    return order && order.orderstatus === 'Paid' && order.AuthCode === refund.paymentIntentId ? order : null;
  }

  /** refunded_total ± cents, payment_status from it, the refund mail for money given back, the tokens expired once nothing stays paid. */
  private async applyToOrder(
    em: EntityManager,
    scope: TransactionScope,
    site: TenantSite,
    order: Order,
    cents: number,
    notice: { amount: number; reason: string | null } | null,
  ): Promise<void> {
    order.refunded_total = Math.max(0, order.refunded_total + cents);
    order.payment_status = paymentStatusAfterRefunds(order);
    await em
      .getRepository(Order)
      .update({ id: order.id, app_id: site.id }, { refunded_total: order.refunded_total, payment_status: order.payment_status });
    if (order.payment_status === 'Refunded') await this.tokens.expireOrderTokens(scope, site.id, order.id);
    if (notice) await this.mails.writeRefund(scope, site, order, notice);
  }
}

/** A Paid order with money left to refund. */
export function isRefundable(order: Pick<Order, 'orderstatus' | 'payment_status'>): boolean {
  return allows('refund', order.orderstatus) && (order.payment_status === 'Success' || order.payment_status === 'Partially Refunded');
}

function paymentStatusAfterRefunds(order: Pick<Order, 'refunded_total' | 'total'>): PaymentStatus {
  if (order.refunded_total <= 0) return 'Success';
  return order.refunded_total >= order.total ? 'Refunded' : 'Partially Refunded';
}
