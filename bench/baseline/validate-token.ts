import Fastify from 'fastify';
import { Pool } from 'pg';
import { TOKEN_SELECT } from './token-select';

/**
 * The raw baseline for POST /ecommerce/validateToken (mode 1): Fastify and pg doing the single-row select
 * of the token by token_value (and app), nothing else: no tenant lookup, no product mapping, no checks.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify();
app.get('/ready', async () => ({ ok: true }));
app.post('/validateToken', async (request) => {
  const appId = Number(request.headers['site-id']);
  const body = request.body as { tokenValue: string; productId: number };
  const { rows } = await pool.query(TOKEN_SELECT, [body.tokenValue, appId]);
  if (!rows[0]) return { status: 'Failed', message: 'Token not found', data: null };
  return { status: 'Success', message: 'Token is valid', data: rows[0], datetime: new Date().toISOString() };
});
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
