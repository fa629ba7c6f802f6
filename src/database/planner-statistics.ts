import { EntityManager } from 'typeorm';
import { quoteIdentifier } from './identifiers';

/**
 * Refreshes the planner's statistics of `tables` now (a bulk load's tables, before autovacuum gets to
 * them). Every name must already be an allow-listed identifier (quoteIdentifier throws on anything else).
 */
export async function analyzeTables(em: EntityManager, tables: Iterable<string>): Promise<void> {
  // Raw SQL: ANALYZE is maintenance, with no TypeORM API.
  await em.query(`ANALYZE ${[...tables].map(quoteIdentifier).join(', ')}`);
}
