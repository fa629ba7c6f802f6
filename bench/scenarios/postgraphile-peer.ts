import { join } from 'node:path';
import { Client } from 'pg';
import { ADMIN_URL, CpuMeter, Figures, freePort, goal, interleaved, median, ROOT, row, Server, startNode, Target } from '../lib';
import { BenchContext } from './types';

/**
 * PostGraphile 5 as the bench's peer for the published page (issue 26): the open-source system a tenant would
 * pick instead to serve its products as an API, on the same PostgreSQL, data and machine. It serves GraphQL
 * over a view, `published_products`, that joins core_products to core_data with the service's published filter,
 * in a schema of its own in the bench database (a copy made with CREATE DATABASE … TEMPLATE cannot be taken
 * while the service holds connections to the bench database; the view reads the very rows the service reads).
 */
export const PEER_SCHEMA = 'postgraphile_bench';

/** The core_data columns behind the service's meta fields (META_FIELDS in src/data-rows/row-query.ts). */
const META: Record<string, string> = {
  meta_master_id: 'Master_ID',
  meta_current_id: 'Current_ID',
  meta_title: 'Title',
  meta_status: 'Status',
  meta_updated: 'Updated',
};

/**
 * Published now, as the service's published read of a versioned table (versionsFor('published') in
 * src/data-rows/data-rows.service.ts, PUBLISHED_NOW in src/versioning/product-catalog.service.ts): Published = 1,
 * Publish_Set_Date reached, Publish_Expire_Date not reached (or none), not expired; IsCurrent plays no part. The
 * service scopes core_data by Shop_ID and the product by app_id, both the tenant: here the join equates them and
 * the GraphQL condition on appId names the tenant.
 */
const PUBLISHED_NOW = `d."Source_Table" = 'core_products' AND d."Published" = 1 AND d."Publish_Set_Date" <= now()
   AND (d."Publish_Expire_Date" > now() OR d."Publish_Expire_Date" IS NULL) AND d."IsExpired" <> 1`;

const PER_PAGE = 20;

/** The service's published page of core_products ordered by title (POST /getDataRows). */
export function servicePageBody(page: number): string {
  return JSON.stringify({ table: 'core_products', isPaging: true, perPage: PER_PAGE, page, orderBy: 'title ASC' });
}

async function servicePage(ctx: BenchContext, appId: number, page: number): Promise<{ rows: Record<string, unknown>[]; hasMore: boolean }> {
  const res = await fetch(`${ctx.service.url}${ctx.basePath}/getDataRows`, {
    method: 'POST',
    headers: { 'site-id': String(appId), 'content-type': 'application/json' },
    body: servicePageBody(page),
  });
  const answer = (await res.json()) as { data?: Record<string, unknown>[]; paging?: { hasMore: boolean } };
  if (!res.ok || !answer.data?.length) throw new Error(`the service answered ${res.status} to page ${page} of app ${appId}`);
  return { rows: answer.data, hasMore: answer.paging?.hasMore === true };
}

/** PostGraphile's default field name of a column (graphile-build's camelCase inflection). */
function camelCase(column: string): string {
  const [first, ...rest] = column.split('_').filter(Boolean);
  return first[0].toLowerCase() + first.slice(1) + rest.map((part) => part[0].toUpperCase() + part.slice(1)).join('');
}

export interface PostGraphilePeer {
  server: Server;
  /** POST target of the page `page` (20 by title) of app `appId`. */
  target(appId: number, pages: number[]): Target;
  stop(): Promise<void>;
}

/**
 * Creates the view with the columns the service's page answers (its rows' keys but `_id`, the encrypted
 * master id), starts the peer (bench/baseline/postgraphile.ts) with a pool the size of the service's, and
 * checks once that it answers the same 20 titles, in the same order, and the same "there is a next page",
 * as the service for every page of `pages` of every app of `appIds`.
 */
