import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { updateReturning } from './core-data';
import { DatabaseLock } from '../database/locks';
import { withTickLock } from '../database/transaction';

const JOB = 'content-expiry';

/**
 * Published → Expired when Publish_Expire_Date has passed (SPEC "Lifecycle states"). Every
 * CONTENT_EXPIRY_TICK_MS one instance (the holder of the advisory lock) expires the due versions in one
 * UPDATE; a version already expired no longer matches, so running a tick twice changes nothing. The interval
 * comes from the configuration, so it is registered with @nestjs/schedule's registry at start (which clears it
 * before shutdown) rather than with a decorator.
 */
@Injectable()
export class ExpiryJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ContentExpiry');
  private running: Promise<unknown> | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly scheduler: SchedulerRegistry,
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
    const expired = await withTickLock(this.dataSource, DatabaseLock.ContentExpiryTick, async (em) => {
      const rows = await updateReturning<{ ID: number }>(
        em,
        `UPDATE core_data SET "Status" = 'Expired', "Published" = 0, "Staged" = 0, "IsExpired" = 1, "Lock" = 0, "Updated" = now()
          WHERE "Published" = 1 AND "Publish_Expire_Date" <= now() RETURNING "ID"`,
        [],
      );
      return rows.map((r) => r.ID);
    });
    if (expired?.length) this.logger.log({ expired: expired.length }, 'Expired published content');
    return expired ?? null;
  }
}
