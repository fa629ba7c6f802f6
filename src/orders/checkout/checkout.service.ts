import { Injectable, Logger } from '@nestjs/common';
import { paysLive } from '../../app-context';
import { mayDo } from '../../common/access-guards';
import { ApiError } from '../../common/api-error';
import { RequestContext } from '../../common/request-context';
import { BILLING_FIELDS, BillingData, BillingField, SubmitMethod } from './checkout.dto';
import { Order } from '../entities';
import { OrderAccessService, OrderRef } from '../order-access.service';
import { PaymentIntentsFlow } from '../flows/payment-intents.flow';
import { CompletionResult, OrderCompletionService } from '../completion/order-completion.service';
import { counts, orderTotal } from '../order-totals';
import { allows, isOutcomeOf, orderMachine, requireTransition } from '../order-transitions';
import { ordersError } from '../orders.errors';
import { PaymentGatewayService, PaymentIntentView } from './payment-gateway.service';
import { OrderRepository } from '../repositories/order.repository';

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

/** How an order is paid, decided before anything is written: the key's mode and the app's currency. */
export interface PaymentPlan {
  live: boolean;
  currency: string;
}

/** paymentComplete's first step: the answer already (completed before), or the order and the intent that succeeded. */
export type PaymentCheck = { answer: OrderStatusAnswer } | { order: Order; intent: PaymentIntentView };

/** The statuses in which an order can still be paid by card (its intent id is stored only then). */
const PAYABLE = orderMachine.from('payByCard');

/**
 * Paying for an order: checkout (billing fields + a card payment intent in one call), the legacy two-step
 * createPaymentIntent / paymentComplete, and submitOrder (`Order Only`, `REDO`). The completion itself is
 * OrderCompletionService's, shared with the payment webhook.
 *
 * The provider is never called inside a transaction or under the order's row lock, so the card routes are
 * split in steps CheckoutFlow runs: the checks and the billing fields commit in one short transaction, then
 * the intent is created (idempotently: a retried checkout gets the same intent), then its id is stored.
 */
@Injectable()
export class CheckoutService {
  private readonly logger = new Logger(CheckoutService.name);

  constructor(
    private readonly orders: OrderRepository,
    private readonly access: OrderAccessService,
    private readonly gateway: PaymentGatewayService,
    private readonly completion: OrderCompletionService,
    private readonly intents: PaymentIntentsFlow,
  ) {}

  /**
   * checkout and createPaymentIntent, before anything is written: the currency must be the app's and the app
   * must have a key for the mode (a request refused for a missing key must not leave the order changed).
   */
  async planPayment(ctx: RequestContext, payment: PaymentRequest): Promise<PaymentPlan> {
    const site = ctx.app;
    const live = paysLive(site, ctx.production, payment.production);
    const currency = site.currency;
    if (payment.currency !== undefined && payment.currency !== currency)
      throw ApiError.field('currency', `currency must be the app's currency (${currency})`);
    await this.gateway.requireConfigured(ctx, live);
    return { live, currency };
  }

  /**
   * Step 1 of checkout and createPaymentIntent, in CheckoutFlow's short transaction: locks the order, checks
   * that it can be paid and that `amount` is its total (recomputed from its items), and saves the billing
   * fields (`billing`: checkout's; null for createPaymentIntent), the currency and paymentMethodRef `Card`.
   */
  async priceOrder(
    ctx: RequestContext,
    ref: OrderRef,
    payment: PaymentRequest,
    plan: PaymentPlan,
    billing: BillingData | null,
  ): Promise<Order> {
    const locked = await this.access.load(ctx, ref, { lock: true, reconcile: true });
    requireTransition('checkout', locked.orderstatus);
    const items = await this.orders.itemsOf(ctx, locked.id);
    const total = orderTotal(items);
    if (!items.some(counts) || total === 0) throw ordersError('ORDER_EMPTY');
    if (payment.amount !== total)
      throw ApiError.field('amount', `amount must equal the order total (${total} in the smallest currency unit)`);
    const fields: Partial<Order> = { paymentMethodRef: 'Card', currency: plan.currency, total };
    if (billing) {
      for (const [field, column] of Object.entries(BILLING_FIELDS) as [BillingField, (typeof BILLING_FIELDS)[BillingField]][]) {
        const value = billing[field];
        if (value !== undefined) fields[column] = value.trim() === '' ? null : value.trim();
      }
    }
    await this.orders.set(ctx, locked.id, fields);
    return Object.assign(locked, fields);
  }

