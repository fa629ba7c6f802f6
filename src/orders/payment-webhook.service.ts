import { Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { SitesService } from '../app-context';
import { MAX_ID } from '../common/id-cipher.service';
import { TenantSite } from '../common/request-context';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { PaymentEvent } from './entities';
import { CompletionOutcome, OrderCompletion } from './order-completion.service';
import { ordersError } from './orders.errors';
import { PaidIntent } from './payment-match';
import { PaymentGateway } from './payments';

/** The only event the service acts on (SPEC "Inbound: payment_intent.succeeded"). */
export const PAYMENT_SUCCEEDED = 'payment_intent.succeeded';

/** What a verified delivery led to (also core_payment_events.outcome for a payment_intent.succeeded). */
export type WebhookOutcome = CompletionOutcome | 'ignored' | 'duplicate' | 'not_this_app';

const POSITIVE_INT = /^[1-9]\d{0,9}$/;

/**
 * The payment provider's webhook (SPEC "POST /ecommerce/payment-webhook"): the tenant, and so the secret
 * the signature is checked with, comes from the event's own payment intent metadata (appID, written by
 * checkout), or from the legacy path's :appID, which must then agree with it. Only after the SDK verified
 * the signature on the exact bytes received is anything read as true.
 *
 * A verified payment_intent.succeeded is processed once per event id: one transaction inserts the event
 * into core_payment_events (ON CONFLICT DO NOTHING: a redelivery, even a concurrent one, finds the id
 * taken and stops) and runs the order completion, so the event is recorded exactly when its effects are.
 */
@Injectable()
export class PaymentWebhooks {
  private readonly logger = new Logger(PaymentWebhooks.name);

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly sites: SitesService,
    private readonly gateway: PaymentGateway,
    private readonly completion: OrderCompletion,
  ) {}

  /**
   * The app a delivery is for, and the event verified with that app's payment_webhook_secret. Anything that
   * keeps the signature from being checked (no app named, an unknown app, a path app the event does not
   * name) is the same 400 `Invalid payment webhook signature`; the reason goes to the log.
   */
  async verify(scope: TransactionScope, rawBody: Buffer | undefined, signature: string | undefined, pathAppId: string | undefined): Promise<{ site: TenantSite; event: Stripe.Event }> {
    const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.alloc(0);
    const named = claimedAppId(body);
    let appId = named;
    if (pathAppId !== undefined) {
      const fromPath = POSITIVE_INT.test(pathAppId) && Number(pathAppId) <= MAX_ID ? Number(pathAppId) : null;
      if (fromPath === null || (named !== null && named !== fromPath)) return this.refuse('the path app is not the app the event names', { pathAppId, named });
      appId = fromPath;
    }
    if (appId === null) return this.refuse('the event names no app (data.object.metadata.appID)', {});
    const site = await this.sites.findById(scope, appId);
    if (!site) return this.refuse('the event names an unknown app', { appId });
    const event = this.gateway.verifyEvent(body, signature, site.payment_webhook_secret);
    return { site, event };
  }

  /** Acts on a verified event; never throws for the event's content (the caller answers 200 regardless). */
  async handle(scope: TransactionScope, site: TenantSite, event: Stripe.Event): Promise<WebhookOutcome> {
    if (event.type !== PAYMENT_SUCCEEDED) {
      this.logger.log({ appId: site.id, eventId: event.id, type: event.type }, 'payment webhook: event ignored');
      return 'ignored';
    }
    const intent = event.data.object as Stripe.PaymentIntent;
    const metadata = intent.metadata ?? {};
    if (metadata.appID !== String(site.id)) {
      // Only a legacy-path delivery without metadata.appID gets here: the intent is not one of this app's checkouts.
      this.logger.warn({ appId: site.id, eventId: event.id, intentId: intent.id }, 'payment webhook: the intent names no order of this app');
      return 'not_this_app';
    }
    const orderId = typeof metadata.orderID === 'string' && POSITIVE_INT.test(metadata.orderID) && Number(metadata.orderID) <= MAX_ID ? Number(metadata.orderID) : null;

    const outcome = await this.connection.inTransaction(scope, async (em) => {
      const inserted = await em
        .createQueryBuilder()
        .insert()
        .into(PaymentEvent)
        .values({ event_id: event.id.slice(0, 255), app_id: site.id, type: event.type.slice(0, 100), order_id: orderId, payment_intent_id: intent.id?.slice(0, 255) ?? null, outcome: 'completed' })
        .orIgnore() // ON CONFLICT DO NOTHING: waits for a concurrent delivery of the same event to commit, then finds it
        .returning(['event_id'])
        .updateEntity(false)
        .execute();
      if ((inserted.raw as unknown[]).length === 0) return 'duplicate' as const;
      const result =
        orderId === null
          ? ({ outcome: 'order_not_found' } as const)
          : await this.completion.complete(scope, site, orderId, { method: 'Card', intent: paidIntentOf(intent) });
      if (result.outcome === 'already_complete' && result.order && result.order.AuthCode !== intent.id) {
        // Completed otherwise (Order Only, or paid with another intent): this payment is attached to nothing.
        this.logger.error({ appId: site.id, orderId, intentId: intent.id, orderStatus: result.order.orderstatus, authCode: result.order.AuthCode }, 'payment for an order already completed otherwise: refund it or attach it by hand');
      }
      // Written as `completed`, what nearly every event does; corrected in the same transaction otherwise.
      if (result.outcome !== 'completed') await em.createQueryBuilder().update(PaymentEvent).set({ outcome: result.outcome }).where('event_id = :id', { id: event.id.slice(0, 255) }).execute();
      return result.outcome;
    });
    const log = { appId: site.id, eventId: event.id, intentId: intent.id, orderId, outcome };
    if (outcome === 'completed' || outcome === 'duplicate' || outcome === 'already_complete') this.logger.log(log, 'payment webhook processed');
    else this.logger.error(log, 'payment webhook: payment_intent.succeeded did not complete an order');
    return outcome;
  }

  private refuse(reason: string, details: Record<string, unknown>): never {
    this.logger.warn({ ...details, reason }, 'payment webhook refused');
    throw ordersError('INVALID_WEBHOOK_SIGNATURE');
  }
}

/** data.object.metadata.appID of the unverified payload, only to choose the secret to verify it with. */
function claimedAppId(body: Buffer): number | null {
  try {
    const appId = (JSON.parse(body.toString('utf8')) as { data?: { object?: { metadata?: { appID?: unknown } } } })?.data?.object?.metadata?.appID;
    const text = typeof appId === 'number' ? String(appId) : appId;
    return typeof text === 'string' && POSITIVE_INT.test(text) && Number(text) <= MAX_ID ? Number(text) : null;
  } catch {
    return null;
  }
}

/** The verified event's intent as completion checks it (the provider's `livemode` says test or live). */
function paidIntentOf(intent: Stripe.PaymentIntent): PaidIntent {
  return { id: intent.id, amount: intent.amount, currency: String(intent.currency ?? ''), livemode: intent.livemode === true, metadata: { ...(intent.metadata ?? {}) } };
}
