import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { RequestContext } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { quoteIdentifier as quote } from '../../database/identifiers';
import { TransactionalConnection } from '../../database/transactional-connection';

/** application_name of the merge pool's connections (visible in pg_stat_activity). */
export const MERGE_APPLICATION_NAME = 'notification-sql-merge';

/** Largest merge row (as JSON text) a merge hands back. */
export const MAX_ROW_BYTES = 65_536;

/** No connection of the merge pool came free within NOTIFY_SQL_QUEUE_WAIT_MS. */
export class MergePoolBusy extends Error {}

/** One connection to run a merge on: a client of the merge pool, or (embedded database) of the main pool. */
interface MergeConnection {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  release(broken: boolean): Promise<void>;
}

/**
 * `table` shadowed by a CTE of the same name: its `columns`, only the rows whose `tenantColumn` is $1 (the app id).
 * Every name must be an identifier (quoteIdentifier throws on anything else).
 */
export function shadowCte(table: string, columns: string[], tenantColumn: string): string {
  return `${quote(table)} AS (SELECT ${columns.map(quote).join(', ')} FROM public.${quote(table)} WHERE ${quote(tenantColumn)} = $1)`;
}

/** A merge's connection, taken from SqlMergeRepository.open: `firstRowJson` once, then `close` (always). */
export class MergeSession {
  constructor(
    private readonly connection: MergeConnection,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The first row of `select` (a checked, printed SELECT) under the shadow `ctes`, run as `ctx`'s app in a READ
   * ONLY transaction with a statement timeout: as JSON text, null when it is larger than MAX_ROW_BYTES,
   * undefined when there is none.
   */
  async firstRowJson(ctx: RequestContext, ctes: string[], select: string): Promise<string | null | undefined> {
    // Raw SQL by nature: the statement's shape comes from the client's query and the tables it names, and the
    // session settings around it have no builder.
    // The row comes back as one JSON text, and only when it is at most MAX_ROW_BYTES: a value blown up with
    // lpad/format/replace stays inside PostgreSQL instead of travelling into this process and the mail.
    const query =
      `${ctes.length ? `WITH ${ctes.join(',\n')}\n` : ''}` +
      `SELECT CASE WHEN octet_length(merge_row) <= ${MAX_ROW_BYTES} THEN merge_row END AS merge_row FROM (` +
      `SELECT row_to_json(merge_source)::text AS merge_row FROM (\n${select}\n) AS merge_source LIMIT 1) AS merge_first`;

    await this.connection.query('BEGIN TRANSACTION READ ONLY');
    await this.connection.query(`SET LOCAL statement_timeout = ${Math.trunc(this.timeoutMs)}`);
    // Unqualified names then find only the shadow CTEs (which name public.* themselves) and pg_catalog: a
    // table the check missed would be "does not exist" rather than the unscoped table.
    await this.connection.query('SET LOCAL search_path TO pg_catalog');
    const rows = (await this.connection.query(query, ctes.length ? [ctx.appId] : [])) as { merge_row: string | null }[]; // $1 appears only in the CTEs
    return rows[0]?.merge_row;
  }

  /** Rolls back and gives the connection back (a connection that cannot roll back is discarded). */
  async close(): Promise<void> {
    let broken = false;
    // Raw SQL: transaction control on a bare connection.
    await this.connection.query('ROLLBACK').catch(() => (broken = true));
    await this.connection.release(broken);
  }
}

/**
 * Where SQL merges run: their own small pool (NOTIFY_SQL_POOL_SIZE), never the main pool every other request
 * uses, so slow merges cannot hold the connections of others.
 */
@Injectable()
export class SqlMergeRepository implements OnApplicationShutdown {
  private readonly logger = new Logger(SqlMergeRepository.name);
  /** Null with the embedded database (PGlite serves one connection): merges then use the main pool's. */
  private readonly pool: Pool | null;

  constructor(
    private readonly connection: TransactionalConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const n = config.notifications;
    this.pool = config.databaseUrl
      ? new Pool({
          connectionString: config.databaseUrl,
          max: n.sqlPoolSize,
          application_name: MERGE_APPLICATION_NAME,
          connectionTimeoutMillis: n.sqlQueueWaitMs,
          idleTimeoutMillis: 30_000,
        })
      : null;
    // An idle client that loses its connection emits here; without a listener that would end the process.
    this.pool?.on('error', (error) => this.logger.warn(`SQL merge pool connection lost: ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.end();
  }

  /** A connection for one merge; MergePoolBusy when every one stayed busy for as long as a merge may wait. */
  async open(): Promise<MergeSession> {
    return new MergeSession(await this.connect(), this.config.notifications.sqlTimeoutMs);
  }

  /** The merge's statements go to the connection as they are (raw by nature, see MergeSession). */
  private async connect(): Promise<MergeConnection> {
    if (!this.pool) {
      const runner = this.connection.dataSource.createQueryRunner();
      await runner.connect();
      return { query: (sql, params) => runner.query(sql, params), release: () => runner.release() };
    }
    const client = await this.pool.connect().catch((error: Error) => {
      // Every connection of the merge pool is busy with other apps' merges for as long as an app may wait.
      if (/timeout exceeded when trying to connect/i.test(error.message)) throw new MergePoolBusy(error.message);
      throw error;
    });
    return {
      query: async (sql, params) => (await client.query(sql, params)).rows,
      release: async (broken) => client.release(broken),
    };
  }
}
