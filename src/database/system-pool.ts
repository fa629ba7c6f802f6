import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, DataSourceOptions } from 'typeorm';

/**
 * The system pool (README "Payment events"): DB_SYSTEM_POOL_SIZE connections of their own for the payment
 * provider's events and the background jobs that settle money (the inbox worker, reconciliation). No tenant's
 * requests can take them: the request pool's tenant shares (tenant-pool.ts) are not on this pool, and no
 * request reads on it. So a flood that holds every request connection still leaves a payment event the
 * connection it needs to be recorded, and a paid order is never lost to a busy pool.
 *
 * The same entities, statement timeout and prepared-statement client as the request pool. On the embedded
 * database (one connection) it is the request pool itself.
 */
export class SystemPool implements OnApplicationShutdown {
  private readonly logger = new Logger('SystemPool');

  private constructor(
    readonly dataSource: DataSource,
    private readonly own: boolean,
  ) {}

  /** A pool of `size` connections beside `requestPool`, or `requestPool` itself on the embedded database. */
  static async open(requestPool: DataSource, size: number, embedded: boolean): Promise<SystemPool> {
    if (embedded) return new SystemPool(requestPool, false);
    const options = requestPool.options as DataSourceOptions & { extra?: Record<string, unknown> };
    const dataSource = new DataSource({
      ...options,
      poolSize: size,
      // pg itself: the request pool's driver counts tenant shares, which this pool must never wait for.
      driver: undefined,
      extra: { ...options.extra, application_name: 'platform-system' },
    } as DataSourceOptions);
    return new SystemPool(await dataSource.initialize(), true);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.own || !this.dataSource.isInitialized) return;
    await this.dataSource.destroy().catch((error: Error) => this.logger.warn({ err: error.message }, 'Closing the system pool failed'));
  }
}
