import Fastify from 'fastify';
import { Pool } from 'pg';

/**
 * The raw baseline for POST /getDataRows (published page of core_products): Fastify and pg running the SQL
 * the service builds for `{ table: 'core_products', isPaging: true, perPage: 20, page }`, nothing else.
 */
const COLUMNS = ['id', 'app_id', 'title', 'description', 'sku', 'image', 'price', 'tax', 'bond', 'IsDigital', 'IsEvent', 'event_date', 'sort_order', 'created', 'updated'];
const SQL = `SELECT d."Master_ID" AS meta_master_id, d."Current_ID" AS meta_current_id, d."Title" AS meta_title, d."Status" AS meta_status, d."Updated" AS meta_updated, ${COLUMNS.map((c) => `c."${c}" AS "${c}"`).join(', ')}
  FROM (SELECT * FROM core_data WHERE "Shop_ID" = $1 AND "Source_Table" = $2 AND "Published" = 1
          AND "Publish_Set_Date" <= now() AND ("Publish_Expire_Date" > now() OR "Publish_Expire_Date" IS NULL) AND "IsExpired" <> 1) d
  JOIN "core_products" c ON c."id" = d."Current_ID" AND c."app_id" = $1
 WHERE TRUE ORDER BY d."Master_ID" ASC LIMIT 21 OFFSET $3`;

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify();
app.get('/ready', async () => ({ ok: true }));
app.post('/getDataRows', async (request) => {
  const appId = Number(request.headers['site-id']);
  const body = request.body as { page?: number; perPage?: number };
  const perPage = body.perPage ?? 20;
  const page = body.page ?? 1;
  const { rows } = await pool.query(SQL, [appId, 'core_products', (page - 1) * perPage]);
  const data = rows.slice(0, perPage).map((row) => ({ _id: String(row.meta_master_id), ...row }));
  return { status: 'Success', data, paging: { page, perPage, hasMore: rows.length > perPage }, datetime: new Date().toISOString() };
});
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
