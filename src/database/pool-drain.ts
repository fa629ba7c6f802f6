import { setTimeout as sleep } from 'node:timers/promises';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** How long a shutdown waits for connections still checked out (main.ts forces the exit at 25 s). */
export const POOL_DRAIN_TIMEOUT_MS = 20_000;
const POLL_MS = 10;

/**
 * Before TypeORM closes the request pool, waits until no connection of it is checked out. TypeORM's
 * DataSource.destroy() releases every query runner it still knows, in the middle of its transaction, and the
 * pool hands such a connection at once to a request waiting for one: the second transaction's statements then
 * queue behind the first's on one connection, and the first fails at its next statement. It happens when a
 * stop comes while a request's client has gone away (the HTTP server no longer waits for that request) or a
 * background round is between statements. Background workers stop at module destroy, before this.
 */
@Injectable()
export class PoolDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger(PoolDrain.name);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    const deadline = Date.now() + POOL_DRAIN_TIMEOUT_MS;
    while (checkedOut(pool) > 0) {
      if (Date.now() >= deadline) {
        this.logger.warn({ checkedOut: checkedOut(pool) }, 'Closing the database pool with connections still in use');
        return;
      }
      await sleep(POLL_MS);
    }
  }
}

function checkedOut(pool: Pool): number {
  return pool.totalCount - pool.idleCount + pool.waitingCount;
}
