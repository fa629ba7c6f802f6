import { Injectable, Logger } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { MailOutboxService } from '../../messaging';
import { Order } from '../entities';
import { moneyFormat, OrderMailsService } from '../completion/order-mails.service';

/** core_notification_log.event of the administrators' mails about an order's money that did not go as asked. */
export const REFUND_FAILED_MAIL_EVENT = 'order_refund_failed';
export const DISPUTE_MAIL_EVENT = 'order_dispute';
export const AUTO_REFUND_MAIL_EVENT = 'order_auto_refund';

/** `<domain> - <what> for order #<orderID>`. */
export function noticeSubject(domain: string, what: string, orderId: number): string {
  return `${domain} - ${what} for order #${orderId}`;
}

/** The order as a notice describes it. */
export type NoticeOrder = Pick<Order, 'id' | 'total' | 'refunded_total' | 'currency' | 'payment_status' | 'BillingEmail'>;

/**
 * Plain-text mails to the app's administrator recipients (those of the admin order mail: email_cc, email_bcc,
 * else email_from) about an order's money the provider reports going another way than asked: a counted refund
 * that failed, a dispute of the payment, a payment the order could not take and that goes back by itself.
 * Written to the outbox in the caller's transaction, so each is sent once after commit, and only when the
 * change it reports was made. None for an app with disable_email (logged).
 */
@Injectable()
export class PaymentNoticesService {
  private readonly logger = new Logger(PaymentNoticesService.name);

  constructor(
    private readonly outbox: MailOutboxService,
    private readonly mails: OrderMailsService,
  ) {}

  /** A refund counted before failed (or was cancelled) at the provider: the money did not go back. */
  refundFailed(
    ctx: RequestContext,
    order: NoticeOrder,
    refund: { id: string; amount: number; status: string },
    restoredTokens: number,
  ): Promise<boolean> {
    const money = moneyFormat(order.currency);
    const how = refund.status === 'canceled' ? 'was cancelled' : 'failed';
    return this.write(ctx, order, REFUND_FAILED_MAIL_EVENT, 'Refund failed', [
      `The refund ${refund.id} of ${money(refund.amount)} for order #${order.id} ${how} at the payment provider: the money was not returned to the customer.`,
      '',
      `Refunded so far: ${money(order.refunded_total)} of ${money(order.total)}. Payment status: ${order.payment_status ?? ''}.`,
      ...(restoredTokens > 0 ? [`The ${restoredTokens} access token(s) this refund had expired are valid again.`] : []),
      'Refund the order again (refundOrder) or settle with the customer otherwise.',
    ]);
  }

  /** A payment arrived for an order that could not take it (`why`), and is being refunded whole, automatically. */
  autoRefund(
    ctx: RequestContext,
    order: NoticeOrder,
    intent: { id: string; amount: number; currency: string },
    why: string,
  ): Promise<boolean> {
    const money = moneyFormat(intent.currency.toLowerCase());
    return this.write(ctx, order, AUTO_REFUND_MAIL_EVENT, 'Payment refunded automatically', [
      `A payment of ${money(intent.amount)} (${intent.id}) arrived for order #${order.id}, which could not take it: ${why}.`,
      'The whole payment is being refunded to the customer automatically; nothing was delivered for it.',
    ]);
  }

  /** The provider reports a dispute (chargeback) of the order's payment opened or closed. */
  dispute(ctx: RequestContext, order: NoticeOrder, what: string, lines: string[]): Promise<boolean> {
    return this.write(ctx, order, DISPUTE_MAIL_EVENT, what, lines);
  }

  private async write(ctx: RequestContext, order: NoticeOrder, event: string, what: string, lines: string[]): Promise<boolean> {
    const site = ctx.app;
    const admins = site.disable_email ? null : await this.mails.adminRecipients(ctx);
    if (!admins || admins.visible.length + admins.hidden.length === 0) {
      this.logger.warn({ appId: site.id, orderId: order.id, event }, 'payment notice not written: disable_email, or no recipient');
      return false;
    }
    await this.outbox.enqueue(ctx, {
      event,
      from: site.email_from?.trim() || `no-reply@${site.domain}`,
      to: admins.visible[0] ?? null,
      cc: admins.visible.slice(1),
      bcc: admins.hidden,
      subject: noticeSubject(site.domain, what, order.id),
      text: [...lines, '', `Order ID: ${order.id}`, `Billing email: ${order.BillingEmail ?? ''}`, ''].join('\n'),
      linkedTable: 'core_orders',
      masterId: order.id,
    });
    return true;
  }
}
