import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { ApiError } from '../../common/api-error';
import { idFromText } from '../../common/id-cipher.service';
import { RequestContext, TenantSite } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { TransactionalConnection } from '../../database/transactional-connection';
import { ACTED_ON, PaymentWebhookService, WebhookOutcome } from '../checkout/payment-webhook.service';
import { PaymentEventRepository } from '../repositories/payment-event.repository';

/**
 * How long a recorded event is left to the delivery that recorded it (which applies it at once) before the
 * inbox worker may try it: only a delivery that died on the way (a crash, a stop) leaves it that long.
 */
const FIRST_TRY_WINDOW_MS = 30_000;

/** Seconds a provider is asked to wait before it delivers an event that could not be recorded again. */
const RECORD_RETRY_AFTER_S = 5;

/**
 * A payment provider event's way through the inbox (README "Payment events"), from the delivery of the
 * webhook (`receive`) to its effects. Provider events go through an inbox so that none is acknowledged and
 * then lost, and none applies twice:
 *
 *  0. `receive`: the delivery's signature is checked with the secret of the app the event names
 *     (PaymentWebhookService.verify); events the service does not act on are answered and forgotten.
 *  1. `record`: the verified event is written to core_payment_events as `pending`, in one short INSERT on
 *     the system pool, which no tenant's requests can take. Only then is the delivery answered 2xx; if it
 *     cannot be recorded, 503 with Retry-After, so the provider delivers it again. Recorded once per app and
 *     event id: a redelivery finds its row.
 *  2. `apply`: the event is locked while it is still pending and what it means is done in the same
 *     transaction that marks it processed, so its effects happen exactly once, whichever of the delivery,
 *     a redelivery or a worker on any instance gets to it. Anything the provider must be asked (a charge's
 *     refunds) is asked before that transaction. A try that fails is counted and due again after a backoff;
 *     after PAYMENT_EVENTS_MAX_ATTEMPTS tries the event is `failed` (metrics, `events:failed`, `events:retry`).
 *
 * The delivery applies its event right after recording it, so the order is Paid when the provider (or the
 * customer's paymentComplete) looks; the worker (PaymentEventsWorker) applies what that left pending.
 */
@Injectable()
export class PaymentEventsFlow {
  private readonly logger = new Logger('PaymentEvents');

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly events: PaymentEventRepository,
    private readonly webhooks: PaymentWebhookService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * POST /ecommerce/payment-webhook (and its legacy path with :appID): the delivery verified, recorded, then
   * applied at once. `ctx` names no app yet: it gets the app the event names. Throws 400 for a delivery that
   * is not verified, 503 with Retry-After when the event could not be recorded (the provider delivers it
   * again); once recorded the delivery is answered 200 whatever applying it does now (a failed try is
   * retried by the inbox worker).
   */
  async receive(
    ctx: RequestContext,
    rawBody: Buffer | undefined,
    signature: string | undefined,
    pathAppId: string | undefined,
  ): Promise<void> {
    const { site, event } = await this.webhooks.verify(ctx, rawBody, signature, pathAppId);
    ctx.site = site;
    if (!ACTED_ON.has(event.type)) {
      this.logger.log({ appId: site.id, eventId: event.id, type: event.type }, 'payment webhook: event ignored');
      return;
    }
    await this.record(ctx, event);
    await this.apply(site, event, ctx.requestId);
  }

  /** Step 1, for `ctx`'s app: recorded (or found recorded) on the system pool, else 503. */
  async record(ctx: RequestContext, event: Stripe.Event): Promise<void> {
    const object = (event.data?.object ?? {}) as { id?: unknown; object?: unknown; metadata?: { orderID?: unknown } };
    const intentId = object.object === 'payment_intent' && typeof object.id === 'string' ? object.id.slice(0, 255) : null;
    const orderId = intentId ? idFromText(typeof object.metadata?.orderID === 'string' ? object.metadata.orderID : undefined) : null;
    try {
      await this.connection.inTransaction(
        ctx,
        () =>
          this.events.record(
            ctx,
            {
              event_id: event.id.slice(0, 255),
              type: event.type.slice(0, 100),
              payload: event,
              order_id: orderId,
              payment_intent_id: intentId,
            },
            FIRST_TRY_WINDOW_MS,
          ),
        'system',
      );
    } catch (error) {
      this.logger.error(
        { appId: ctx.appId, eventId: event.id, type: event.type, err: (error as Error)?.message },
        'payment event not recorded: answered 503, the provider delivers it again',
      );
      throw new ApiError(503, 'The payment event could not be recorded: deliver it again', undefined, {}, 'Failed', {
        'retry-after': String(RECORD_RETRY_AFTER_S),
      });
    }
  }

  /**
   * Step 2: applies `site`'s recorded `event` if it is still pending; what it did, or null when there was
   * nothing to do (applied already) or the try failed (then counted and retried later). Never throws. Every
   * statement runs on the system pool.
   */
  async apply(site: TenantSite, event: Stripe.Event, origin: string): Promise<WebhookOutcome | null> {
    const ctx = RequestContext.background(origin, this.config.production, site);
    const eventId = event.id.slice(0, 255);
    try {
      const action = await this.webhooks.prepare(ctx, event); // outside the transaction: it may ask the provider
      const outcome = await this.connection.inTransaction(
        ctx,
        async () => {
          const recorded = await this.events.lockPending(ctx, eventId);
          if (!recorded) return null; // applied already (another delivery, a worker)
          const done: WebhookOutcome = action ? await this.webhooks.act(ctx, action) : 'ignored';
          await this.events.markProcessed(ctx, eventId, {
            outcome: done,
            order_id: action?.orderId ?? recorded.order_id,
            payment_intent_id: action?.intentId?.slice(0, 255) ?? recorded.payment_intent_id,
          });
          return done;
        },
        'system',
      );
      if (outcome && action) this.webhooks.report(ctx, action, outcome);
      return outcome;
    } catch (error) {
      await this.attemptFailed(ctx, eventId, error);
      return null;
    }
  }

  /** Counts a failed try (due again after a backoff, or Failed); should even that fail, the worker's lease brings the event back. */
  private async attemptFailed(ctx: RequestContext, eventId: string, error: unknown): Promise<void> {
    const message = (error as Error)?.message ?? String(error);
    try {
      const status = await this.connection.inTransaction(
        ctx,
        () => this.events.markAttemptFailed(ctx, eventId, message, this.config.payments.eventsMaxAttempts),
        'system',
      );
      const log = { appId: ctx.appId, eventId, err: message, status };
      if (status === 'failed') this.logger.error(log, 'payment event failed for good: see npm run cli -- events:failed');
      else this.logger.warn(log, 'payment event not applied: tried again later');
    } catch (again) {
      this.logger.error({ appId: ctx.appId, eventId, err: message, then: (again as Error)?.message }, 'payment event try not counted');
    }
  }
}
