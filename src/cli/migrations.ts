import { MigrationExecutor } from 'typeorm';
import { migrations } from '../../migrations';
import { DatabaseHandle } from '../database/embedded-database';
import { withMigrationLock } from '../database/migrate';
import { CommandError } from './command-errors';

export interface MigrationStatus {
  /** Recorded in typeorm_migrations, oldest first. */
  applied: string[];
  /** In this build and not recorded: `migrate` (or the next start) applies them. */
  pending: string[];
  /** Recorded but not in this build (a newer build migrated this database). */
  unknown: string[];
}

/*
 * TypeORM's own migration bookkeeping (MigrationExecutor on typeorm_migrations) for `migrate:status` and
 * `migrate:revert`, under the same advisory lock as `migrate` (withMigrationLock), so they never run while
 * an instance migrates at start.
 */

export function migrationStatus(database: Pick<DatabaseHandle, 'url' | 'directUrl' | 'embedded' | 'idle'>): Promise<MigrationStatus> {
  return withMigrationLock(database, async (dataSource) => {
    const executor = new MigrationExecutor(dataSource);
    const executed = (await executor.getExecutedMigrations()).sort((a, b) => a.timestamp - b.timestamp || a.name.localeCompare(b.name));
    const known = new Set(migrations.map((migration) => migration.name));
    return {
      applied: executed.map((migration) => migration.name),
      pending: (await executor.getPendingMigrations()).map((migration) => migration.name),
      unknown: executed.map((migration) => migration.name).filter((name) => !known.has(name)),
    };
  });
}

/** Undoes the newest `count` applied migrations (their `down`), all in one transaction: all or none are reverted. */
export function revertMigrations(
  database: Pick<DatabaseHandle, 'url' | 'directUrl' | 'embedded' | 'idle'>,
  count: number,
): Promise<{ reverted: string[] }> {
  return withMigrationLock(database, async (dataSource) => {
    const runner = dataSource.createQueryRunner();
    try {
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'none'; // the transaction below holds every step
      const executed = (await executor.getExecutedMigrations()).sort((a, b) => b.timestamp - a.timestamp || b.name.localeCompare(a.name));
      if (executed.length === 0) throw new CommandError('No migration is applied: nothing to revert');
      if (count > executed.length) throw new CommandError(`Only ${executed.length} migration(s) are applied: cannot revert ${count}`);
      const reverting = executed.slice(0, count).map((migration) => migration.name);
      const known = new Set(migrations.map((migration) => migration.name));
      const missing = reverting.find((name) => !known.has(name));
      if (missing) throw new CommandError(`Migration ${missing} is not in this build: revert it with the build that applied it`);
      await runner.startTransaction();
      try {
        for (let i = 0; i < count; i++) await executor.undoLastMigration();
        await runner.commitTransaction();
      } catch (error) {
        await runner.rollbackTransaction().catch(() => undefined);
        throw error;
      }
      return { reverted: reverting };
    } finally {
      await runner.release();
    }
  });
}
