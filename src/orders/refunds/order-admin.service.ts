import { Injectable } from '@nestjs/common';
import { AuditService } from '../../audit';
import { RequestContext } from '../../common/request-context';
import { TokenIssuerService } from '../../tokens';
import { OrderStatus, PaymentStatus } from '../entities';
import { PaymentIntentsFlow } from '../flows/payment-intents.flow';
import { OrderAccessService, OrderRef } from '../order-access.service';
import { orderItemMachine } from '../order-item-transitions';
import { ADMIN_MAIL_EVENT, CONFIRMATION_MAIL_EVENT, OrderMailsService } from '../completion/order-mails.service';
import { allows, isCompleted, requireTransition } from '../order-transitions';
import { ordersError } from '../orders.errors';
import type { ResendableMail } from './order-admin.dto';
import { orderNumberOf } from '../orders.service';
import { RefundAnswer, RefundReservation, RefundsService } from './refunds.service';
import type { RefundView } from '../checkout/payment-gateway.service';
import { OrderRepository } from '../repositories/order.repository';

export interface CancelAnswer {
  orderStatus: OrderStatus;
  paymentStatus: PaymentStatus | '';
  cancelledItems: number;
  refundID?: string;
}

export interface ListOrdersQuery {
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  from?: string;
  to?: string;
  email?: string;
  search?: string;
  customerId?: number;
  page?: number;
  perPage?: number;
}

export interface ListedOrder {
  _id: string;
  orderID: number;
  orderNumber: string;
  orderStatus: OrderStatus;
  paymentStatus: PaymentStatus | null;
  total: number;
  refundedTotal: number;
  currency: string;
  billingEmail: string | null;
  orderDate: Date | null;
  created: Date;
  items: number;
}

export const DEFAULT_PER_PAGE = 20;

/**
 * The app admin's order routes: the steps of refundOrder and cancelOrder that RefundFlow runs in a
 * transaction of their own (the audited record of a refund, the cancellation), resendOrderMail and listOrders.
 */
