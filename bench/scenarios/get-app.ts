import { join } from 'node:path';
import { freePort, goal, measure, ratio, ROOT, row, startNode } from '../lib';
import { Scenario } from './types';

export const getAppScenario: Scenario = {
  name: 'POST /getApp',
  async run(ctx) {
    const headers = { 'site-id': String(ctx.appId) };
    const body = '{}';
    const baseline = await startNode(join(ROOT, 'dist/bench/baseline/get-app.js'), { DATABASE_URL: ctx.databaseUrl }, await freePort(), '/ready');
    try {
      await measure({ url: `${ctx.service.url}${ctx.basePath}/getApp`, headers, body }, { duration: 2 }); // warm-up
      const service = await measure({ url: `${ctx.service.url}${ctx.basePath}/getApp`, headers, body });
      const raw = await measure({ url: `${baseline.url}/getApp`, headers, body });
      return [row('service POST /getApp', service), row('baseline Fastify+pg same query', raw), ratio(service, raw), goal('/getApp throughput / raw Fastify+pg handler', service.rps / raw.rps, '>=', 0.8)];
    } finally {
      await baseline.stop();
    }
  },
};
