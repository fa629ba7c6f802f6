import { QueryRunner } from 'typeorm';

/** An index a migration builds: its name, its table and what follows `ON <table>` (columns, method, WHERE). */
export type IndexDefinition = readonly [name: string, table: string, definition: string];

/**
 * Builds each index CONCURRENTLY, for a table that takes writes which must not wait for the build (the migration
 * runs outside a transaction: `transaction = false`). A build that failed half way leaves an INVALID index: it
 * is dropped and built again when the migration runs again.
 */
export async function createIndexesConcurrently(q: QueryRunner, indexes: readonly IndexDefinition[]): Promise<void> {
  for (const [name, table, definition] of indexes) {
    const invalid: unknown[] = await q.query(
      `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1 AND NOT i.indisvalid`,
      [name],
    );
    if (invalid.length > 0) await q.query(`DROP INDEX CONCURRENTLY ${name}`);
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${table} ${definition}`);
  }
}

/**
 * A down's drop of the indexes, last built first: plain statements, since `migrate:revert` runs every down in one
 * transaction, where CONCURRENTLY cannot run.
 */
export async function dropIndexes(q: QueryRunner, indexes: readonly IndexDefinition[]): Promise<void> {
  for (const [name] of [...indexes].reverse()) await q.query(`DROP INDEX IF EXISTS ${name}`);
}
