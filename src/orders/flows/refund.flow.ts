import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { OrderRef } from '../order-access.service';
import { CancelAnswer, OrderAdminService } from '../refunds/order-admin.service';
import { ordersError } from '../orders.errors';
import { RefundAnswer, RefundReservation, RefundsService } from '../refunds/refunds.service';

/** How many times cancelOrder refunds and cancels before it answers 409 (each turn finds a payment made during the last). */
const CANCEL_TURNS = 3;

/** What a staff member's refund asks for: `amount` cents (default: the whole refundable remainder), and why. */
export interface RefundRequest {
  amount?: number;
  reason?: string;
}

/**
 * An admin's refund of an order's card payment (refundOrder), and the cancellation of an order (cancelOrder),
 * which refunds a Paid order in full first (README "Refunds and cancellation"). The provider is never called
 * inside a transaction or under the order's lock, so a refund is three steps, each step that writes in a
 * short transaction of its own (RefundsService describes them):
 *
 *  1. reserve: the amount reserved under the order's lock (RefundsService.reserve, or reserveRest for a cancel);
 *  2. the provider refunds the reservation (RefundsService.requestRefund), outside any transaction;
 *  3. record: the provider's refund recorded with its audit row (OrderAdminService.recordRefund).
 *
 * A cancel then cancels the order in one more transaction (OrderAdminService.cancel).
 */
@Injectable()
export class RefundFlow {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly refunds: RefundsService,
    private readonly admin: OrderAdminService,
  ) {}

  /**
   * refundOrder: the order's payment refunded at the provider as `request` asks; the refund and the order's
   * totals after it. `requestKey` (the request's Idempotency-Key) names the refund: a retry with it answers
   * the same refund, made once.
   */
  async refund(ctx: RequestContext, ref: OrderRef, request: RefundRequest, requestKey: string | null): Promise<RefundAnswer> {
    const reason = request.reason?.trim() || null;
    const reserved = await this.connection.inTransaction(ctx, () => this.refunds.reserve(ctx, ref, request.amount, reason, requestKey));
    return this.send(ctx, reserved);
  }

  /**
   * cancelOrder: a Paid order's whole rest is refunded first (a failed refund cancels nothing), then the order
   * is cancelled in one transaction, which cancels a New order's open intents at the provider first. An order
   * paid between the two (the customer's payment completed meanwhile) is refunded, then cancelled, on the next
   * turn; 409 ORDER_BUSY when it never settles.
   */
  async cancel(ctx: RequestContext, ref: OrderRef, reasonGiven: string | undefined): Promise<CancelAnswer> {
    const reason = reasonGiven?.trim() || null;
    let refund: RefundAnswer | null = null;
    for (let turn = 0; turn < CANCEL_TURNS; turn++) {
      const rest = await this.connection.inTransaction(ctx, () => this.refunds.reserveRest(ctx, ref, reason));
      if (rest) refund = await this.send(ctx, rest);
      const cancelled = await this.connection.inTransaction(ctx, () => this.admin.cancel(ctx, ref, refund, reason));
      if (cancelled) return cancelled;
    }
    throw ordersError('ORDER_BUSY');
  }

  /** Steps 2 and 3 of a refund reserved: the provider's refund (no transaction), then recorded with its audit row (a transaction). */
  private async send(ctx: RequestContext, reserved: RefundReservation): Promise<RefundAnswer> {
    const refund = await this.refunds.requestRefund(ctx, reserved);
    await this.connection.inTransaction(ctx, () => this.admin.recordRefund(ctx, reserved, refund));
    return this.refunds.answer(ctx, reserved.order.id, refund);
  }
}
