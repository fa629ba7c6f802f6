import { Injectable } from '@nestjs/common';
import { NewSite, sampleKeysOf, SitesService, UnknownColumnError } from '../app-context';
import { PasswordHasherService } from '../auth';
import { RequestContext } from '../common/request-context';
import { insertRow, syncIdSequence } from '../database/insert-row';
import { analyzeTables } from '../database/planner-statistics';
import { SchemaCatalogService } from '../database/schema-catalog.service';
import { TablePolicy } from '../database/table-policy';
import { TransactionalConnection } from '../database/transactional-connection';
import { insertFirstVersion, isLifecycleStatus, TableCatalogService } from '../versioning';

/** The seed fixture (the `seed` command's FILE.json): one site and rows of any known table, loaded all or nothing. */
export interface Fixture {
  site: NewSite;
  tables?: Record<string, Record<string, unknown>[]>;
}

export interface SeedResult {
  appID: number;
  ids: Record<string, number[]>;
}

export class FixtureError extends Error {}

/** How `load` and `addRows` work for a caller that loads many fixtures in one transaction (tenants:seed). */
export interface LoadOptions {
  /** Refresh the planner's statistics of the written tables once committed (default true). A caller loading many fixtures calls `analyze` once. */
  analyze?: boolean;
  /**
   * Hashes already made in this run, by plain password: a row with the same password reuses the hash instead of
   * hashing again (bcrypt at BCRYPT_COST is slow on purpose: 1,000 tenants' accounts would take minutes).
   */
  passwordHashes?: Map<string, Promise<string>>;
}

/** Fixture keys that are instructions to the loader, not columns. */
const META_STATUS = 'meta_status';

@Injectable()
export class SeedService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly catalog: SchemaCatalogService,
    private readonly sites: SitesService,
    private readonly hasher: PasswordHasherService,
    private readonly tables: TableCatalogService,
  ) {}

  /**
   * Loads `fixture` in the transaction of `ctx` (opened by the edge: CommandEdge.seed), whose site becomes the
   * fixture's once created; the planner's statistics are refreshed after the commit.
   */
  async load(ctx: RequestContext, fixture: unknown, options: LoadOptions = {}): Promise<SeedResult> {
    const checked = checkShape(fixture);
    if (ctx.production) refusePublishedSamples(checked.site);
    if (checked.site.id !== undefined) {
      if (await this.sites.findById(ctx, checked.site.id)) throw new FixtureError(`core_sites row ${checked.site.id} already exists`);
    }
    ctx.site = await this.sites.create(ctx, checked.site).catch(rethrowUnknownColumn);
    const ids = await this.addRows(ctx, checked.tables ?? {}, options);
    if (options.analyze !== false) await ctx.afterCommit(() => this.analyze(ctx, Object.keys(ids)));
    return { appID: ctx.appId, ids };
  }

  /**
   * Rows of a fixture's `tables` for the ctx's site (created by `load`), in the ctx's transaction: for rows
   * that name ids `load` answered (tenants:seed's orders name its customers and products). Answers the new ids.
   */
  async addRows(
    ctx: RequestContext,
    tables: Record<string, Record<string, unknown>[]>,
    options: LoadOptions = {},
  ): Promise<Record<string, number[]>> {
    const em = this.connection.transactionManager(ctx);
    const knownTables = await this.catalog.tableNames(ctx);
    const ids: Record<string, number[]> = {};
    for (const [table, rows] of Object.entries(tables)) {
      if (!knownTables.has(table) || !TablePolicy.isSeedable(table)) throw new FixtureError(`Unknown table "${table}"`);
      ids[table] = [];
      for (const row of rows) ids[table].push(await this.insertRow(ctx, table, row, options));
      // Keeps the table's serial ahead of the fixture's chosen ids.
      if (rows.some((row) => row.id !== undefined)) await syncIdSequence(em, table).catch(() => undefined);
    }
    return ids;
  }

  /**
   * Refreshes the planner's statistics of the tables the load wrote, once it committed: right after a bulk
   * load autovacuum has not analyzed them yet, and a planner that still sees a few rows sorts a tenant's
   * whole table for a /getDataRows page instead of walking its order index.
   */
  async analyze(ctx: RequestContext, tables: string[]): Promise<void> {
    const written = new Set(['core_sites', ...tables]);
    for (const table of tables) if (await this.tables.find(ctx, table)) written.add('core_data');
    // The names are the fixture's tables, checked against the schema catalog.
    await analyzeTables(this.connection.manager(ctx), written);
  }

  /** The bcrypt hash of `plain`: made once per run for a caller that keeps `hashes`. */
  private hashOf(plain: string, hashes?: Map<string, Promise<string>>): Promise<string> {
    if (!hashes) return this.hasher.hash(plain);
    let hash = hashes.get(plain);
    if (!hash) hashes.set(plain, (hash = this.hasher.hash(plain)));
    return hash;
  }

  /** One fixture row of `table` (its table and columns checked against the schema catalog first), of the ctx's app. */
  private async insertRow(ctx: RequestContext, table: string, fixtureRow: Record<string, unknown>, options: LoadOptions): Promise<number> {
    const em = this.connection.transactionManager(ctx);
    const appId = ctx.appId;
    const columns = await this.catalog.columnNames(ctx, table);
    if (!columns.has('id')) throw new FixtureError(`Table "${table}" has no id column and cannot be seeded`);
    const { [META_STATUS]: metaStatus, ...row } = fixtureRow;
    for (const name of Object.keys(row)) if (!columns.has(name)) throw new FixtureError(`Unknown column "${name}" in table "${table}"`);
    if (columns.has('app_id')) row.app_id = appId;
    if (typeof row.password === 'string') row.password = await this.hashOf(row.password, options.passwordHashes);

    const values = Object.fromEntries(Object.entries(row).map(([name, value]) => [name, columnValue(value)]));
    const { id } = await insertRow<{ id: number }>(em, table, values);

    const registration = await this.tables.find(ctx, table);
    if (metaStatus !== undefined && !isLifecycleStatus(metaStatus))
      throw new FixtureError(`Unknown meta_status "${String(metaStatus)}" in table "${table}"`);
    if (metaStatus !== undefined && !registration)
      throw new FixtureError(`meta_status given for "${table}", which is not a versioned table`);
    if (registration) {
      const titleField = registration.titleField;
      await insertFirstVersion(em, {
        appId,
        table,
        rowId: id,
        status: metaStatus,
        title: titleField ? String(row[titleField] ?? '') : null,
      });
    }
    return id;
  }
}

