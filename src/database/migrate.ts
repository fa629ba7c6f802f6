import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { migrations } from '../../migrations';
import { DatabaseHandle } from './embedded-database';
import { DatabaseLock } from './locks';

/** Applies pending migrations; returns the names of those applied. Safe to call from several instances at once. */
export async function migrate(database: Pick<DatabaseHandle, 'url' | 'embedded' | 'idle'>): Promise<string[]> {
  const { url, embedded } = database;
  if (!embedded && (await allApplied(url))) return [];
  // PGlite has one connection: no concurrent starter can exist, and a lock connection would block the migration.
  const lock = embedded ? null : new Client({ connectionString: url });
  if (lock) {
    await lock.connect();
    // Raw SQL: advisory locks are PostgreSQL functions, not tables.
    await lock.query('SELECT pg_advisory_lock($1)', [DatabaseLock.Migrations]);
  }
  const dataSource = new DataSource({ type: 'postgres', url, migrations, migrationsTableName: 'typeorm_migrations', poolSize: 1 });
  try {
    await dataSource.initialize();
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.idle();
    if (lock) {
      await lock.query('SELECT pg_advisory_unlock($1)', [DatabaseLock.Migrations]).catch(() => undefined);
      await lock.end();
    }
  }
}

/**
 * Whether every migration is recorded already, which is every start but a deploy's first: decided with one
 * connection and one query, without the lock and TypeORM's migration run (~40 ms of each start).
 */
async function allApplied(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url });
  await client.connect();
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
