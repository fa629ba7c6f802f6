import type { ColumnKind } from './table-catalog.service';

/**
 * The versioning read model: which core_data versions of a record readers see (docs/content.md
 * "POST /getDataRows"), stated once as SQL so that /getDataRows and the product catalog apply the same rules:
 * - visible now: Publish_Set_Date reached, Publish_Expire_Date not yet reached (or none), not expired;
 * - published: Published set and visible now;
 * - staged: Staged set and visible now, the newest such version of each record (preview);
 * - live: the current version of each record, whatever its status (the admins' view).
 */
export type VersionReading = 'live' | 'stage' | 'published';

type ColumnRef = (column: string) => string;

const quoted: ColumnRef = (column) => `"${column}"`;

function visibleNow(c: ColumnRef): string {
  const expires = c('Publish_Expire_Date');
  return `${c('Publish_Set_Date')} <= now() AND (${expires} > now() OR ${expires} IS NULL) AND ${c('IsExpired')} <> 1`;
}

function publishedNow(c: ColumnRef): string {
  return `${c('Published')} = 1 AND ${visibleNow(c)}`;
}

/**
 * How a read's SQL names its app and table: the bound parameters $1 (app id) and $2 (table name), or, in a
 * statement written for one app and table, their literals.
 */
export interface ReadScope {
  appId: string;
  table: string;
}

const BOUND_SCOPE: ReadScope = { appId: '$1', table: '$2' };

const VISIBLE_NOW = visibleNow(quoted);
const PUBLISHED_NOW = publishedNow(quoted);
const recordScope = (scope: ReadScope) => `"Shop_ID" = ${scope.appId} AND "Source_Table" = ${scope.table}`;

/** The core_data rows each reading sees, one per record, as relation `d`. */
const VERSIONS: Record<VersionReading, (scope: ReadScope) => string> = {
  live: (scope) => `(SELECT * FROM core_data WHERE ${recordScope(scope)} AND "IsCurrent" = 1) d`,
  stage: (scope) =>
    `(SELECT DISTINCT ON ("Master_ID") * FROM core_data WHERE ${recordScope(scope)} AND "Staged" = 1 AND ${VISIBLE_NOW} ORDER BY "Master_ID", "ID" DESC) d`,
  published: (scope) => `(SELECT * FROM core_data WHERE ${recordScope(scope)} AND ${PUBLISHED_NOW}) d`,
};

/** The meta fields of a versioned row (names are part of the API) and the columns of relation `d` behind them. */
export const VERSION_META = {
  meta_master_id: { sql: 'd."Master_ID"', kind: 'integer', nullable: false },
  meta_current_id: { sql: 'd."Current_ID"', kind: 'integer', nullable: false },
  meta_title: { sql: 'd."Title"', kind: 'text', nullable: true },
  meta_status: { sql: 'd."Status"', kind: 'text', nullable: false },
  meta_updated: { sql: 'd."Updated"', kind: 'datetime', nullable: false },
} as const satisfies Record<string, { sql: string; kind: ColumnKind; nullable: boolean }>;

const META_SELECT: readonly string[] = Object.entries(VERSION_META).map(([name, meta]) => `${meta.sql} AS ${name}`);

export const VersionVisibility = {
  /**
   * The FROM clause of a versioned read: the versions `reading` sees (of the app and table `scope` names) as
   * `d`, joined to their content rows `c` of `quotedTable` (also by app when the table has the tenant column).
   */
  from(reading: VersionReading, quotedTable: string, tenantColumn: boolean, scope: ReadScope = BOUND_SCOPE): string {
    const byApp = tenantColumn ? ` AND c."app_id" = ${scope.appId}` : '';
    return `${VERSIONS[reading](scope)} JOIN ${quotedTable} c ON c."id" = ${VERSION_META.meta_current_id.sql}${byApp}`;
  },
  /** The meta fields, as select-list items of a versioned read. */
  metaSelect: META_SELECT,
  /** "Published now" over the core_data alias `alias` in TypeORM's query-builder notation (`d.Published`). */
  publishedNow(alias: string): string {
    return publishedNow((column) => `${alias}.${column}`);
  },
};
