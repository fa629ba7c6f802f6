import { Client } from 'pg';

/** The flood's seeding and read, shared with the bench (bench/heavy-reads.ts). */
export { HEAVY_READ as SLOW_READ, seedManyProducts } from '../../bench/heavy-reads';

/**
 * The most statements matching `pattern` running at once on `database` (on connections: PostgreSQL's
 * parallel workers of a statement are not counted), sampled until `until` settles. A statement cancelled by
 * its timeout still shows as active for a moment after its client got the error (and gave the connection and
 * the tenant's slot on): statements older than `timeoutMs` are not counted either.
 */
export async function peakActive(
  url: string,
  database: string,
  pattern: string,
  timeoutMs: number,
  until: Promise<unknown>,
): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  let done = false;
  void until.finally(() => (done = true));
  let peak = 0;
  try {
    while (!done) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = $1 AND backend_type = 'client backend' AND state = 'active' AND query LIKE $2 AND clock_timestamp() - query_start < $3 * interval '1 millisecond'`,
        [database, pattern, timeoutMs],
      );
      peak = Math.max(peak, rows[0].n);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await client.end();
  }
  return peak;
}

/** How many statements matching `pattern` run on `database` now (on connections, as `peakActive` counts them). */
export async function activeStatements(url: string, database: string, pattern: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND state = 'active' AND query LIKE $2`,
      [database, pattern],
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}
