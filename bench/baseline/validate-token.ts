import Fastify from 'fastify';
import { Pool } from 'pg';

/**
 * The raw baseline for POST /ecommerce/validateToken (mode 1): Fastify and pg doing the single-row select
 * of the token by token_value (and app), nothing else: no tenant lookup, no product mapping, no checks.
 */
const SQL = `SELECT id, token_value, product_id, customer_id, order_id, status, expiry_date, activations, maximum_activations, created_date, last_activated
  FROM core_tokens WHERE token_value = $1 AND app_id = $2`;

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify();
app.get('/ready', async () => ({ ok: true }));
app.post('/validateToken', async (request) => {
  const appId = Number(request.headers['site-id']);
  const body = request.body as { tokenValue: string; productId: number };
  const { rows } = await pool.query(SQL, [body.tokenValue, appId]);
  if (!rows[0]) return { status: 'Failed', message: 'Token not found', data: null };
  return { status: 'Success', message: 'Token is valid', data: rows[0], datetime: new Date().toISOString() };
});
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