@Injectable()
export class OrderAdminService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly access: OrderAccessService,
    private readonly tokens: TokenIssuerService,
    private readonly intents: PaymentIntentsFlow,
    private readonly refunds: RefundsService,
    private readonly audit: AuditService,
    private readonly mails: OrderMailsService,
  ) {}

  /** The fields of an order a staff action changes, as its audit row shows them. */
  private async auditedFields(ctx: RequestContext, orderId: number): Promise<Record<string, unknown>> {
    const order = await this.orders.findOneOrFail(ctx, orderId);
    return {
      orderstatus: order.orderstatus,
      payment_status: order.payment_status,
      total: order.total,
      refunded_total: order.refunded_total,
    };
  }

  /**
   * refundOrder's (and cancelOrder's) step 3, in the transaction RefundFlow opens: the provider's refund
   * recorded (RefundsService.record) and, when it counted, its audit row `order.refund` in the same
   * transaction. The provider's own event may have recorded it first (the payment double delivers it before
   * it answers): the staff member's refund is audited all the same, its `before` then already holding the
   * refund's totals.
   */
  async recordRefund(ctx: RequestContext, reserved: RefundReservation, refund: RefundView): Promise<void> {
    const orderId = reserved.order.id;
    const before = await this.auditedFields(ctx, orderId);
    const outcome = await this.refunds.record(ctx, refund, 'api', reserved.reservation.id);
    if (outcome !== 'refunded' && outcome !== 'known') return;
    await this.audit.record(ctx, {
      action: 'order.refund',
      table: 'core_orders',
      recordId: orderId,
      before,
      after: {
        ...(await this.auditedFields(ctx, orderId)),
        refund_id: refund.id,
        refund_amount: refund.amount,
        reason: reserved.reservation.reason,
      },
    });
  }

  /**
   * cancelOrder's last step, in the transaction RefundFlow opens, after the refund of a Paid order (`refund`:
   * what was left of it, refunded in full): under the order's lock, a New order's open payment intents are
   * cancelled at the provider (PaymentIntentsFlow.cancelAllOpen: 409 for a payment in flight), then every
   * item not Cancelled becomes Cancelled and every token of the order expires. Null, with nothing done, when
   * the order holds payment not refunded yet (paid after the refund step looked): the caller refunds it and
   * cancels again. A New order's total becomes 0 (its cart is empty); a Paid or Ordered order keeps its
   * total (what was paid) and its status.
   */
  async cancel(
    ctx: RequestContext,
    ref: OrderRef,
    refund: RefundAnswer | null,
    reason: string | null = null,
  ): Promise<CancelAnswer | null> {
    const order = await this.access.load(ctx, ref, { lock: true });
    const before = await this.auditedFields(ctx, order.id);
    requireTransition('cancel', order.orderstatus);
    // A New order can still be paid: nothing is cancelled before none of its intents can take money.
    if (allows('emptyCart', order.orderstatus)) await this.intents.cancelAllOpen(ctx, order.id);
    // Paid since the refund step looked (a payment completed in between): its money must go back first.
    else if ((await this.refunds.unrefundedRest(ctx, order)) > 0) return null;
    const cancelled = await this.orders.setItemStatus(
      ctx,
      order.id,
      orderItemMachine.from('cancel'),
      orderItemMachine.transitions.cancel.to!,
    );
    if (allows('emptyCart', order.orderstatus)) await this.orders.recomputeTotal(ctx, order.id);
    else await this.tokens.expireOrderTokens(ctx, order.id, 'cancel');
    const after = await this.orders.findOneOrFail(ctx, order.id);
    await this.audit.record(ctx, {
      action: 'order.cancel',
      table: 'core_orders',
      recordId: order.id,
      before: { ...before, cancelled_items: 0 },
      after: { ...(await this.auditedFields(ctx, order.id)), cancelled_items: cancelled, reason, refund_id: refund?.refundID ?? null },
    });
    return {
      orderStatus: after.orderstatus,
      paymentStatus: after.payment_status ?? '',
      cancelledItems: cancelled,
      ...(refund ? { refundID: refund.refundID } : {}),
    };
  }

  /**
   * A staff member's resend of a completed order's confirmation or admin mail, in the edge's transaction:
   * rendered as the order is now (its items, its tokens' values), written to the outbox, audited.
   */
  async resendMail(ctx: RequestContext, ref: OrderRef, mail: ResendableMail): Promise<{ mails: number }> {
    const order = await this.access.load(ctx, ref);
    if (!isCompleted(order.orderstatus))
      throw ordersError('ORDER_STATE', { detail: `resend the mails of an order that is ${order.orderstatus}` });
    const items = await this.orders.itemsOf(ctx, order.id);
    const tokens = await this.tokens.ofOrderItems(
      ctx,
      items.map((item) => item.id),
    );
    const mails = await this.mails.write(ctx, order, items, tokens, mail === 'admin' ? ADMIN_MAIL_EVENT : CONFIRMATION_MAIL_EVENT);
    await this.audit.record(ctx, { action: 'order.resend', table: 'core_orders', recordId: order.id, after: { mail, mails } });
    return { mails };
  }

  /**
   * listOrders: the app's orders, newest first, one page. Every filter is a column of an index that starts
   * with app_id and ends with (created DESC, id DESC), so a page reads about perPage index entries whatever
   * the number of orders (test/orders/refunds.e2e.ts checks the plan).
   */
  async list(
    ctx: RequestContext,
    query: ListOrdersQuery,
  ): Promise<{ data: ListedOrder[]; paging: { page: number; perPage: number; hasMore: boolean } }> {
    const page = query.page ?? 1;
    const perPage = query.perPage ?? DEFAULT_PER_PAGE;
    const { status, paymentStatus, email, search, customerId, from, to } = query;
    const orders = await this.orders.list(ctx, {
      status,
      paymentStatus,
      email,
      search,
      customerId,
      from,
      to,
      offset: (page - 1) * perPage,
      limit: perPage + 1,
    });
    const hasMore = orders.length > perPage;
    const shown = orders.slice(0, perPage);
    const counts = await this.orders.itemCounts(
      ctx,
      shown.map((order) => order.id),
    );
    return {
      data: shown.map((order) => ({
        _id: this.access.encrypt(ctx, order.id),
        orderID: order.id,
        orderNumber: orderNumberOf(order.id),
        orderStatus: order.orderstatus,
        paymentStatus: order.payment_status,
        total: order.total,
        refundedTotal: order.refunded_total,
        currency: order.currency,
        billingEmail: order.BillingEmail,
        orderDate: order.order_date,
        created: order.created,
        items: counts.get(order.id) ?? 0,
      })),
      paging: { page, perPage, hasMore },
    };
  }
}