export async function startPostGraphile(ctx: BenchContext, appIds: number[], pages: number[]): Promise<PostGraphilePeer> {
  const columns = Object.keys((await servicePage(ctx, appIds[0], 1)).rows[0]).filter((key) => key !== '_id');
  if (!columns.includes('app_id') || !columns.includes('id'))
    throw new Error(`the service's page has no app_id or id: ${columns.join(', ')}`);
  const select = columns.map((name) => (META[name] ? `d."${META[name]}" AS "${name}"` : `c."${name}" AS "${name}"`));
  const admin = new Client({ connectionString: ctx.databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${PEER_SCHEMA}`);
    await admin.query(`DROP VIEW IF EXISTS ${PEER_SCHEMA}.published_products`);
    await admin.query(
      `CREATE VIEW ${PEER_SCHEMA}.published_products AS
       SELECT ${select.join(', ')}
         FROM public.core_data d JOIN public.core_products c ON c."id" = d."Current_ID" AND c."app_id" = d."Shop_ID"
        WHERE ${PUBLISHED_NOW}`,
    );
    // The row id as the view's key: PostGraphile then breaks ties of an order by it, as the service does by
    // meta_current_id (the same id through the join), so a page walks core_products_app_title_idx (app_id, title, id).
    await admin.query(`COMMENT ON VIEW ${PEER_SCHEMA}.published_products IS E'@primaryKey id'`);
  } finally {
    await admin.end();
  }

  const url = new URL(ctx.databaseUrl);
  url.searchParams.set('application_name', 'bench-postgraphile');
  const server = await startNode(
    join(ROOT, 'dist/bench/baseline/postgraphile.js'),
    {
      NODE_ENV: 'production',
      DATABASE_URL: url.toString(),
      PG_SCHEMA: PEER_SCHEMA,
      // The service's request pool (DB_POOL_SIZE, 10 unless set; the service's environment is the bench's plus ctx.env).
      PG_POOL_SIZE: ctx.env.DB_POOL_SIZE ?? process.env.DB_POOL_SIZE ?? '10',
    },
    await freePort(),
    '/ready',
  );
  try {
    const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      const answer = (await res.json()) as { data?: any; errors?: unknown[] };
      if (!res.ok || answer.errors) throw new Error(`PostGraphile answered ${res.status}: ${JSON.stringify(answer.errors ?? answer)}`);
      return answer.data;
    };
    const fields = new Set<string>(
      (await graphql('{ __type(name: "PublishedProduct") { fields { name } } }')).__type.fields.map((f: { name: string }) => f.name),
    );
    // The Node interface takes `id` for its global id, and the column becomes rowId.
    const field = (column: string) => (column === 'id' && fields.has('rowId') ? 'rowId' : camelCase(column));
    const missing = columns.filter((column) => !fields.has(field(column)));
    if (missing.length) throw new Error(`PostGraphile's PublishedProduct has no field for ${missing.join(', ')}`);
    const query = `query Page($appId: Int!, $offset: Int!) {
  allPublishedProducts(condition: { appId: $appId }, orderBy: TITLE_ASC, first: ${PER_PAGE}, offset: $offset) {
    nodes { ${columns.map(field).join(' ')} }
    pageInfo { hasNextPage }
  }
}`;
    const variables = (appId: number, page: number) => ({ appId, offset: (page - 1) * PER_PAGE });
    for (const appId of appIds) {
      for (const page of pages) {
        const expected = await servicePage(ctx, appId, page);
        const { nodes, pageInfo } = (await graphql(query, variables(appId, page))).allPublishedProducts;
        const titles = (rows: Record<string, unknown>[]) => JSON.stringify(rows.map((r) => r.title));
        if (titles(nodes) !== titles(expected.rows) || pageInfo.hasNextPage !== expected.hasMore) {
          throw new Error(
            `PostGraphile's page ${page} of app ${appId} is not the service's: ${titles(nodes)} (next: ` +
              `${pageInfo.hasNextPage}) against ${titles(expected.rows)} (next: ${expected.hasMore})`,
          );
        }
      }
    }
    return {
      server,
      target: (appId, targetPages) => ({
        url: `${server.url}/graphql`,
        requests: targetPages.map((page) => ({
          method: 'POST' as const,
          body: JSON.stringify({ query, variables: variables(appId, page) }),
        })),
      }),
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The service's target for the same pages as PostGraphile's `target`. */
export function serviceTarget(ctx: BenchContext, appId: number, pages: number[]): Target {
  return {
    url: `${ctx.service.url}${ctx.basePath}/getDataRows`,
    headers: { 'site-id': String(appId) },
    requests: pages.map((page) => ({ method: 'POST' as const, body: servicePageBody(page) })),
  };
}

export interface PeerPair {
  /** e.g. "10k, page 3 by title" */
  label: string;
  service: Target;
  peer: Target;
}

function cpuLine(name: string, meter: CpuMeter): string {
  const { server, database } = meter.perThousand();
  return `${name.padEnd(44)} CPU per 1,000 pages: server ${server.toFixed(2)} s, database ${database.toFixed(2)} s`;
}

/**
 * The service and PostGraphile on each pair's pages, all in interleaved one-second turns (after the caller's
 * warm-up of the same targets), with the CPU of each side's process and PostgreSQL backends read from /proc
 * around every turn (CpuMeter). Lines for each pair, with its two goals: throughput ≥ 1.25 × PostGraphile's
 * (median of the rounds' ratios) and PostgreSQL CPU per page ≤ PostGraphile's (over all turns).
 */
export async function versusPostGraphile(ctx: BenchContext, peer: PostGraphilePeer, pairs: PeerPair[], rounds: number): Promise<string[]> {
  const admin = new Client({ connectionString: ADMIN_URL, application_name: 'bench-cpu-meter' });
  await admin.connect();
  try {
    const meters = pairs.flatMap(() => [new CpuMeter(ctx.service.pid, admin), new CpuMeter(peer.server.pid, admin)]);
    const { figures, perRound } = await interleaved(
      pairs.flatMap((pair) => [pair.service, pair.peer]),
      rounds,
      meters,
    );
    return pairs.flatMap((pair, i) => {
      const [service, postgraphile]: Figures[] = [figures[2 * i], figures[2 * i + 1]];
      const [serviceCpu, peerCpu] = [meters[2 * i], meters[2 * i + 1]];
      const throughput = median(perRound.map((rates) => rates[2 * i] / rates[2 * i + 1]));
      const database = serviceCpu.perThousand().database / peerCpu.perThousand().database;
      return [
        row(`service, ${pair.label}`, service),
        row(`PostGraphile 5, ${pair.label}`, postgraphile),
        `ratio service/PostGraphile: ${throughput.toFixed(2)} (throughput, median of ${rounds} interleaved rounds)`,
        cpuLine('service', serviceCpu),
        cpuLine('PostGraphile 5', peerCpu),
        goal(`published page (${pair.label}) vs PostGraphile 5, throughput`, throughput, '>=', 1.25),
        goal(`PostgreSQL CPU per page (${pair.label}), service / PostGraphile 5`, database, '<=', 1.0),
      ];
    });
  } finally {
    await admin.end();
  }
}
