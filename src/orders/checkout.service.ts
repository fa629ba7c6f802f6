import { Injectable, Logger } from '@nestjs/common';
import { paysLive } from '../app-context';
import { isAppAdmin } from '../auth';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { TransactionalConnection } from '../database/transactional-connection';
import { BILLING_FIELDS, BillingData, BillingField, SubmitMethod } from './checkout.dto';
import { Order, OrderItem } from './entities';
import { OrderAccess, OrderRef } from './order-access.service';
import { CompletionResult, OrderCompletion } from './order-completion.service';
import { counts, orderTotal } from './order-totals';
import { requireTransition } from './order-transitions';
import { ordersError } from './orders.errors';
import { PaymentGateway } from './payments';

export interface IntentAnswer {
  clientSecret: string;
  paymentIntentID: string;
}

export interface OrderStatusAnswer {
  orderStatus: string;
  orderStatusLabel: string;
  paymentStatus: string;
}

export interface PaymentRequest {
  amount: number;
  currency?: string;
  production?: boolean;
}

/**
 * Paying for an order: checkout (billing fields + a card payment intent in one call), the legacy two-step
 * createPaymentIntent / paymentComplete, and submitOrder (`Order Only`, `REDO`). The completion itself is
 * OrderCompletion's, shared with the payment webhook.
 *
 * The provider is never called inside a transaction or under the order's row lock: the checks and the
 * billing fields commit in one short transaction, then the intent is created (idempotently: a retried
 * checkout gets the same intent), then its id is stored.
 */
