import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { BillingData } from '../checkout/checkout.dto';
import { CheckoutService, IntentAnswer, OrderStatusAnswer, PaymentRequest } from '../checkout/checkout.service';
import { OrderRef } from '../order-access.service';

/**
 * Paying for an order by card (README "Checkout and payment"): checkout and the legacy two-step
 * createPaymentIntent / paymentComplete. The provider is never called inside a transaction or under the
 * order's row lock, so each route is steps CheckoutService takes, the ones that write in a short transaction
 * of their own:
 *
 *  - `openPayment` (checkout, createPaymentIntent): the plan (the key's mode, the currency) checked before
 *    anything is written; the order priced and its billing fields saved, in one transaction; then the
 *    provider's intent created (idempotently: a retried checkout gets the same intent), recorded and its id
 *    stored, and the order's earlier intents cancelled.
 *  - `completePayment` (paymentComplete): the intent asked of the provider, outside any transaction; then
 *    the order completed in one transaction (OrderCompletionService, shared with the payment webhook).
 */
@Injectable()
export class CheckoutFlow {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly checkouts: CheckoutService,
  ) {}

  /** checkout (`billing`: its billing fields) and createPaymentIntent (`billing` null): the card payment intent of the order. */
  async openPayment(ctx: RequestContext, ref: OrderRef, payment: PaymentRequest, billing: BillingData | null): Promise<IntentAnswer> {
    const plan = await this.checkouts.planPayment(ctx, payment);
    const order = await this.connection.inTransaction(ctx, () => this.checkouts.priceOrder(ctx, ref, payment, plan, billing));
    return this.checkouts.openIntent(ctx, order, payment, plan);
  }

  /**
   * paymentComplete: the order completed once the provider says its intent `intentId` succeeded (`production`:
   * which key it was made with, outside production); the order's status. An order the payment webhook
   * completed with this intent already answers its status.
   */
  async completePayment(ctx: RequestContext, ref: OrderRef, intentId: string, production: boolean | undefined): Promise<OrderStatusAnswer> {
    const checked = await this.checkouts.checkPayment(ctx, ref, intentId, production);
    if ('answer' in checked) return checked.answer;
    return this.connection.inTransaction(ctx, () => this.checkouts.completeCardPayment(ctx, checked.order, checked.intent));
  }
}
