import Fastify from 'fastify';
import { Pool } from 'pg';
import { pageAnswer, pageQuery, PageRequest } from './page-query';

/**
 * The raw baseline for POST /getDataRows (published page of core_products): Fastify and pg running the best SQL for the
 * schema (page-query.ts), nothing else.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify();
app.get('/ready', async () => ({ ok: true }));
app.post('/getDataRows', async (request) => {
  const { statement, page, perPage } = pageQuery(Number(request.headers['site-id']), request.body as PageRequest);
  const { rows } = await pool.query(statement);
  return pageAnswer(rows, page, perPage);
});
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
