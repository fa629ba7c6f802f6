import { Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { RequestContext } from '../../common/request-context';
import { TokenIssuerService } from '../../tokens';
import { Order } from '../entities';
import { moneyFormat } from '../completion/order-mails.service';
import { allows } from '../order-transitions';
import { PaymentNoticesService } from '../checkout/payment-notices.service';
import { paymentStatusAfterRefunds } from './refunds.service';
import { OrderRepository } from '../repositories/order.repository';

/** The provider's dispute events the service acts on (README "Refunds and cancellation"). */
export const DISPUTE_CREATED = 'charge.dispute.created';
export const DISPUTE_CLOSED = 'charge.dispute.closed';
export const DISPUTE_EVENTS: ReadonlySet<string> = new Set([DISPUTE_CREATED, DISPUTE_CLOSED]);

/**
 * What a dispute event did: `disputed` (the order is Disputed now), `dispute_won` (back to the status its
 * refunds give it), `dispute_lost` (its tokens expired), `known` (the dispute was known in that state, or is
 * closed already: nothing changed), `order_not_found` (no Paid order of the app was paid with its intent).
 */
export type DisputeOutcome = 'disputed' | 'dispute_won' | 'dispute_lost' | 'known' | 'order_not_found';

/** A dispute as the service reads it from the provider's Dispute object. */
export interface DisputeView {
  id: string;
  chargeId: string | null;
  paymentIntentId: string | null;
  /** Cents disputed (the whole charge, or part of it). */
  amount: number;
  currency: string;
  /** The provider's status: `warning_needs_response`, `warning_under_review`, `warning_closed`, `needs_response`, `under_review`, `won`, `lost`. */
  status: string;
  reason: string | null;
}

/** Final statuses: the card holder's bank decided (or an inquiry closed without a chargeback). */
const CLOSED: ReadonlySet<string> = new Set(['won', 'lost', 'warning_closed']);

export function disputeViewOf(dispute: Stripe.Dispute): DisputeView {
  const idOf = (value: unknown): string | null =>
    typeof value === 'string' ? value : typeof (value as { id?: unknown })?.id === 'string' ? (value as { id: string }).id : null;
  return {
    id: String(dispute.id ?? ''),
    chargeId: idOf(dispute.charge),
    paymentIntentId: idOf(dispute.payment_intent),
    amount: Number(dispute.amount ?? 0),
    currency: String(dispute.currency ?? ''),
    status: String(dispute.status ?? ''),
    reason: typeof dispute.reason === 'string' ? dispute.reason : null,
  };
}

/**
 * Disputes (chargebacks) of an order's card payment, applied in the transaction PaymentEventsFlow opened for
 * the recorded event, under the lock of the Paid order of the app paid with the dispute's payment intent:
 *
 * - `charge.dispute.created`: payment_status `Disputed` (refundOrder then answers 409: the provider refuses
 *   refunds of a disputed charge, the dispute decides the money), the dispute's id and status kept on the
 *   order, an admin mail. The tokens stay valid while the dispute is open.
 * - `charge.dispute.closed` `lost`: the card network took the money back. The order's tokens expire (reason
 *   `dispute`, final: not even a refund failing later brings them back); payment_status stays `Disputed`
 *   (the money did not leave as a refund, so refunded_total does not move; dispute_status says `lost`); an
 *   admin mail.
 * - `charge.dispute.closed` `won` (or `warning_closed`, an inquiry that never became a chargeback): the status
 *   the order's refunds give it again (Success, Partially Refunded or Refunded); an admin mail.
 *
 * Each event is applied once by the inbox; a dispute already closed on the order ignores every later event
 * about it (a redelivery, a late `created`), and the same state reported again changes nothing.
 */
@Injectable()
export class DisputesService {
  private readonly logger = new Logger(DisputesService.name);

  constructor(
    private readonly orders: OrderRepository,
    private readonly tokens: TokenIssuerService,
    private readonly notices: PaymentNoticesService,
  ) {}

  /** Applies a dispute event of `type` in the caller's transaction; what it did, and the order it was about. */
  async apply(ctx: RequestContext, type: string, dispute: DisputeView): Promise<{ outcome: DisputeOutcome; orderId: number | null }> {
    const order = await this.lockPaidOrder(ctx, dispute);
    if (!order) return { outcome: 'order_not_found', orderId: null };
    const sameDispute = order.dispute_id === dispute.id;
    if (sameDispute && order.dispute_status !== null && CLOSED.has(order.dispute_status)) return { outcome: 'known', orderId: order.id };
    if (type === DISPUTE_CREATED || !CLOSED.has(dispute.status)) {
      if (sameDispute && order.payment_status === 'Disputed') return { outcome: 'known', orderId: order.id };
      return { outcome: await this.opened(ctx, order, dispute), orderId: order.id };
    }
    return { outcome: await this.closed(ctx, order, dispute), orderId: order.id };
  }

  private async opened(ctx: RequestContext, order: Order, dispute: DisputeView): Promise<DisputeOutcome> {
    order.payment_status = 'Disputed';
    await this.orders.set(ctx, order.id, { payment_status: order.payment_status, dispute_id: dispute.id, dispute_status: dispute.status });
    await this.notices.dispute(ctx, order, 'Payment disputed', [
      `The customer disputed the payment of order #${order.id} with their card issuer: ${this.describe(order, dispute)}.`,
      '',
      'The order is Disputed: it cannot be refunded while the dispute is open, and its access tokens stay valid until the dispute is lost.',
      "Answer the dispute with your evidence in the payment provider's dashboard before its deadline.",
    ]);
    return 'disputed';
  }

  private async closed(ctx: RequestContext, order: Order, dispute: DisputeView): Promise<DisputeOutcome> {
    if (dispute.status === 'lost') {
      order.payment_status = 'Disputed';
      await this.orders.set(ctx, order.id, {
        payment_status: order.payment_status,
        dispute_id: dispute.id,
        dispute_status: dispute.status,
      });
      const expired = await this.tokens.expireOrderTokens(ctx, order.id, 'dispute');
      await this.notices.dispute(ctx, order, 'Dispute lost', [
        `The dispute of the payment of order #${order.id} was lost: ${this.describe(order, dispute)}. ` +
          'The disputed amount went back to the customer through their card issuer.',
        '',
        `${expired} access token(s) of the order expired. The order stays Disputed.`,
      ]);
      return 'dispute_lost';
    }
    order.payment_status = paymentStatusAfterRefunds(order);
    await this.orders.set(ctx, order.id, { payment_status: order.payment_status, dispute_id: dispute.id, dispute_status: dispute.status });
    await this.notices.dispute(ctx, order, 'Dispute won', [
      `The dispute of the payment of order #${order.id} was closed in your favour (${dispute.status}): ${this.describe(order, dispute)}.`,
      '',
      `Payment status: ${order.payment_status}.`,
    ]);
    return 'dispute_won';
  }

  /** `<amount> (<reason>), dispute <id>`. */
  private describe(order: Order, dispute: DisputeView): string {
    const currency = dispute.currency || order.currency;
    const amount = moneyFormat(currency)(dispute.amount);
    return `${amount}${dispute.reason ? ` (${dispute.reason})` : ''}, dispute ${dispute.id}`;
  }

  /** The Paid card order of the app paid with the dispute's intent, locked; null (logged) when there is none. */
  private async lockPaidOrder(ctx: RequestContext, dispute: DisputeView): Promise<Order | null> {
    const order = dispute.paymentIntentId ? await this.orders.lockForRefund(ctx, null, dispute.paymentIntentId) : null;
    if (order && allows('refund', order.orderstatus) && order.AuthCode === dispute.paymentIntentId) return order;
    this.logger.warn(
      { appId: ctx.appId, disputeId: dispute.id, intentId: dispute.paymentIntentId, chargeId: dispute.chargeId },
      'dispute of a payment that paid no order of this app',
    );
    return null;
  }
}