  /**
   * Steps 2 to 4, outside any transaction: the provider creates the intent for the order as step 1 priced
   * it, it is recorded and its id stored while the order can still be paid, and the order's earlier open
   * intents are cancelled at the provider (a changed cart leaves no old amount payable).
   */
  async openIntent(ctx: RequestContext, order: Order, payment: PaymentRequest, plan: PaymentPlan): Promise<IntentAnswer> {
    const site = ctx.app;
    const { currency } = plan;
    const intent = await this.gateway.createIntent(ctx, plan.live, {
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
    await this.intents.opened(ctx, order, intent, plan.live);
    await this.orders.setWhileIn(ctx, order.id, PAYABLE, { payment_intent_id: intent.id });
    // Step 4: the intents of earlier checkouts of the order can no longer be paid.
    await this.intents.cancelSuperseded(ctx, order.id, intent.id);
    return { clientSecret: intent.clientSecret, paymentIntentID: intent.id };
  }

  /**
   * POST /ecommerce/paymentComplete, step 1, outside any transaction: the order, and the intent as the
   * provider has it, which must have succeeded. An order completed with this very intent already (the
   * webhook came first) answers its status.
   */
  async checkPayment(ctx: RequestContext, ref: OrderRef, intentId: string, production: boolean | undefined): Promise<PaymentCheck> {
    const order = await this.access.load(ctx, ref);
    if (!allows('payByCard', order.orderstatus)) {
      if (order.AuthCode === intentId) return { answer: statusOf(order) }; // completed already (the webhook came first)
      requireTransition('payByCard', order.orderstatus);
    }
    const intent = await this.gateway.retrieveIntent(ctx, paysLive(ctx.app, ctx.production, production), intentId);
    if (intent.status !== 'succeeded') throw ordersError('PAYMENT_NOT_SUCCEEDED');
    return { order, intent };
  }

  /**
   * paymentComplete, step 2, in CheckoutFlow's transaction: completes the order when the intent pays for it as it
   * is (payment-match.ts, checked under the order's lock). Idempotent with the webhook: whichever comes second
   * finds the order complete, does nothing and answers its status.
   */
  async completeCardPayment(ctx: RequestContext, order: Order, intent: PaymentIntentView): Promise<OrderStatusAnswer> {
    const result = await this.completion.complete(ctx, order.id, { method: 'Card', intent });
    if (result.outcome === 'already_complete' && isOutcomeOf('payByCard', result.order?.orderstatus)) {
      // The webhook (or a parallel paymentComplete) completed it first: its status is the answer.
      if (result.order!.AuthCode !== intent.id)
        this.logger.warn(
          { appId: ctx.appId, orderId: order.id, authCode: result.order!.AuthCode, intentId: intent.id },
          'paymentComplete: the order was paid with another intent',
        );
      return statusOf(result.order!);
    }
    return this.answer(result, order, 'payByCard');
  }

  /**
   * POST /ecommerce/submitOrder, in the route's transaction. `Order Only`: completes a New order without a
   * card payment (Ordered, payment_status Success, no payment reference). An order with digital items would
   * get its access tokens without any payment, so a shopper may submit only orders without digital items; an
   * admin of the app may submit any. `REDO` (admins only): re-runs the completion steps of a Paid or Ordered
   * order without emails.
   */
  async submitOrder(ctx: RequestContext, ref: OrderRef, method: SubmitMethod, notes: string | undefined): Promise<OrderStatusAnswer> {
    const admin = mayDo(ctx.principal?.appId === ctx.appId ? ctx.principal : null, 'orders.complete');
    if (method === 'REDO') {
      if (!ctx.principal) throw ApiError.unauthorized();
      if (!admin) throw ApiError.forbidden();
    }
    // Locked for the route's transaction: the cart cannot change between the checks and the completion.
    const order = await this.access.load(ctx, ref, { lock: true, reconcile: method !== 'REDO' });
    if (method === 'REDO') {
      const result = await this.completion.complete(ctx, order.id, { method: 'REDO', notes });
      return this.answer(result, order, 'redo');
    }
    if (isSubmittedOrderOnly(order)) return statusOf(order); // a retried submit
    requireTransition('submitOrderOnly', order.orderstatus);
    // Nothing to order (every item removed or Cancelled): completing it would send mails for nothing.
    if (!(await this.orders.itemsOf(ctx, order.id)).some(counts)) throw ordersError('NOTHING_TO_SUBMIT');
    const result = await this.completion.complete(ctx, order.id, { method: 'Order Only', allowDigital: admin, notes });
    if (result.outcome === 'already_complete' && result.order && isSubmittedOrderOnly(result.order)) return statusOf(result.order);
    return this.answer(result, order, 'submitOrderOnly');
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

/** An order `Order Only` completed (a retried submit answers its status). */
function isSubmittedOrderOnly(order: Pick<Order, 'orderstatus' | 'paymentMethodRef'>): boolean {
  return isOutcomeOf('submitOrderOnly', order.orderstatus) && order.paymentMethodRef === 'Order Only';
}

export function statusOf(order: Pick<Order, 'orderstatus' | 'orderstatuslabel' | 'payment_status'>): OrderStatusAnswer {
  return { orderStatus: order.orderstatus, orderStatusLabel: order.orderstatuslabel, paymentStatus: order.payment_status ?? '' };
}
