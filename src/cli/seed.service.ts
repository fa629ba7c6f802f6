import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NewSite, SitesService, UnknownColumnError } from '../app-context';
import { quoteIdentifier } from '../database/identifiers';
import { SchemaCatalog } from '../database/schema-catalog.service';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';
import { PasswordHasher } from '../auth';
import { insertFirstVersion, isLifecycleStatus, TableCatalog } from '../versioning';

/** The seed fixture (DESIGN.md §2): one site and rows of any known table, loaded all or nothing. */
export interface Fixture {
  site: NewSite;
  tables?: Record<string, Record<string, unknown>[]>;
}

export interface SeedResult {
  appID: number;
  ids: Record<string, number[]>;
}

export class FixtureError extends Error {}

/** Fixture keys that are instructions to the loader, not columns. */
const META_STATUS = 'meta_status';
/** Tables the fixture may not write: the migrations ledger and the site row (given by `site`). */
const NOT_SEEDABLE = new Set(['typeorm_migrations', 'core_sites']);

@Injectable()
export class SeedService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly catalog: SchemaCatalog,
    private readonly sites: SitesService,
    private readonly hasher: PasswordHasher,
    private readonly tables: TableCatalog,
  ) {}

  async load(fixture: unknown): Promise<SeedResult> {
    const checked = checkShape(fixture);
    const scope = new TransactionScope();
    const result = await this.connection.inTransaction(scope, async (em) => {
      const knownTables = await this.catalog.tableNames(scope);
      if (checked.site.id !== undefined) {
        if (await this.sites.findById(scope, checked.site.id)) throw new FixtureError(`core_sites row ${checked.site.id} already exists`);
      }
      const site = await this.sites.create(scope, checked.site).catch(rethrowUnknownColumn);
      const ids: Record<string, number[]> = {};
      for (const [table, rows] of Object.entries(checked.tables ?? {})) {
        if (!knownTables.has(table) || NOT_SEEDABLE.has(table)) throw new FixtureError(`Unknown table "${table}"`);
        ids[table] = [];
        for (const row of rows) ids[table].push(await this.insertRow(scope, em, site.id, table, row));
        // Raw SQL: keeps the table's serial ahead of the fixture's chosen ids; the table is the fixture's (checked above).
        await em
          .query(`SELECT setval(pg_get_serial_sequence($1, 'id'), GREATEST((SELECT max(id) FROM ${quoteIdentifier(table)}), 1))`, [table])
          .catch(() => undefined);
      }
      return { appID: site.id, ids };
    });
    await this.analyze(scope, Object.keys(result.ids));
    return result;
  }

  /**
   * Refreshes the planner's statistics of the tables the load wrote, once it committed: right after a bulk
   * load autovacuum has not analyzed them yet, and a planner that still sees a few rows sorts a tenant's
   * whole table for a /getDataRows page instead of walking its order index.
   */
  private async analyze(scope: TransactionScope, tables: string[]): Promise<void> {
    const written = new Set(['core_sites', ...tables]);
    for (const table of tables) if (await this.tables.find(scope, table)) written.add('core_data');
    // Raw SQL: ANALYZE has no TypeORM API; the names are the fixture's tables, checked against the schema catalog.
    await this.connection.manager(scope).query(`ANALYZE ${[...written].map(quoteIdentifier).join(', ')}`);
  }

  /** Raw SQL: the fixture names the table and columns (checked against the schema catalog first). */
  private async insertRow(
    scope: TransactionScope,
    em: EntityManager,
    appId: number,
    table: string,
    fixtureRow: Record<string, unknown>,
  ): Promise<number> {
    const columns = await this.catalog.columnNames(scope, table);
    if (!columns.has('id')) throw new FixtureError(`Table "${table}" has no id column and cannot be seeded`);
    const { [META_STATUS]: metaStatus, ...row } = fixtureRow;
    for (const name of Object.keys(row)) if (!columns.has(name)) throw new FixtureError(`Unknown column "${name}" in table "${table}"`);
    if (columns.has('app_id')) row.app_id = appId;
    if (typeof row.password === 'string') row.password = await this.hasher.hash(row.password);

    const names = Object.keys(row);
    const values = names.map((n) => (row[n] !== null && typeof row[n] === 'object' ? JSON.stringify(row[n]) : row[n]));
    const sql = names.length
      ? `INSERT INTO ${quoteIdentifier(table)} (${names.map(quoteIdentifier).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`
      : `INSERT INTO ${quoteIdentifier(table)} DEFAULT VALUES RETURNING id`;
    const [{ id }] = await em.query(sql, values);

    const registration = await this.tables.find(scope, table);
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

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function rethrowUnknownColumn(error: unknown): never {
  if (error instanceof UnknownColumnError) throw new FixtureError(error.message);
  throw error;
}
