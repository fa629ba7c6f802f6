import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort, goal, median, ratio, ROOT, row, startNode, versusBaseline } from '../lib';
import { BenchContext, Scenario } from './types';

const TOKENS = 1_000;

/**
 * A published digital product of the bench tenant (with its core_data row) and TOKENS pending tokens of it,
 * written straight through pg; answers the product id and three token values to rotate through.
 */
export async function seedTokens(ctx: BenchContext): Promise<{ productId: number; values: string[] }> {
  const client = new Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const [{ id: productId }] = (
      await client.query(
        `INSERT INTO core_products (app_id, title, price, tax, "IsDigital") VALUES ($1, 'Bench e-book', 2500, 227, 1) RETURNING id`,
        [ctx.appId],
      )
    ).rows;
    await client.query(
      `INSERT INTO core_data ("Shop_ID", "Source_Table", "Current_ID", "Master_ID", "IsCurrent", "Status", "Published", "Staged", "Title")
       VALUES ($1, 'core_products', $2, $2, 1, 'Published', 1, 1, 'Bench e-book')`,
      [ctx.appId, productId],
    );
    const values = Array.from({ length: TOKENS }, () => randomBytes(32).toString('hex'));
    await client.query(
      `INSERT INTO core_tokens (app_id, token_value, product_id, customer_id, order_id, order_item_id, item_unit, status, maximum_activations)
       SELECT $1, v, $2, NULL, 900000 + n, 900000 + n, 1, 'pending', 3 FROM unnest($3::text[]) WITH ORDINALITY AS u(v, n)`,
      [ctx.appId, productId, values],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE core_tokens; ANALYZE core_data');
    return { productId, values: [values[0], values[TOKENS / 2], values[TOKENS - 1]] };
  } finally {
    await client.end();
  }
}

/** Benchmark scenarios of the tokens module. */
export const tokensScenarios: Scenario[] = [
  {
    name: 'POST /ecommerce/validateToken (mode 1)',
    async run(ctx) {
      const { productId, values } = await seedTokens(ctx);
      const headers = { 'site-id': String(ctx.appId) };
      const requests = values.map((tokenValue) => ({ method: 'POST' as const, body: JSON.stringify({ tokenValue, productId }) }));
      const url = `${ctx.service.url}${ctx.basePath}/ecommerce/validateToken`;
      const check = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: requests[0].body,
      });
      const sample = (await check.json()) as { status?: string; message?: string };
      if (!check.ok || sample.status !== 'Success') throw new Error(`validateToken answered ${check.status}: ${JSON.stringify(sample)}`);
      const baseline = await startNode(
        join(ROOT, 'dist/bench/baseline/validate-token.js'),
        { DATABASE_URL: ctx.databaseUrl },
        await freePort(),
        '/ready',
      );
      const floor = await startNode(
        join(ROOT, 'dist/bench/baseline/nest-floor.js'),
        { DATABASE_URL: ctx.databaseUrl },
        await freePort(),
        '/ready',
      );
      try {
        const measured = await versusBaseline(
          { url, headers, requests },
          { url: `${baseline.url}/validateToken`, headers, requests },
          undefined,
          [{ url: `${floor.url}/validateToken`, headers, requests }],
        );
        const [bare] = measured.references;
        const vsFloor = median(measured.perRound.map(([service, , floorRate]) => service / floorRate));
        return [
          `warm-up in interleaved turns until no rate was rising: ${measured.warmUpRounds} rounds`,
          row('service POST /ecommerce/validateToken', measured.service),
          row('baseline Fastify+pg select by token_value', measured.baseline),
          row('bare NestJS-on-Fastify + pg, same select', bare.figures),
          `reference, not a goal (issue 26): ${ratio(measured.service, measured.baseline, measured.ratio)}`,
          `framework floor: bare NestJS + pg / raw Fastify + pg: ${bare.ratio.toFixed(2)} (median of interleaved rounds)`,
          goal(
            'validateToken throughput / framework floor (bare NestJS + pg, same select; median of interleaved rounds)',
            vsFloor,
            '>=',
            0.8,
          ),
        ];
      } finally {
        await Promise.all([baseline.stop(), floor.stop()]);
      }
    },
  },
];
