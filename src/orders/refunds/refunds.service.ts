import { Injectable, Logger } from '@nestjs/common';
import { paysLive } from '../../app-context';
import { ApiError } from '../../common/api-error';
import { idFromText } from '../../common/id-cipher.service';
import { RequestContext } from '../../common/request-context';
import { TokenIssuerService } from '../../tokens';
import { HELD_REFUND_STATUSES, Order, PaymentStatus, Refund, RefundSource } from '../entities';
import { OrderAccessService, OrderRef } from '../order-access.service';
import { OrderMailsService } from '../completion/order-mails.service';
import { allows } from '../order-transitions';
import { ordersError } from '../orders.errors';
import { PaymentNoticesService } from '../checkout/payment-notices.service';
import { PaymentGatewayService, RefundRequestFailed, RefundView } from '../checkout/payment-gateway.service';
import { OrderRepository } from '../repositories/order.repository';
import { RefundRepository } from '../repositories/refund.repository';

/** refundOrder's answer (README "Refunds and cancellation"). */
export interface RefundAnswer {
  refundID: string;
  amount: number;
  currency: string;
  refundedTotal: number;
  paymentStatus: PaymentStatus;
}

/** Step 1's result: the locked order as it was, and the refund row reserved (or resumed) for it. */
export interface RefundReservation {
  order: Order;
  reservation: Refund;
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
 * Refunds of card payments (README "Refunds and cancellation"), on the same rules as completion, in three
 * steps RefundFlow runs (the provider is never called inside a transaction):
 *
 *  1. `reserve`, in one transaction: locks the order, checks it is Paid and that the amount fits the
 *     remainder (paid − refunded − reserved), and reserves the amount as a core_refunds row: concurrent
 *     refunds take turns on the lock, so together they never exceed what was paid;
 *  2. `requestRefund`: the provider refunds, outside any transaction, under the idempotency key
 *     `refund-<app>-<row id>`;
 *  3. `record`, in a transaction: settles the row under the order's lock: refunded_total, payment_status,
 *     the refund mail (outbox), and on a full refund the order's tokens expire.
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
    private readonly orders: OrderRepository,
    private readonly refunds: RefundRepository,
    private readonly access: OrderAccessService,
    private readonly gateway: PaymentGatewayService,
    private readonly tokens: TokenIssuerService,
    private readonly mails: OrderMailsService,
    private readonly notices: PaymentNoticesService,
  ) {}

  /**
   * refundOrder step 1, in the edge's transaction: `amount` cents (default: the whole remainder) of the
   * order's payment reserved. `requestKey` (the request's Idempotency-Key) names the refund: a retry with it
   * resumes or answers that refund.
   */
  async reserve(
    ctx: RequestContext,
    ref: OrderRef,
    amount: number | undefined,
    reason: string | null,
    requestKey: string | null = null,
  ): Promise<RefundReservation> {
    const locked = await this.access.load(ctx, ref, { lock: true });
    const prior = requestKey ? await this.refunds.findByRequestKey(ctx, locked.id, requestKey) : null;
    if (prior) return { order: locked, reservation: this.resume(prior, amount) };
    if (locked.payment_status === 'Disputed') throw ordersError('ORDER_DISPUTED');
    if (!isRefundable(locked)) throw ordersError('ORDER_NOT_PAID');
    return { order: locked, reservation: await this.reserveAmount(ctx, locked, amount, reason, requestKey) };
  }

  /**
   * Step 2, outside any transaction: the provider refunds the reservation. Refused: nothing happened at the
   * provider, so nothing stays recorded. Unknown: the reservation stays held for a retry to resume (or for
   * the provider's event to settle). Either way 502.
   */
  async requestRefund(ctx: RequestContext, { order, reservation }: RefundReservation): Promise<RefundView> {
    try {
      return await this.gateway.createRefund(ctx, order.payment_livemode ?? paysLive(ctx.app, ctx.production, undefined), {
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
      if (error.refused) await this.refunds.deleteHeld(ctx, reservation.id);
      else await this.refunds.markUnknown(ctx, reservation.id);
      throw ordersError('PAYMENT_PROVIDER_ERROR', { detail: error.message });
    }
  }

  /** refundOrder's answer once step 3 committed: the refund and the order's totals as it left them. */
  async answer(ctx: RequestContext, orderId: number, refund: RefundView): Promise<RefundAnswer> {
    const settled = await this.orders.findOneOrFail(ctx, orderId);
    return {
      refundID: refund.id,
      amount: refund.amount,
      currency: refund.currency,
      refundedTotal: settled.refunded_total,
      paymentStatus: settled.payment_status!,
    };
  }

  /** What of a locked order's payment is neither refunded nor being refunded (0 for an order not paid by card). */
  async unrefundedRest(ctx: RequestContext, locked: Order): Promise<number> {
    if (!isRefundable(locked)) return 0;
    const held = await this.refunds.heldOfOrder(ctx, locked.id);
    return locked.total - locked.refunded_total - held.reduce((sum, row) => sum + row.amount, 0);
  }

  /**
   * cancelOrder's refund, step 1, in the edge's transaction: the whole paid rest of a Paid order (paid −
   * refunded − refunds still in flight, which settle on their own) reserved under the order's lock; null when
   * nothing is left. A retried cancel resumes the reservation an earlier one left unanswered (the same key at
   * the provider), so the rest is refunded once.
   */
  async reserveRest(ctx: RequestContext, ref: OrderRef, reason: string | null): Promise<RefundReservation | null> {
    const locked = await this.access.load(ctx, ref, { lock: true });
    if (!isRefundable(locked)) return null;
    const key = `cancel-${locked.refunded_total}`;
    const prior = await this.refunds.findByRequestKey(ctx, locked.id, key);
    if (prior && HELD_REFUND_STATUSES.includes(prior.status)) return { order: locked, reservation: prior };
    const rest = await this.unrefundedRest(ctx, locked);
    if (rest < 1) return null;
    const id = await this.refunds.insert(ctx, {
      order_id: locked.id,
      payment_intent_id: locked.AuthCode!,
      amount: rest,
      currency: locked.currency,
      status: 'reserved',
      source: 'api',
      reason,
      request_key: prior ? `${key}-${prior.id}` : key,
    });
    return { order: locked, reservation: await this.refunds.findOneOrFail(ctx, id) };
  }

  /**
   * A refund the provider reports (its answer to us, or its webhook), recorded once on the order paid with
   * its intent, in the edge's transaction: under the order's lock, found by its id, or by the reservation it
   * was made for.
   */
  async record(ctx: RequestContext, refund: RefundView, source: RefundSource, reservationId?: number): Promise<RefundOutcome> {
    const site = ctx.app;
    const order = await this.lockPaidOrder(ctx, refund);
    if (!order) return 'order_not_found';
    const rowId = reservationId ?? idFromText(refund.metadata.appID === String(site.id) ? refund.metadata.refundRowID : undefined);
    const known = (await this.refunds.findByRefundId(ctx, refund.id)) ?? (rowId ? await this.refunds.findHeld(ctx, rowId, order.id) : null);
    const counted = COUNTED.has(refund.status);

    if (known?.status === 'succeeded') {
      if (counted) return 'known';
      // Counted before, failed or cancelled at the provider since: the money did not go back. What the
      // refund took comes back (the totals, the tokens its refund in full expired) and the admins are told.
      await this.refunds.update(ctx, known.id, { status: 'failed' });
      const { restoredTokens } = await this.applyToOrder(ctx, order, -known.amount, null);
      await this.notices.refundFailed(ctx, order, { id: refund.id, amount: known.amount, status: refund.status }, restoredTokens);
      return 'failed';
    }
    if (!counted) {
      if (known) await this.refunds.update(ctx, known.id, { status: 'failed', refund_id: refund.id });
      return 'failed';
    }
    if (refund.currency.toLowerCase() !== order.currency) {
      this.logger.error(
        { appId: site.id, orderId: order.id, refundId: refund.id, currency: refund.currency, orderCurrency: order.currency },
        'refund in another currency than the order: not counted',
      );
      return 'currency_mismatch';
    }
    if (known) await this.refunds.update(ctx, known.id, { status: 'succeeded', refund_id: refund.id, amount: refund.amount });
    else {
      await this.refunds.insert(ctx, {
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
    await this.applyToOrder(ctx, order, refund.amount, {
      amount: refund.amount,
      reason: known?.reason ?? refund.metadata.reason ?? null,
    });
    return 'refunded';
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
  private async reserveAmount(
    ctx: RequestContext,
    order: Order,
    amount: number | undefined,
    reason: string | null,
    requestKey: string | null,
  ): Promise<Refund> {
    const held = await this.refunds.heldOfOrder(ctx, order.id);
    const resumed = requestKey
      ? undefined
      : held.find((row) => row.request_key === null && (amount === undefined || row.amount === amount));
    if (resumed) return resumed;
    const remainder = order.total - order.refunded_total - held.reduce((sum, row) => sum + row.amount, 0);
    const wanted = amount ?? remainder;
    if (wanted > remainder || wanted < 1)
      throw ApiError.field('amount', `amount must be at most the refundable remainder (${Math.max(0, remainder)} cents)`);
    const id = await this.refunds.insert(ctx, {
      order_id: order.id,
      payment_intent_id: order.AuthCode!,
      amount: wanted,
      currency: order.currency,
      status: 'reserved',
      source: 'api',
      reason,
      request_key: requestKey,
    });
    return this.refunds.findOneOrFail(ctx, id);
  }

  /** The Paid order of the app whose payment the refund is about (its metadata's order, else the order paid with its intent), locked. */
  private async lockPaidOrder(ctx: RequestContext, refund: RefundView): Promise<Order | null> {
    const orderId = idFromText(refund.metadata.appID === String(ctx.appId) ? refund.metadata.orderID : undefined);
    const order = await this.orders.lockForRefund(ctx, orderId, refund.paymentIntentId);
    return order && allows('refund', order.orderstatus) && order.AuthCode === refund.paymentIntentId ? order : null;
  }

  /**
   * refunded_total ± cents, payment_status from it, the refund mail for money given back; the tokens expire
   * (reason `refund`) once nothing stays paid, and come back (only those that refund expired) when a failed
   * refund makes something paid again. How many tokens came back.
   */
  private async applyToOrder(
    ctx: RequestContext,
    order: Order,
    cents: number,
    notice: { amount: number; reason: string | null } | null,
  ): Promise<{ restoredTokens: number }> {
    const wasRefunded = isRefundedInFull(order);
    order.refunded_total = Math.max(0, order.refunded_total + cents);
    // While disputed the status stays Disputed (a dispute won gives back the one the refunds left).
    if (order.payment_status !== 'Disputed') order.payment_status = paymentStatusAfterRefunds(order);
    await this.orders.set(ctx, order.id, { refunded_total: order.refunded_total, payment_status: order.payment_status });
    let restoredTokens = 0;
    if (isRefundedInFull(order)) await this.tokens.expireOrderTokens(ctx, order.id, 'refund');
    else if (wasRefunded) restoredTokens = await this.tokens.restoreOrderTokens(ctx, order.id);
    if (notice) await this.mails.writeRefund(ctx, order, notice);
    return { restoredTokens };
  }
}

/** A Paid order with money left to refund. */
export function isRefundable(order: Pick<Order, 'orderstatus' | 'payment_status'>): boolean {
  return allows('refund', order.orderstatus) && (order.payment_status === 'Success' || order.payment_status === 'Partially Refunded');
}

/** Nothing of the order's payment stays paid. */
function isRefundedInFull(order: Pick<Order, 'refunded_total' | 'total'>): boolean {
  return order.refunded_total > 0 && order.refunded_total >= order.total;
}

export function paymentStatusAfterRefunds(order: Pick<Order, 'refunded_total' | 'total'>): PaymentStatus {
  if (order.refunded_total <= 0) return 'Success';
  return isRefundedInFull(order) ? 'Refunded' : 'Partially Refunded';
}
