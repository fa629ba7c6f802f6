import { Client } from 'pg';

/**
 * `count` more published core_products of the app (beside those it has), with their core_data rows, straight through SQL (on a
 * connection of its own: the service's statement timeout is for requests) and analyzed, as the bench seeds.
 */
export async function seedManyProducts(url: string, appId: number, count: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    // The rows inserted here are those past the app's highest id before (the app's own products keep theirs).
    const [{ before }] = (await client.query('SELECT coalesce(max(id), 0) AS before FROM core_products')).rows;
    await client.query(
      `INSERT INTO core_products (app_id, title, description, price, tax, bond, "IsDigital", "IsEvent")
       SELECT $1, 'Product ' || g, md5(g::text) || ' description of product ' || g, 1000 + g % 5000, 100, 0, 0, 0 FROM generate_series(1, $2) g`,
      [appId, count],
    );
    await client.query(
      `INSERT INTO core_data ("Shop_ID", "Source_Table", "Current_ID", "Master_ID", "IsCurrent", "Status", "Published", "Staged", "Title", "Publish_Set_Date")
       SELECT app_id, 'core_products', id, id, 1, 'Published', 1, 1, title, now() - interval '1 day' FROM core_products
        WHERE app_id = $1 AND id > $2`,
      [appId, before],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE core_products, core_data');
  } finally {
    await client.end();
  }
}

/**
 * The reproduction's read: twenty `contains` on the unindexed description (none matches, so every row is
 * tested against each) ordered by it. One pass per condition over the tenant's rows: ~2 s on 150,000 here.
 */
export const SLOW_READ = {
  table: 'core_products',
  whereConditions: {
    operator: 'OR',
    conditions: Array.from({ length: 20 }, (_, i) => ({ field: 'description', operator: 'contains', value: `zq${i}x` })),
  },
  orderBy: 'description DESC',
};

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
