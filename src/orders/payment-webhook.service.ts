import { Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { EntityManager } from 'typeorm';
import { SitesService } from '../app-context';
import { idFromText } from '../common/id-cipher.service';
import { TenantSite } from '../common/request-context';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { Order, PaymentEvent } from './entities';
import { CompletionOutcome, OrderCompletion } from './order-completion.service';
import { ordersError } from './orders.errors';
import { PaidIntent } from './payment-match';
import { INTENT_ID, PaymentGateway, refundViewOf, RefundView } from './payments';
import { RefundOutcome, RefundsService } from './refunds.service';

/** The events the service acts on (SPEC "Inbound: payment_intent.succeeded"; README "Refunds and cancellation"). */
export const PAYMENT_SUCCEEDED = 'payment_intent.succeeded';
export const PAYMENT_FAILED = 'payment_intent.payment_failed';
export const PAYMENT_CANCELED = 'payment_intent.canceled';
export const CHARGE_REFUNDED = 'charge.refunded';
export const REFUND_EVENTS: ReadonlySet<string> = new Set(['refund.created', 'refund.updated']);

/** What a verified delivery led to (also core_payment_events.outcome). */
export type WebhookOutcome = CompletionOutcome | RefundOutcome | 'payment_failed' | 'ignored' | 'duplicate' | 'not_this_app';

/**
 * The payment provider's webhook (SPEC "POST /ecommerce/payment-webhook"): the tenant, and so the secret
 * the signature is checked with, comes from the event's object (its metadata.appID, written by checkout and
 * refundOrder; else the order paid with the payment intent it names), or from the legacy path's :appID,
 * which must then agree with it. Only after the SDK verified the signature on the exact bytes received is
 * anything read as true.
 *
 * Each verified event acts once per event id: one transaction inserts the event into core_payment_events
 * (ON CONFLICT DO NOTHING: a redelivery, even a concurrent one, finds the id taken and stops) and does
 * what the event means, so the event is recorded exactly when its effects are:
 * - payment_intent.succeeded: the order completion;
 * - payment_intent.payment_failed / .canceled: a New order's payment_status Failed and payment_error;
 * - charge.refunded, refund.created / refund.updated: each refund recorded once (RefundsService.record).
 */
@Injectable()
export class PaymentWebhooks {
  private readonly logger = new Logger(PaymentWebhooks.name);

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly sites: SitesService,
    private readonly gateway: PaymentGateway,
    private readonly completion: OrderCompletion,
    private readonly refunds: RefundsService,
  ) {}

  /**
   * The app a delivery is for, and the event verified with that app's payment_webhook_secret. Anything that
   * keeps the signature from being checked (no app named, an unknown app, a path app the event does not
   * name) is the same 400 `Invalid payment webhook signature`; the reason goes to the log.
   */
  async verify(
    scope: TransactionScope,
    rawBody: Buffer | undefined,
    signature: string | undefined,
    pathAppId: string | undefined,
  ): Promise<{ site: TenantSite; event: Stripe.Event }> {
    const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.alloc(0);
    const claimed = claimedObject(body);
    const named = claimed.appId ?? (claimed.intentId ? await this.appPaidWith(scope, claimed.intentId) : null);
    let appId = named;
    if (pathAppId !== undefined) {
      const fromPath = idFromText(pathAppId);
      if (fromPath === null || (named !== null && named !== fromPath))
        return this.refuse('the path app is not the app the event names', { pathAppId, named });
      appId = fromPath;
    }
    if (appId === null) return this.refuse('the event names no app (data.object.metadata.appID, or a payment intent of an order)', {});
    const site = await this.sites.findById(scope, appId);
    if (!site) return this.refuse('the event names an unknown app', { appId });
    const event = this.gateway.verifyEvent(body, signature, site.payment_webhook_secret);
    return { site, event };
  }

  /** Acts on a verified event; never throws for the event's content (the caller answers 200 regardless). */
  async handle(scope: TransactionScope, site: TenantSite, event: Stripe.Event): Promise<WebhookOutcome> {
    const object = event.data.object as unknown as Record<string, unknown>;
    if (event.type === PAYMENT_SUCCEEDED || event.type === PAYMENT_FAILED || event.type === PAYMENT_CANCELED) {
      const intent = object as unknown as Stripe.PaymentIntent;
      const metadata = intent.metadata ?? {};
      if (metadata.appID !== String(site.id)) {
        // Only a legacy-path delivery without metadata.appID gets here: the intent is not one of this app's checkouts.
        this.logger.warn(
          { appId: site.id, eventId: event.id, intentId: intent.id },
          'payment webhook: the intent names no order of this app',
        );
        return 'not_this_app';
      }
      const orderId = idFromText(metadata.orderID);
      return this.once(scope, site, event, orderId, intent.id, async (em) => {
        if (orderId === null) return 'order_not_found';
        if (event.type !== PAYMENT_SUCCEEDED) return this.paymentFailed(em, site, orderId, intent, event.type === PAYMENT_CANCELED);
        const result = await this.completion.complete(scope, site, orderId, { method: 'Card', intent: paidIntentOf(intent) });
        if (result.outcome === 'already_complete' && result.order && result.order.AuthCode !== intent.id) {
          // Completed otherwise (Order Only, or paid with another intent): this payment is attached to nothing.
          this.logger.error(
            { appId: site.id, orderId, intentId: intent.id, orderStatus: result.order.orderstatus, authCode: result.order.AuthCode },
            'payment for an order already completed otherwise: refund it or attach it by hand',
          );
        }
        return result.outcome;
      });
    }
    if (event.type === CHARGE_REFUNDED || REFUND_EVENTS.has(event.type)) {
      const refunds = await this.refundsOf(site, event);
      const intentId = refunds[0]?.paymentIntentId ?? null;
      return this.once(scope, site, event, idFromText(refunds[0]?.metadata.orderID), intentId, async () => {
        let outcome: RefundOutcome = 'known';
        for (const refund of refunds) {
          const recorded = await this.refunds.record(scope, site, refund, 'provider');
          if (recorded !== 'known') outcome = recorded;
        }
        return outcome;
      });
    }
    this.logger.log({ appId: site.id, eventId: event.id, type: event.type }, 'payment webhook: event ignored');
    return 'ignored';
  }

  /**
   * Records the event and runs `work` in one transaction, once per event id: a redelivered or concurrent
   * copy finds the id taken and does nothing (`duplicate`).
   */
  private async once(
    scope: TransactionScope,
    site: TenantSite,
    event: Stripe.Event,
    orderId: number | null,
    intentId: string | null,
    work: (em: EntityManager) => Promise<WebhookOutcome>,
  ): Promise<WebhookOutcome> {
    const eventId = event.id.slice(0, 255);
    const outcome = await this.connection.inTransaction(scope, async (em) => {
      const inserted = await em
        .createQueryBuilder()
        .insert()
        .into(PaymentEvent)
        .values({
          event_id: eventId,
          app_id: site.id,
          type: event.type.slice(0, 100),
          order_id: orderId,
          payment_intent_id: intentId?.slice(0, 255) ?? null,
          outcome: 'completed',
        })
        .orIgnore() // ON CONFLICT DO NOTHING: waits for a concurrent delivery of the same event to commit, then finds it
        .returning(['event_id'])
        .updateEntity(false)
        .execute();
      if ((inserted.raw as unknown[]).length === 0) return 'duplicate' as const;
      const result = await work(em);
      // Written as `completed`, what nearly every event does; corrected in the same transaction otherwise.
      if (result !== 'completed')
        await em.createQueryBuilder().update(PaymentEvent).set({ outcome: result }).where('event_id = :id', { id: eventId }).execute();
      return result;
    });
    const log = { appId: site.id, eventId: event.id, type: event.type, intentId, orderId, outcome };
    if (['order_not_found', 'currency_mismatch', 'not_for_order', 'mode_mismatch', 'amount_mismatch', 'cart_changed'].includes(outcome))
      this.logger.error(log, 'payment webhook: the event did not apply');
    else this.logger.log(log, 'payment webhook processed');
    return outcome;
  }

  /**
   * payment_intent.payment_failed / .canceled for a New order of the app: payment_status Failed and the
   * provider's reason in payment_error (orderStatus shows it). A later successful payment still completes it.
   */
  private async paymentFailed(
    em: EntityManager,
    site: TenantSite,
    orderId: number,
    intent: Stripe.PaymentIntent,
    canceled: boolean,
  ): Promise<WebhookOutcome> {
    const order = await em
      .getRepository(Order)
      .createQueryBuilder('o')
      .where('o.id = :orderId AND o.app_id = :appId', { orderId, appId: site.id })
      .setLock('pessimistic_write')
      .getOne();
    if (!order) return 'order_not_found';
    if (order.orderstatus !== 'New') return 'already_complete';
    const reason = canceled
      ? `Payment canceled${intent.cancellation_reason ? ` (${intent.cancellation_reason})` : ''}`
      : (intent.last_payment_error?.message ?? 'Payment failed');
    await em
      .getRepository(Order)
      .update({ id: order.id, app_id: site.id }, { payment_status: 'Failed', payment_error: reason.slice(0, 500) });
    return 'payment_failed';
  }

  /** The refunds an event is about: a refund event's refund, or a charge's refunds (listed by the provider when the event does not carry them). */
  private async refundsOf(site: TenantSite, event: Stripe.Event): Promise<RefundView[]> {
    if (REFUND_EVENTS.has(event.type)) return [refundViewOf(event.data.object as Stripe.Refund)];
    const charge = event.data.object as Stripe.Charge;
    const intentId = typeof charge.payment_intent === 'string' ? charge.payment_intent : (charge.payment_intent?.id ?? null);
    const listed = charge.refunds?.data;
    const refunds = listed
      ? listed.map(refundViewOf)
      : intentId
        ? await this.gateway.listRefunds(site, charge.livemode === true, intentId)
        : [];
    return refunds.map((refund) => ({ ...refund, paymentIntentId: refund.paymentIntentId ?? intentId }));
  }

  /** The app of the order paid with this intent (refund events of the provider's dashboard name only the intent). */
  private async appPaidWith(scope: TransactionScope, intentId: string): Promise<number | null> {
    const order = await this.connection.repository(scope, Order).findOne({ select: { app_id: true }, where: { AuthCode: intentId } });
    return order?.app_id ?? null;
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
