import Fastify from 'fastify';
import { Pool } from 'pg';

/** The raw baseline for POST /getApp: Fastify and pg running the same query, nothing else. */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify();
app.get('/ready', async () => ({ ok: true }));
app.post('/getApp', async (request, reply) => {
  const id = Number(request.headers['site-id']);
  const { rows } = await pool.query('SELECT * FROM core_sites WHERE id = $1', [id]);
  if (!rows[0]) return reply.status(404).send({ status: 'Failed', message: 'App not found' });
  const s = rows[0];
  return {
    splash_logo: s.splash_logo,
    logo: s.logo,
    background: s.background,
    colour1: s.colour1,
    colour2: s.colour2,
    _id: String(s.id),
    payment_test_public_key: s.payment_test_public_key,
  };
});
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
