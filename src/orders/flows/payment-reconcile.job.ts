import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type Stripe from 'stripe';
import { SitesService } from '../../app-context';
import { RequestContext } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { DatabaseLock } from '../../database/locks';
import { withTickLock } from '../../database/transaction';
import { TransactionalConnection } from '../../database/transactional-connection';
import { MetricsService } from '../../metrics';
import { OrderPaymentIntent } from '../entities';
import { PAYMENT_CANCELED, PAYMENT_FAILED, PAYMENT_SUCCEEDED } from '../checkout/payment-webhook.service';
import { PaymentGatewayService, PaymentIntentView } from '../checkout/payment-gateway.service';
import { ClaimedIntent, PaymentIntentRepository } from '../repositories/payment-intent.repository';
import { RefundRepository } from '../repositories/refund.repository';
import { PaymentEventsFlow } from './payment-events.flow';
import { PaymentIntentsFlow } from './payment-intents.flow';
import { AUTO_REFUND_RESUME_AFTER_MS, StrayPaymentsFlow } from './stray-payments.flow';

const JOB = 'payment-reconcile';
/** Intents (and automatic refunds) handled per tick at most. */
const BATCH = 50;

/** What one tick did. */
export interface ReconcileResult {
  /** Open intents asked about at the provider. */
  intents: number;
  /** Provider states applied as events (succeeded, failed, canceled). */
  applied: number;
  /** Automatic refunds sent again. */
  refunds: number;
}

/**
 * The safety net for events that never arrive (README "Payment events"; the provider's own webhook guidance):
 * every PAYMENT_RECONCILE_TICK_MS, one instance (the holder of the advisory lock) claims the open payment
 * intents that are due, that is, checked out PAYMENT_RECONCILE_AFTER_MS ago or marked to be cancelled, and
 * the automatic refunds left unanswered. Outside that short transaction it asks the provider about each intent
 * (or cancels it, when marked), and what it finds, succeeded, failed or canceled, goes through the inbox as
 * the event the provider would have sent (`reconcile_<intent>_<state>`): recorded once per app and applied
 * once, like a delivery, so a webhook that comes after all changes nothing. Unanswered automatic refunds are
 * sent again under their own idempotency key.
 */
@Injectable()
export class PaymentReconcileJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PaymentReconcile');
  private running: Promise<ReconcileResult | null> | null = null;

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly intents: PaymentIntentRepository,
    private readonly refunds: RefundRepository,
    private readonly intentsFlow: PaymentIntentsFlow,
    private readonly events: PaymentEventsFlow,
    private readonly strays: StrayPaymentsFlow,
    private readonly gateway: PaymentGatewayService,
    private readonly sites: SitesService,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.config.payments.reconcileTickMs;
    if (every <= 0) return;
    const interval = setInterval(() => void this.tick().catch(() => undefined), every);
    interval.unref();
    this.scheduler.addInterval(JOB, interval);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /** One tick unless one is running here (then that one's result); null when another instance holds the tick. */
  tick(): Promise<ReconcileResult | null> {
    this.running ??= this.run()
      .then(
        (result) => {
          this.metrics.jobFinished('payment_reconcile', true);
          return result;
        },
        (error: unknown) => {
          this.metrics.jobFinished('payment_reconcile', false);
          this.logger.error({ err: String(error) }, 'Payment reconciliation tick failed');
          throw error;
        },
      )
      .finally(() => (this.running = null));
    return this.running;
  }

  private async run(): Promise<ReconcileResult | null> {
    const claimed = await withTickLock(this.connection.systemDataSource, DatabaseLock.PaymentReconcileTick, async (em) => ({
      intents: await this.intents.claimDue(em, BATCH),
      refunds: await this.refunds.heldAutomatic(em, AUTO_REFUND_RESUME_AFTER_MS, BATCH),
    }));
    if (!claimed) return null;
    let applied = 0;
    for (const row of claimed.intents) if (await this.reconcile(row)) applied++;
    for (const refund of claimed.refunds) {
      const intent = await this.connection.systemDataSource.manager.findOne(OrderPaymentIntent, {
        select: { livemode: true },
        where: { app_id: refund.app_id, intent_id: refund.payment_intent_id },
      });
      const site = await this.sites.findById(RequestContext.background(JOB, this.config.production), refund.app_id);
      if (site) await this.strays.send(site, refund.id, intent?.livemode ?? false);
    }
    const result = { intents: claimed.intents.length, applied, refunds: claimed.refunds.length };
    if (result.intents + result.refunds > 0) this.logger.log(result, 'Payment reconciliation tick');
    return result;
  }

  /** Asks the provider about one intent (cancels it when marked) and applies what it found; whether an event was applied. */
  private async reconcile(row: ClaimedIntent): Promise<boolean> {
    const site = await this.sites.findById(RequestContext.background(JOB, this.config.production), row.app_id);
    if (!site) return false;
    const ctx = RequestContext.background(JOB, this.config.production, site);
    try {
      const intent = row.cancel_requested
        ? await this.intentsFlow.cancel(ctx, row)
        : await this.gateway.retrieveIntent(ctx, row.livemode, row.intent_id);
      const event = eventOf(intent);
      if (!event) return false; // still open: asked again later
      await this.events.record(ctx, event);
      return (await this.events.apply(site, event, `${JOB} ${intent.id}`)) !== null;
    } catch (error) {
      this.logger.warn(
        { appId: row.app_id, intentId: row.intent_id, err: (error as Error)?.message },
        'intent not reconciled: asked again later',
      );
      return false;
    }
  }
}

/** The event the provider sends for the state an intent is in, as the inbox records it; null for an intent still open. */
function eventOf(intent: PaymentIntentView): Stripe.Event | null {
  const type =
    intent.status === 'succeeded'
      ? PAYMENT_SUCCEEDED
      : intent.status === 'canceled'
        ? PAYMENT_CANCELED
        : intent.status === 'requires_payment_method' && intent.lastPaymentError
          ? PAYMENT_FAILED
          : null;
  if (!type) return null;
  const object = {
    id: intent.id,
    object: 'payment_intent',
    amount: intent.amount,
    currency: intent.currency,
    livemode: intent.livemode,
    metadata: intent.metadata,
    status: intent.status,
    cancellation_reason: intent.cancellationReason,
    last_payment_error: intent.lastPaymentError ? { message: intent.lastPaymentError } : null,
  };
  return {
    id: `reconcile_${intent.id}_${type.slice('payment_intent.'.length)}`,
    object: 'event',
    type,
    livemode: intent.livemode,
    created: Math.floor(Date.now() / 1000),
    data: { object },
  } as unknown as Stripe.Event;
}