@Injectable()
export class CheckoutService {
  private readonly logger = new Logger(CheckoutService.name);

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly access: OrderAccess,
    private readonly gateway: PaymentGateway,
    private readonly completion: OrderCompletion,
  ) {}

  /** POST /ecommerce/checkout: saves the billing fields, then opens the card payment. */
  checkout(ctx: RequestContext, ref: OrderRef, payment: PaymentRequest, billing: BillingData): Promise<IntentAnswer> {
    return this.openPayment(ctx, ref, payment, billing);
  }

  /** POST /ecommerce/createPaymentIntent: checkout without billing fields (legacy two-step flow). */
  createPaymentIntent(ctx: RequestContext, ref: OrderRef, payment: PaymentRequest): Promise<IntentAnswer> {
    return this.openPayment(ctx, ref, payment, null);
  }

  /**
   * POST /ecommerce/paymentComplete: asks the provider for the intent and completes the order when it has
   * succeeded and pays for the order as it is (payment-match.ts, checked under the order's lock). Idempotent
   * with the webhook: whichever comes second finds the order complete, does nothing and answers its status.
   */
  async paymentComplete(ctx: RequestContext, ref: OrderRef, intentId: string, production: boolean | undefined): Promise<OrderStatusAnswer> {
    const order = await this.access.load(ctx, ref);
    if (order.orderstatus !== 'New') {
      if (order.AuthCode === intentId) return statusOf(order); // completed already (the webhook came first)
      requireTransition('payByCard', order.orderstatus);
    }
    const intent = await this.gateway.retrieveIntent(ctx.app, paysLive(ctx.app, ctx.production, production), intentId);
    if (intent.status !== 'succeeded') throw ordersError('PAYMENT_NOT_SUCCEEDED');
    const result = await this.completion.complete(ctx, ctx.app, order.id, { method: 'Card', intent });
    if (result.outcome === 'already_complete' && result.order?.orderstatus === 'Paid') {
      // The webhook (or a parallel paymentComplete) completed it first: its status is the answer.
      if (result.order.AuthCode !== intent.id)
        this.logger.warn(
          { appId: ctx.appId, orderId: order.id, authCode: result.order.AuthCode, intentId: intent.id },
          'paymentComplete: the order was paid with another intent',
        );
      return statusOf(result.order);
    }
    return this.answer(result, order, 'payByCard');
  }

  /**
   * POST /ecommerce/submitOrder. `Order Only`: completes a New order without a card payment (Ordered,
   * payment_status Success, no payment reference). An order with digital items would get its access tokens
   * without any payment, so a shopper may submit only orders without digital items; an admin of the app may
   * submit any. `REDO` (admins only): re-runs the completion steps of a Paid or Ordered order without emails.
   */
  async submitOrder(ctx: RequestContext, ref: OrderRef, method: SubmitMethod, notes: string | undefined): Promise<OrderStatusAnswer> {
    const admin = isAppAdmin(ctx.principal?.appId === ctx.appId ? ctx.principal : null);
    if (method === 'REDO') {
      if (!ctx.principal) throw ApiError.unauthorized();
      if (!admin) throw ApiError.forbidden();
    }
    // Locked for the route's transaction: the cart cannot change between the checks and the completion.
    const order = await this.access.load(ctx, ref, { lock: true, reconcile: method !== 'REDO' });
    if (method === 'REDO') {
      const result = await this.completion.complete(ctx, ctx.app, order.id, { method: 'REDO', notes });
      return this.answer(result, order, 'redo');
    }
    if (order.orderstatus === 'Ordered' && order.paymentMethodRef === 'Order Only') return statusOf(order); // a retried submit
    requireTransition('submitOrderOnly', order.orderstatus);
    const result = await this.completion.complete(ctx, ctx.app, order.id, { method: 'Order Only', allowDigital: admin, notes });
    if (result.outcome === 'already_complete' && result.order?.orderstatus === 'Ordered' && result.order.paymentMethodRef === 'Order Only')
      return statusOf(result.order);
    return this.answer(result, order, 'submitOrderOnly');
  }

  /**
   * checkout and createPaymentIntent: (1) one short transaction locks the order, checks that it can be paid
   * and that `amount` is its total (recomputed from its items), and saves the billing fields, the currency
   * and paymentMethodRef `Card`; (2) the provider creates the intent, outside any transaction; (3) its id
   * is stored while the order is still New.
   */
  private async openPayment(
    ctx: RequestContext,
    ref: OrderRef,
    payment: PaymentRequest,
    billing: BillingData | null,
  ): Promise<IntentAnswer> {
    const site = ctx.app;
    const live = paysLive(site, ctx.production, payment.production);
    const currency = site.currency;
    if (payment.currency !== undefined && payment.currency !== currency)
      throw ApiError.field('currency', `currency must be the app's currency (${currency})`);
    // Refused before step (1): a request refused for a missing key must not leave the order changed.
    this.gateway.requireConfigured(site, live);

    const order = await this.connection.inTransaction(ctx, async (em) => {
      const locked = await this.access.load(ctx, ref, { lock: true, reconcile: true });
      requireTransition('checkout', locked.orderstatus);
      const items = await em.getRepository(OrderItem).find({ where: { Order_ID: locked.id, app_id: ctx.appId } });
      const total = orderTotal(items);
      if (!items.some(counts) || total === 0) throw ordersError('ORDER_EMPTY');
      if (payment.amount !== total)
        throw ApiError.field('amount', `amount must equal the order total (${total} in the smallest currency unit)`);
      const fields: Partial<Order> = { paymentMethodRef: 'Card', currency, total };
      if (billing) {
        for (const [field, column] of Object.entries(BILLING_FIELDS) as [BillingField, (typeof BILLING_FIELDS)[BillingField]][]) {
          const value = billing[field];
          if (value !== undefined) fields[column] = value.trim() === '' ? null : value.trim();
        }
      }
      await em
        .getRepository(Order)
        .createQueryBuilder()
        .update()
        .set(fields)
        .where('id = :id AND app_id = :appId', { id: locked.id, appId: ctx.appId })
        .execute();
      return Object.assign(locked, fields);
    });

    const intent = await this.gateway.createIntent(site, live, {
      amount: payment.amount,
      currency,
      // cartVersion: completion fulfils the order only while its cart is the one priced here (payment-match.ts).
      metadata: {
        appID: String(site.id),
        orderID: String(order.id),
        customerID: order.customer_id === null ? '' : String(order.customer_id),
        cartVersion: String(order.cart_version),
      },
      // One intent per priced cart and customer: a retried checkout gets the same intent from the provider;
      // a changed cart gets a new one. The customer is part of the key because it is part of the request: a
      // placeholder order reconciled in between would otherwise reuse the key with other parameters, which
      // the provider refuses.
      idempotencyKey: `order-${site.id}-${order.id}-v${order.cart_version}-${payment.amount}-${currency}-${order.customer_id ?? 0}`,
    });

    await this.connection
      .repository(ctx, Order)
      .createQueryBuilder()
      .update()
      .set({ payment_intent_id: intent.id })
      .where('id = :id AND app_id = :appId AND orderstatus = :new', { id: order.id, appId: site.id, new: 'New' })
      .execute();
    return { clientSecret: intent.clientSecret, paymentIntentID: intent.id };
  }

  /** A completion's result as the answer, or the failure it means. */
  private answer(result: CompletionResult, before: Order, action: 'payByCard' | 'submitOrderOnly' | 'redo'): OrderStatusAnswer {
    switch (result.outcome) {
      case 'completed':
      case 'redone':
        return statusOf(result.order!);
      case 'already_complete':
        requireTransition(action, result.order?.orderstatus ?? before.orderstatus);
        return statusOf(result.order ?? before);
      case 'order_not_found':
        throw ordersError('ORDER_NOT_FOUND');
      case 'not_for_order':
        throw ordersError('PAYMENT_NOT_FOR_ORDER');
      case 'mode_mismatch':
        throw ordersError('PAYMENT_MODE_MISMATCH');
      case 'currency_mismatch':
        throw ordersError('PAYMENT_CURRENCY_MISMATCH');
      case 'amount_mismatch':
        throw ordersError('PAYMENT_AMOUNT_MISMATCH');
      case 'cart_changed':
        throw ordersError('PAYMENT_CART_CHANGED');
    }
  }
}

export function statusOf(order: Pick<Order, 'orderstatus' | 'orderstatuslabel' | 'payment_status'>): OrderStatusAnswer {
  return { orderStatus: order.orderstatus, orderStatusLabel: order.orderstatuslabel, paymentStatus: order.payment_status ?? '' };
}
