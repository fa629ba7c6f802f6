import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type Stripe from 'stripe';
import { SitesService } from '../../app-context';
import { RequestContext } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { TransactionalConnection } from '../../database/transactional-connection';
import { MetricsService } from '../../metrics';
import { PaymentEventRepository } from '../repositories/payment-event.repository';
import { PaymentEventsFlow } from './payment-events.flow';

const JOB = 'payment-events';
/** Events claimed per round; a round with a full batch is followed by another at once. */
const BATCH = 20;

/**
 * The inbox worker: every PAYMENT_EVENTS_POLL_MS it claims the pending events that are due (a try that
 * failed, or a delivery that died before applying its event), on any instance, FOR UPDATE SKIP LOCKED with
 * a lease, and applies each through PaymentEventsFlow, which applies an event at most once whoever tries it.
 * It also reads the inbox for /metrics.
 */
@Injectable()
export class PaymentEventsWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PaymentEvents');
  private running: Promise<unknown> | null = null;
  private readonly ctx: RequestContext;

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly events: PaymentEventRepository,
    private readonly flow: PaymentEventsFlow,
    private readonly sites: SitesService,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.ctx = RequestContext.background('payment-events', config.production);
  }

  onApplicationBootstrap(): void {
    this.metrics.readPaymentEventsWith(() => this.events.state(this.connection.systemDataSource.manager));
    const every = this.config.payments.eventsPollMs;
    if (every <= 0) return;
    const interval = setInterval(() => void this.runOnce(), every);
    interval.unref();
    this.scheduler.addInterval(JOB, interval);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.running;
  }

  /** One round unless one is running; resolves when it ended. */
  runOnce(): Promise<unknown> {
    this.running ??= this.round()
      .then(
        () => this.metrics.jobFinished('payment_events', true),
        (error) => {
          this.metrics.jobFinished('payment_events', false);
          this.logger.error({ err: String(error) }, 'Payment events round failed');
        },
      )
      .finally(() => (this.running = null));
    return this.running;
  }

  /** Claims and applies due events until a claim comes back short; how many were tried. */
  private async round(): Promise<number> {
    let tried = 0;
    for (;;) {
      const claimed = await this.connection.systemDataSource.transaction((em) => this.events.claimDue(em, BATCH));
      for (const { app_id, event_id, payload } of claimed) {
        const site = await this.sites.findById(this.ctx, app_id);
        if (!site || !payload) continue; // the app is gone (its events went with it), or a row from before the inbox
        await this.flow.apply(site, payload as unknown as Stripe.Event, `payment-event ${event_id}`);
        tried++;
      }
      if (claimed.length < BATCH) return tried;
    }
  }
}
