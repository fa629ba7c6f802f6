import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseLock } from '../database/locks';
import { withTickLock } from '../database/transaction';
import { TransactionalConnection } from '../database/transactional-connection';
import { MetricsService } from '../metrics';
import { LifecycleService } from './lifecycle.service';

const JOB = 'content-expiry';

/**
 * Published → Expired when Publish_Expire_Date has passed (docs/content.md "Expiry job"). Every
 * CONTENT_EXPIRY_TICK_MS one instance (the holder of the advisory lock) expires the due versions in one
 * UPDATE over the rows it claims FOR UPDATE SKIP LOCKED (a version an admin is changing right now waits for
 * the next tick); a version already expired no longer matches, so running a tick twice changes nothing.
 * The job is an edge: it opens the tick's transaction and hands it to LifecycleService in a background
 * context. The interval comes from the configuration, so it is registered with @nestjs/schedule's registry
 * at start (which clears it before shutdown) rather than with a decorator.
 */
@Injectable()
export class ExpiryJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ContentExpiry');
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly lifecycle: LifecycleService,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.config.content.expiryTickMs;
    if (every <= 0) return;
    const interval = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((error) => this.logger.error({ err: String(error) }, 'Expiry tick failed'))
        .finally(() => (this.running = null));
    }, every);
    interval.unref();
    this.scheduler.addInterval(JOB, interval);
  }

  /** The registry has stopped the interval already (before shutdown): wait for a tick in flight. */
  async onApplicationShutdown(): Promise<void> {
    await this.running;
  }

  /** One tick: the ids of the core_data rows it expired, or null when another instance holds the tick. */
  async tick(): Promise<number[] | null> {
    try {
      const expired = await this.expireDue();
      this.metrics.jobFinished('content_expiry', true);
      return expired;
    } catch (error) {
      this.metrics.jobFinished('content_expiry', false);
      throw error;
    }
  }

  private async expireDue(): Promise<number[] | null> {
    const expired = await withTickLock(this.connection.dataSource, DatabaseLock.ContentExpiryTick, (em) =>
      this.lifecycle.expireDue(Object.assign(RequestContext.background('expiry', this.config.production), { manager: em })),
    );
    if (expired?.length) this.logger.log({ expired: expired.length }, 'Expired published content');
    return expired ?? null;
  }
}
