import { Client } from 'pg';

/**
 * The heavy anonymous read of issue 37's reproduction: twenty `contains` on the unindexed description (none
 * matches, so every row is tested against each) ordered by it. One pass per condition over the tenant's rows.
 */
export const HEAVY_READ = {
  table: 'core_products',
  whereConditions: {
    operator: 'OR',
    conditions: Array.from({ length: 20 }, (_, i) => ({ field: 'description', operator: 'contains', value: `zq${i}x` })),
  },
  orderBy: 'description DESC',
};

/**
 * `count` more published core_products of the app (beside those it has), with their core_data rows, straight
 * through SQL on a connection of its own (the service's statement timeout is for requests), then analyzed. Used
 * by the bench's flood scenarios and the tests' (test/support/slow-reads.ts).
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
