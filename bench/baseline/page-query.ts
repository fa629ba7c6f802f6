import { createHash } from 'node:crypto';

/**
 * The best SQL for the schema for `{ table: 'core_products', isPaging: true, perPage, page, orderBy? }`, shared by
 * the raw baselines of POST /getDataRows (get-data-rows.ts, nest-floor.ts). Without orderBy the page is
 * in Master_ID order (core_data_published_idx); with `orderBy: "<column> ASC|DESC"` for one of ORDERED it walks
 * core_products_app_<column>_idx, ties by the row id in the same direction, joining each row to its published
 * core_data row. The values are written in and the statement is named (the service's own way, see
 * DataRowRepository.rows): PostgreSQL plans a statement without parameters once per connection and reuses the plan.
 * Deep pages are deferred joins, as the service's.
 */
const COLUMNS = [
  'id',
  'app_id',
  'title',
  'description',
  'sku',
  'image',
  'price',
  'tax',
  'bond',
  'IsDigital',
  'IsEvent',
  'event_date',
  'sort_order',
  'created',
  'updated',
];
const ORDERED = new Set(['title', 'created', 'updated', 'sort_order', 'price']);
const SELECT_LIST =
  'd."Master_ID" AS meta_master_id, d."Current_ID" AS meta_current_id, d."Title" AS meta_title, ' +
  'd."Status" AS meta_status, d."Updated" AS meta_updated, ' +
  `${COLUMNS.map((c) => `c."${c}" AS "${c}"`).join(', ')}`;
const FROM = `FROM core_data d JOIN "core_products" c ON c."id" = d."Current_ID"
 WHERE d."Shop_ID" = $APP AND d."Source_Table" = 'core_products' AND d."Published" = 1 AND c."app_id" = $APP
   AND d."Publish_Set_Date" <= now() AND (d."Publish_Expire_Date" > now() OR d."Publish_Expire_Date" IS NULL) AND d."IsExpired" <> 1`;
/** The service's DEFERRED_JOIN_OFFSET (src/data-rows/repositories/data-row.repository.ts). */
const DEFERRED_JOIN_OFFSET = 400;

function orderTerms(orderBy: string | undefined): { sql: string; direction: string }[] {
  if (!orderBy) return [{ sql: 'd."Master_ID"', direction: 'ASC' }];
  const [column, direction = 'ASC'] = orderBy.trim().split(/\s+/);
  if (!ORDERED.has(column) || !/^(ASC|DESC)$/i.test(direction)) throw new Error(`orderBy "${orderBy}" is not one the baseline serves`);
  return [
    { sql: `c."${column}"`, direction: direction.toUpperCase() },
    { sql: 'c."id"', direction: direction.toUpperCase() },
  ];
}

/** The page, and from DEFERRED_JOIN_OFFSET on the deferred join the service runs there (ids and keys first). */
function pageText(appId: number, orderBy: string | undefined, limit: number, offset: number): string {
  const from = FROM.replaceAll('$APP', String(appId));
  const terms = orderTerms(orderBy);
  const order = terms.map((t) => `${t.sql} ${t.direction}`).join(', ');
  if (offset < DEFERRED_JOIN_OFFSET) return `SELECT ${SELECT_LIST} ${from} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`;
  const keys = terms.map((t, i) => `${t.sql} AS k${i}`).join(', ');
  const outer = terms.map((t, i) => `p.k${i} ${t.direction}`).join(', ');
  return `SELECT ${SELECT_LIST} FROM (SELECT d."ID" AS did, c."id" AS cid, ${keys} ${from} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}) p
    JOIN core_data d ON d."ID" = p.did JOIN "core_products" c ON c."id" = p.cid ORDER BY ${outer}`;
}

export interface PageRequest {
  page?: number;
  perPage?: number;
  orderBy?: string;
}

/** The page's named statement (one row more than the page, to tell whether there is a next one). */
export function pageQuery(appId: number, body: PageRequest): { statement: { name: string; text: string }; page: number; perPage: number } {
  const perPage = body.perPage ?? 20;
  const page = body.page ?? 1;
  for (const value of [appId, perPage, page]) if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  const text = pageText(appId, body.orderBy, perPage + 1, (page - 1) * perPage);
  return { statement: { name: createHash('sha1').update(text).digest('hex'), text }, page, perPage };
}

/** The answer both baselines give for the rows of pageQuery. */
export function pageAnswer(rows: Record<string, unknown>[], page: number, perPage: number) {
  const data = rows.slice(0, perPage).map((row) => ({ _id: String(row.meta_master_id), ...row }));
  return { status: 'Success', data, paging: { page, perPage, hasMore: rows.length > perPage }, datetime: new Date().toISOString() };
}
