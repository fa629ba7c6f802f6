import { EntityManager } from 'typeorm';
import { quoteIdentifier } from './identifiers';

/**
 * Inserts one row whose columns are known only at run time (fixtures choosing ids, tenant-added content
 * tables, notification log rows with optional columns) and returns the `returning` columns of the new row.
 * Raw SQL: TypeORM never writes into a generated column and has no entity for tenant-added tables. Every
 * name must already be an allow-listed identifier (quoteIdentifier throws on anything else).
 */
export async function insertRow<T = Record<string, unknown>>(
  em: EntityManager,
  table: string,
  values: Record<string, unknown>,
  returning: readonly string[] | '*' = ['id'],
): Promise<T> {
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  const columns = returning === '*' ? '*' : returning.map(quoteIdentifier).join(', ');
  const sql = entries.length
    ? `INSERT INTO ${quoteIdentifier(table)} (${entries.map(([name]) => quoteIdentifier(name)).join(', ')}) ` +
      `VALUES (${entries.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING ${columns}`
    : `INSERT INTO ${quoteIdentifier(table)} DEFAULT VALUES RETURNING ${columns}`;
  const [row] = (await em.query(
    sql,
    entries.map(([, value]) => value),
  )) as T[];
  return row;
}

/** Moves `table`'s id sequence past its largest id, after rows were inserted with chosen ids. */
export async function syncIdSequence(em: EntityManager, table: string, column = 'id'): Promise<void> {
  // Raw SQL: sequences are PostgreSQL objects, not entities.
  await em.query(
    `SELECT setval(pg_get_serial_sequence($1, $2), GREATEST((SELECT max(${quoteIdentifier(column)}) FROM ${quoteIdentifier(table)}), 1))`,
    [table, column],
  );
}
