import { join } from 'node:path';
import { freePort, goal, ratio, ROOT, row, startNode, versusBaseline } from '../lib';
import { Scenario } from './types';

export const getAppScenario: Scenario = {
  name: 'POST /getApp',
  async run(ctx) {
    const headers = { 'site-id': String(ctx.appId) };
    const body = '{}';
    const baseline = await startNode(
      join(ROOT, 'dist/bench/baseline/get-app.js'),
      { DATABASE_URL: ctx.databaseUrl },
      await freePort(),
      '/ready',
    );
    try {
      const {
        service,
        baseline: raw,
        ratio: throughput,
        warmUpRounds,
      } = await versusBaseline(
        { url: `${ctx.service.url}${ctx.basePath}/getApp`, headers, body },
        { url: `${baseline.url}/getApp`, headers, body },
      );
      return [
        `warm-up in interleaved turns until no rate was rising: ${warmUpRounds} rounds`,
        row('service POST /getApp', service),
        row('baseline Fastify+pg same query', raw),
        ratio(service, raw, throughput),
        // Issue 26: /getApp reads its tenant from memory, so it is to stay at or above the raw handler that queries it.
        goal('/getApp throughput / raw Fastify+pg handler (median of interleaved rounds)', throughput, '>=', 1.0),
      ];
    } finally {
      await baseline.stop();
    }
  },
};
