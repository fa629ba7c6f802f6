import { Inject, Injectable, Logger } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Order, OrderPaymentIntent } from '../entities';
import { ordersError } from '../orders.errors';
import { PaymentGatewayService, PaymentIntentView } from '../checkout/payment-gateway.service';
import { PaymentIntentRepository } from '../repositories/payment-intent.repository';

/**
 * The payment intents of an order (core_payment_intents), so that none stays payable when it should not
 * (README "Payment events"): checkout records each intent it makes and cancels the order's earlier ones at
 * the provider (a changed cart must not leave the old amount payable); cancelOrder cancels them all, under
 * the order's lock, before anything is cancelled; the reconciliation retries a cancel that failed. Money that
 * still arrives through an intent the order cannot take is refunded (StrayPaymentsFlow).
 */
@Injectable()
export class PaymentIntentsFlow {
  private readonly logger = new Logger('PaymentIntents');

  constructor(
    private readonly intents: PaymentIntentRepository,
    private readonly gateway: PaymentGatewayService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Checkout: `intent` was made for `order` in mode `live`; recorded (once) and due for reconciliation after PAYMENT_RECONCILE_AFTER_MS. */
  async opened(ctx: RequestContext, order: Order, intent: PaymentIntentView, live: boolean): Promise<void> {
    await this.intents.record(
      ctx,
      { intent_id: intent.id, order_id: order.id, amount: intent.amount, currency: intent.currency.toLowerCase(), livemode: live },
      this.config.payments.reconcileAfterMs,
    );
  }

  /**
   * Checkout, after the new intent `current` was stored, outside any transaction: the order's other open
   * intents cancelled at the provider. One that cannot be cancelled now stays marked for the reconciliation;
   * one that succeeded meanwhile is the payment events' to refund. Never throws: the checkout succeeded.
   */
  async cancelSuperseded(ctx: RequestContext, orderId: number, current: string): Promise<void> {
    const superseded = await this.intents.openOfOrder(ctx, orderId, current);
    if (superseded.length === 0) return;
    await this.intents.requestCancel(
      ctx,
      superseded.map((row) => row.intent_id),
    );
    for (const row of superseded) {
      await this.cancel(ctx, row).catch((error: Error) =>
        this.logger.warn(
          { appId: ctx.appId, orderId, intentId: row.intent_id, err: error.message },
          'superseded intent not cancelled yet: the reconciliation tries again',
        ),
      );
    }
  }

  /**
   * cancelOrder of a New order, in its transaction, under the order's lock: every open intent cancelled at the
   * provider first. One that took or is taking money (succeeded, processing) is a payment in flight: 409 naming
   * it, and nothing is cancelled (the payment completes the order; cancelling it then refunds it). A provider
   * that cannot be reached: 502, nothing cancelled.
   */
  async cancelAllOpen(ctx: RequestContext, orderId: number): Promise<void> {
    for (const row of await this.intents.openOfOrder(ctx, orderId)) {
      const intent = await this.cancel(ctx, row);
      if (intent.status !== 'canceled') throw ordersError('PAYMENT_IN_FLIGHT', { detail: intent.id });
    }
  }

  /** An intent's status the provider reported (its event, the reconciliation). */
  async reported(ctx: RequestContext, intentId: string, status: 'succeeded' | 'canceled'): Promise<void> {
    await this.intents.setStatus(ctx, intentId, status);
  }

  /** Cancels `row`'s intent at the provider with the key of its mode; the intent as the provider has it after. */
  async cancel(ctx: RequestContext, row: Pick<OrderPaymentIntent, 'intent_id' | 'livemode'>): Promise<PaymentIntentView> {
    const intent = await this.gateway.cancelIntent(ctx, row.livemode, row.intent_id);
    if (intent.status === 'canceled') await this.intents.setStatus(ctx, row.intent_id, 'canceled');
    return intent;
  }
}
