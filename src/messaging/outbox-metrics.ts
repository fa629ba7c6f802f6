import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService, OutboxState } from '../metrics';
import { NotificationLogRepository } from './repositories/notification-log.repository';

/** Reads the outbox (Pending rows of core_notification_log) for the metrics at scrape time: how many, and how long the oldest has waited. */
@Injectable()
export class OutboxMetrics implements OnModuleInit {
  private readonly ctx: RequestContext;

  constructor(
    private readonly log: NotificationLogRepository,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.ctx = RequestContext.background('outbox-metrics', config.production);
  }

  onModuleInit(): void {
    this.metrics.readOutboxWith(() => this.read());
  }

  async read(): Promise<OutboxState> {
    const row = await this.log.pendingState(this.ctx);
    return { pending: row.pending, oldestAgeSeconds: Math.max(0, row.age) };
  }
}
