import { Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { SitesService } from '../../app-context';
import { idFromText } from '../../common/id-cipher.service';
import { RequestContext, TenantSite } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { PaymentIntentsFlow } from '../flows/payment-intents.flow';
import { StrayPaymentsFlow } from '../flows/stray-payments.flow';
import { DISPUTE_EVENTS, DisputeOutcome, DisputesService, DisputeView, disputeViewOf } from '../refunds/disputes.service';
import { CompletionOutcome, OrderCompletionService } from '../completion/order-completion.service';
import { allows } from '../order-transitions';
import { ordersError } from '../orders.errors';
import { PaidIntent } from './payment-match';
import { INTENT_ID, PaymentGatewayService, refundViewOf, RefundView } from './payment-gateway.service';
import { RefundOutcome, RefundsService } from '../refunds/refunds.service';
import { OrderRepository } from '../repositories/order.repository';

/**
 * The events the service acts on (a payment succeeded or failed, a refund, a dispute; README "Refunds and
 * cancellation"): the inbox records these, and answers any other event without recording it.
 */
export const PAYMENT_SUCCEEDED = 'payment_intent.succeeded';
export const PAYMENT_FAILED = 'payment_intent.payment_failed';
export const PAYMENT_CANCELED = 'payment_intent.canceled';
export const CHARGE_REFUNDED = 'charge.refunded';
export const REFUND_EVENTS: ReadonlySet<string> = new Set(['refund.created', 'refund.updated']);
export const ACTED_ON: ReadonlySet<string> = new Set([
  PAYMENT_SUCCEEDED,
  PAYMENT_FAILED,
  PAYMENT_CANCELED,
  CHARGE_REFUNDED,
  ...REFUND_EVENTS,
  ...DISPUTE_EVENTS,
]);

/** What a verified delivery led to (also core_payment_events.outcome). */
export type WebhookOutcome = CompletionOutcome | RefundOutcome | DisputeOutcome | 'payment_failed' | 'ignored';

/** The outcomes of an event that did not apply (logged as errors: someone has to look at the payment). */
const NOT_APPLIED: ReadonlySet<WebhookOutcome> = new Set([
  'order_not_found',
  'currency_mismatch',
  'not_for_order',
  'mode_mismatch',
  'amount_mismatch',
  'cart_changed',
]);

/** The completion outcomes of a payment the order cannot take, and why, as the admin's notice says it. */
const STRAY_REASON: Partial<Record<WebhookOutcome, string>> = {
  amount_mismatch: 'its amount is not the order total (the order was cancelled or its cart changed)',
  cart_changed: 'the cart changed after the checkout that made this payment',
  currency_mismatch: "its currency is not the order's",
  mode_mismatch: 'it was made in a mode (test or live) the app does not take',
};
const CANNOT_TAKE: ReadonlySet<WebhookOutcome> = new Set(Object.keys(STRAY_REASON) as WebhookOutcome[]);

/** A verified event the service acts on, with everything it needs from the provider gathered before the transaction. */
export interface WebhookAction {
  event: Stripe.Event;
  orderId: number | null;
  intentId: string | null;
  /** A payment intent event: its intent. */
  intent?: Stripe.PaymentIntent;
  /** A refund event: the refunds it is about. */
  refunds?: RefundView[];
  /** A dispute event: its dispute (the order is found under its lock when the event is applied, which sets orderId). */
  dispute?: DisputeView;
}

/**
 * The payment provider's webhook (POST /ecommerce/payment-webhook): the tenant, and so the secret
 * the signature is checked with, comes from the event's object (its metadata.appID, written by checkout and
 * refundOrder; else the order paid with the payment intent it names), or from the legacy path's :appID,
 * which must then agree with it. Only after the SDK verified the signature on the exact bytes received is
 * anything read as true.
 *
 * A verified event is recorded in the inbox first and applied afterwards, once per app and event id
 * (flows/payment-events.flow.ts); what applying it means (`act`):
 * - payment_intent.succeeded: the order completion;
 * - payment_intent.payment_failed / .canceled: a New order's payment_status Failed and payment_error;
 * - charge.refunded, refund.created / refund.updated: each refund recorded once (RefundsService.record);
 * - charge.dispute.created / .closed: the order paid with the dispute's intent Disputed, then its tokens
 *   expired (lost) or its status back (won) (DisputesService).
 */
@Injectable()
export class PaymentWebhookService {
  private readonly logger = new Logger(PaymentWebhookService.name);

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly orders: OrderRepository,
    private readonly sites: SitesService,
    private readonly gateway: PaymentGatewayService,
    private readonly completion: OrderCompletionService,
    private readonly refunds: RefundsService,
    private readonly intents: PaymentIntentsFlow,
    private readonly strays: StrayPaymentsFlow,
    private readonly disputes: DisputesService,
  ) {}

  /**
   * The app a delivery is for, and the event verified with that app's payment_webhook_secret. Anything that
   * keeps the signature from being checked (no app named, an unknown app, a path app the event does not
   * name) is the same 400 `Invalid payment webhook signature`; the reason goes to the log. `ctx` has no
   * tenant yet: the caller (PaymentEventsFlow.receive) sets it to the site answered.
   */
  async verify(
    ctx: RequestContext,
    rawBody: Buffer | undefined,
    signature: string | undefined,
    pathAppId: string | undefined,
  ): Promise<{ site: TenantSite; event: Stripe.Event }> {
    const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.alloc(0);
    const claimed = claimedObject(body);
    // Looked up in the site cache or on the system pool: a flood of the tenant's reads must not keep the provider waiting.
    const lookup = Object.assign(RequestContext.background(ctx.requestId, ctx.production), {
      manager: this.connection.systemDataSource.manager,
    });
    const named = claimed.appId ?? (claimed.intentId ? await this.orders.appPaidWith(lookup, claimed.intentId) : null);
    let appId = named;
    if (pathAppId !== undefined) {
      const fromPath = idFromText(pathAppId);
      if (fromPath === null || (named !== null && named !== fromPath))
        return this.refuse('the path app is not the app the event names', { pathAppId, named });
      appId = fromPath;
    }
    if (appId === null) return this.refuse('the event names no app (data.object.metadata.appID, or a payment intent of an order)', {});
    const site = this.sites.cachedById(ctx, appId) ?? (await this.sites.findById(lookup, appId));
    if (!site) return this.refuse('the event names an unknown app', { appId });
    const secrets = this.sites.cachedSecretsOf(ctx, appId) ?? (await this.sites.secretsOf(lookup, appId));
    const event = this.gateway.verifyEvent(body, signature, secrets?.payment_webhook_secret ?? null);
    return { site, event };
  }

  /**
   * What a verified event of the context's app asks for, gathered outside any transaction (a charge that
   * does not list its refunds has them listed by the provider); null when there is nothing to do (an event
   * the service ignores, an intent of no checkout of this app: logged).
   */
  async prepare(ctx: RequestContext, event: Stripe.Event): Promise<WebhookAction | null> {
    const site = ctx.app;
    if (event.type === PAYMENT_SUCCEEDED || event.type === PAYMENT_FAILED || event.type === PAYMENT_CANCELED) {
      const intent = event.data.object as unknown as Stripe.PaymentIntent;
      const metadata = intent.metadata ?? {};
      if (metadata.appID !== String(site.id)) {
        // Only a legacy-path delivery without metadata.appID gets here: the intent is not one of this app's checkouts.
        this.logger.warn(
          { appId: site.id, eventId: event.id, intentId: intent.id },
          'payment webhook: the intent names no order of this app',
        );
        return null;
      }
      return { event, orderId: idFromText(metadata.orderID), intentId: intent.id, intent };
    }
    if (event.type === CHARGE_REFUNDED || REFUND_EVENTS.has(event.type)) {
      const refunds = await this.refundsOf(ctx, event);
      return { event, orderId: idFromText(refunds[0]?.metadata.orderID), intentId: refunds[0]?.paymentIntentId ?? null, refunds };
    }
    if (DISPUTE_EVENTS.has(event.type)) {
      const dispute = disputeViewOf(event.data.object as Stripe.Dispute);
      return { event, orderId: null, intentId: dispute.paymentIntentId, dispute };
    }
    this.logger.log({ appId: site.id, eventId: event.id, type: event.type }, 'payment webhook: event ignored');
    return null;
  }

  /**
   * In the transaction PaymentEventsFlow opened for the recorded event: does what it means (the caller marks
   * the event processed in the same transaction, so its effects happen exactly once). Never throws for the
   * event's content; an error (a database failure) rolls the try back, and the event is tried again.
   */
  async act(ctx: RequestContext, action: WebhookAction): Promise<WebhookOutcome> {
    if (action.dispute) {
      const { outcome, orderId } = await this.disputes.apply(ctx, action.event.type, action.dispute);
      action.orderId = orderId; // for the inbox row and the log
      return outcome;
    }
    return action.intent ? this.paymentEvent(ctx, action, action.intent) : this.refundEvent(ctx, action.refunds ?? []);
  }

  /** Logs what a delivery did, once its transaction committed. */
  report(ctx: RequestContext, { event, intentId, orderId }: WebhookAction, outcome: WebhookOutcome): void {
    const log = { appId: ctx.appId, eventId: event.id, type: event.type, intentId, orderId, outcome };
    if (NOT_APPLIED.has(outcome)) this.logger.error(log, 'payment webhook: the event did not apply');
    else this.logger.log(log, 'payment webhook processed');
  }

  /**
   * payment_intent.succeeded completes the order, unless the order cannot take that payment (cancelled, its
   * cart changed, another amount, currency or mode, paid otherwise already): then the money goes back
   * (StrayPaymentsFlow). .payment_failed and .canceled note the failure of the order's current intent.
   */
  private async paymentEvent(
    ctx: RequestContext,
    { event, orderId }: WebhookAction,
    intent: Stripe.PaymentIntent,
  ): Promise<WebhookOutcome> {
    if (event.type === PAYMENT_CANCELED) await this.intents.reported(ctx, intent.id, 'canceled');
    if (orderId === null) return 'order_not_found';
    if (event.type !== PAYMENT_SUCCEEDED) return this.paymentFailed(ctx, orderId, intent, event.type === PAYMENT_CANCELED);
    await this.intents.reported(ctx, intent.id, 'succeeded');
    const paid = paidIntentOf(intent);
    const result = await this.completion.complete(ctx, orderId, { method: 'Card', intent: paid });
    const order = result.order;
    if (order && (CANNOT_TAKE.has(result.outcome) || (result.outcome === 'already_complete' && order.AuthCode !== intent.id))) {
      // Completed otherwise (Order Only, or paid with another intent), or not payable so: this money buys nothing.
      const why =
        result.outcome === 'already_complete'
          ? `the order is already ${order.orderstatus} otherwise`
          : (STRAY_REASON[result.outcome] ?? result.outcome);
      await this.strays.refund(ctx, order, paid, why);
    }
    return result.outcome;
  }

  /** Each refund recorded once (an automatic refund's on its own row); `known` when none changed anything. */
  private async refundEvent(ctx: RequestContext, refunds: RefundView[]): Promise<RefundOutcome> {
    let outcome: RefundOutcome = 'known';
    for (const refund of refunds) {
      if (await this.strays.settleReported(ctx, refund)) continue;
      const recorded = await this.refunds.record(ctx, refund, 'provider');
      if (recorded !== 'known') outcome = recorded;
    }
    return outcome;
  }

  /**
   * payment_intent.payment_failed / .canceled of the current intent of a New order of the app: payment_status
   * Failed and the provider's reason in payment_error (orderStatus shows it). A later successful payment still
   * completes it.
   */
  private async paymentFailed(
    ctx: RequestContext,
    orderId: number,
    intent: Stripe.PaymentIntent,
    canceled: boolean,
  ): Promise<WebhookOutcome> {
    const order = await this.orders.findOne(ctx, orderId, true);
    if (!order) return 'order_not_found';
    if (!allows('recordPaymentFailure', order.orderstatus)) return 'already_complete';
    // An intent a later checkout superseded (and cancelled) says nothing about the order's payment now.
    if (order.payment_intent_id !== null && order.payment_intent_id !== intent.id) return 'ignored';
    const reason = canceled
      ? `Payment canceled${intent.cancellation_reason ? ` (${intent.cancellation_reason})` : ''}`
      : (intent.last_payment_error?.message ?? 'Payment failed');
    await this.orders.set(ctx, order.id, { payment_status: 'Failed', payment_error: reason.slice(0, 500) });
    return 'payment_failed';
  }

  /** The refunds an event is about: a refund event's refund, or a charge's refunds (listed by the provider when the event does not carry them). */
  private async refundsOf(ctx: RequestContext, event: Stripe.Event): Promise<RefundView[]> {
    if (REFUND_EVENTS.has(event.type)) return [refundViewOf(event.data.object as Stripe.Refund)];
    const charge = event.data.object as Stripe.Charge;
    const intentId = typeof charge.payment_intent === 'string' ? charge.payment_intent : (charge.payment_intent?.id ?? null);
    const listed = charge.refunds?.data;
    const refunds = listed
      ? listed.map(refundViewOf)
      : intentId
        ? await this.gateway.listRefunds(ctx, charge.livemode === true, intentId)
        : [];
    return refunds.map((refund) => ({ ...refund, paymentIntentId: refund.paymentIntentId ?? intentId }));
  }

  private refuse(reason: string, details: Record<string, unknown>): never {
    this.logger.warn({ ...details, reason }, 'payment webhook refused');
    throw ordersError('INVALID_WEBHOOK_SIGNATURE');
  }
}

/** The verified event's intent as completion checks it (the provider's `livemode` says test or live). */
function paidIntentOf(intent: Stripe.PaymentIntent): PaidIntent {
  return {
    id: intent.id,
    amount: intent.amount,
    currency: String(intent.currency ?? ''),
    livemode: intent.livemode === true,
    metadata: { ...(intent.metadata ?? {}) },
  };
}

/**
 * What the unverified payload's object names, only to choose the secret to verify it with: its
 * metadata.appID, else the payment intent it is about (a charge's or refund's `payment_intent`).
 */
function claimedObject(body: Buffer): { appId: number | null; intentId: string | null } {
  try {
    const object = (
      JSON.parse(body.toString('utf8')) as { data?: { object?: { metadata?: { appID?: unknown }; payment_intent?: unknown } } }
    )?.data?.object;
    const appId = object?.metadata?.appID;
    const intent = object?.payment_intent;
    return {
      appId: idFromText(typeof appId === 'number' ? String(appId) : appId),
      intentId: typeof intent === 'string' && INTENT_ID.test(intent) ? intent : null,
    };
  } catch {
    return { appId: null, intentId: null };
  }
}
