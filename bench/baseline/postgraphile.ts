import { createServer } from 'node:http';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

/**
 * The bench's peer for the published page (bench/scenarios/postgraphile-peer.ts): PostGraphile 5 in library mode
 * on Node's http server, as its documentation deploys it, with production settings: the Amber preset, no
 * GraphiQL, no watch mode, no explain, no subscriptions, errors masked (grafserv's default), NODE_ENV=production
 * (the bench sets it: no development-only checks), one pg pool of PG_POOL_SIZE connections (the service's pool
 * size). It exposes schema PG_SCHEMA (the view published_products) of DATABASE_URL at /graphql, and answers
 * GET /ready once its schema is built.
 */
const preset: GraphileConfig.Preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      connectionString: process.env.DATABASE_URL,
      poolConfig: { max: Number(process.env.PG_POOL_SIZE ?? 10) },
      schemas: [process.env.PG_SCHEMA ?? 'public'],
      pubsub: false,
    }),
  ],
  grafserv: { graphqlPath: '/graphql', graphiql: false, graphqlOverGET: false, watch: false, websockets: false },
  grafast: { explain: false },
};

void (async () => {
  const pgl = postgraphile(preset);
  const serv = pgl.createServ(grafserv);
  await pgl.getSchema();
  // serv.addTo(server) mounts this same handler; taken directly so that /ready is answered beside it.
  const handler = serv.createHandler();
  const server = createServer((req, res) => {
    if (req.url === '/ready') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      return;
    }
    handler(req, res);
  });
  server.listen(Number(process.env.PORT), '127.0.0.1');
})();
