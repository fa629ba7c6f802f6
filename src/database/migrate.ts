import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { migrations } from '../../migrations';
import { CONNECT_TIMEOUT_MS, DatabaseConnectError } from './connection-errors';
import { DatabaseHandle } from './embedded-database';
import { DatabaseLock, lockSession, unlockSession } from './locks';

/** What migrations need of the database: its direct connection (DATABASE_DIRECT_URL, else DATABASE_URL). */
type MigrationDatabase = Pick<DatabaseHandle, 'url' | 'directUrl' | 'embedded' | 'idle'>;

/**
 * Applies pending migrations; returns the names of those applied. Safe to call from several instances at once.
 * Every connection of it is on the direct connection: the lock is a session advisory lock, which a
 * transaction-mode pooler would strand on whichever server connection it landed on (authentik #23876).
 */
export async function migrate(database: MigrationDatabase): Promise<string[]> {
  if (!database.embedded && (await allApplied(database.directUrl ?? database.url))) return [];
  return withMigrationLock(database, async (dataSource) => (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name));
}

/**
 * Runs `work` with a DataSource that knows the migrations, under the migrations advisory lock: one
 * migrator at a time (instances starting together, `migrate:status`, `migrate:revert`).
 */
export async function withMigrationLock<T>(database: MigrationDatabase, work: (dataSource: DataSource) => Promise<T>): Promise<T> {
  const { embedded } = database;
  const url = database.directUrl ?? database.url;
  // PGlite has one connection: no concurrent migrator can exist, and a lock connection would block the work.
  const lock = embedded ? null : new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  if (lock) {
    await connect(lock, url);
    await lockSession(lock, DatabaseLock.Migrations);
  }
  const dataSource = new DataSource({ type: 'postgres', url, migrations, migrationsTableName: 'typeorm_migrations', poolSize: 1 });
  try {
    await dataSource.initialize();
    return await work(dataSource);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.idle();
    if (lock) {
      await unlockSession(lock, DatabaseLock.Migrations).catch(() => undefined);
      await lock.end();
    }
  }
}

/**
 * Whether every migration is recorded already, which is every start but a deploy's first: decided with one
 * connection and one query, without the lock and TypeORM's migration run, which would lengthen every start.
 */
async function allApplied(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await connect(client, url);
  try {
    // Raw SQL: TypeORM's own bookkeeping table, read before any DataSource exists.
    const { rows } = await client.query<{ name: string }>('SELECT name FROM typeorm_migrations');
    const recorded = new Set(rows.map((row) => row.name));
    return migrations.every((migration) => recorded.has(migration.name));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return false; // a new database: no table yet
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * The first connection of a start: a database that cannot be reached (or does not exist, or refuses the
 * login) fails at once with one line naming it (DatabaseConnectError), not a driver's stack.
 */
async function connect(client: Client, url: string): Promise<void> {
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new DatabaseConnectError(url, error);
  }
}