function checkShape(fixture: unknown): Fixture {
  if (!isObject(fixture)) throw new FixtureError('The fixture must be a JSON object with "site" and "tables"');
  if (!isObject(fixture.site)) throw new FixtureError('"site" must be an object');
  if (typeof fixture.site.name !== 'string' || typeof fixture.site.domain !== 'string')
    throw new FixtureError('"site" needs "name" and "domain" strings');
  if (fixture.tables !== undefined) {
    if (!isObject(fixture.tables)) throw new FixtureError('"tables" must be an object of table name to rows');
    for (const [table, rows] of Object.entries(fixture.tables)) {
      if (!Array.isArray(rows) || !rows.every(isObject)) throw new FixtureError(`"tables.${table}" must be an array of row objects`);
    }
  }
  return fixture as unknown as Fixture;
}

/**
 * A production instance refuses a fixture whose site holds a payment key or webhook secret published in this
 * repository (fixtures/demo.json's sk_test_demo, whsec_demo…): anyone could sign the app's payment events.
 */
function refusePublishedSamples(site: Fixture['site']): void {
  const columns = sampleKeysOf(site);
  if (!columns.length) return;
  throw new FixtureError(
    `site.${columns.join(', site.')} ${columns.length > 1 ? 'hold published sample values' : 'holds a published sample value'} ` +
      "(README, fixtures/), which a production instance refuses: seed a copy of the fixture with the app's own keys from the " +
      'payment provider, or without them and set them with tenant:update',
  );
}

/** A fixture value as a column takes it: objects and arrays (json columns) as JSON text. */
function columnValue(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function rethrowUnknownColumn(error: unknown): never {
  if (error instanceof UnknownColumnError) throw new FixtureError(error.message);
  throw error;
}
