import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { isAuthTable } from '../auth';
import { ApiError } from '../common/api-error';
import { IdCipher } from '../common/id-cipher.service';
import { RequestContext } from '../common/request-context';
import { quoteIdentifier } from '../database/identifiers';
import { isUniqueViolation } from '../database/transaction';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { clientDataError, toColumnValue } from './column-values';
import {
  appendVersion,
  CoreDataRow,
  insertFirstVersion,
  lockCurrentVersion,
  RECORD_WHERE,
  recordExists,
  RecordKey,
  recordParameters,
  versionsOf,
} from './core-data';
import { CoreData } from './entities/core-data.entity';
import { decide, refusalDetail } from './lifecycle-transitions';
import { RegisteredTable, TableCatalog } from './table-catalog.service';
import { versioningError } from './versioning.errors';

/** Columns the content endpoints never take from a request: identity, tenant, bookkeeping. */
const NOT_WRITABLE = new Set(['id', 'app_id', 'created', 'updated']);
const MAX_DATA_COLUMNS = 100;

/** A version as the admin endpoints show it: the core_data row (spec names) plus the encrypted master id. */
export type VersionView = Omit<CoreDataRow, 'Shop_ID'> & { _id: string };

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/**
 * Content records and their version chains (SPEC "Version rules"). Every write runs in the use case's
 * transaction (the endpoint is @Transactional()) and locks the record's current core_data row first, so two
 * saves of one record are serialized and the second one is refused with 409 instead of silently building
 * on a version it never saw.
 */
@Injectable()
export class ContentService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly catalog: TableCatalog,
    private readonly cipher: IdCipher,
  ) {}

  /** A new record: its first content row and its core_data row with status New. */
  async create(ctx: RequestContext, tableName: string, data: unknown): Promise<VersionView> {
    const table = await this.catalog.require(ctx, tableName);
    if (table.live) throw ApiError.field('table', `"${table.name}" is a live table; create its rows through its own endpoints`);
    const values = this.writableValues(table, data);
    return this.write(ctx, async (em) => {
      const rowId = await this.insertRow(em, table, { ...values, ...(table.tenantColumn ? { app_id: ctx.appId } : {}) });
      const row = await this.contentRow(em, table, rowId);
      await insertFirstVersion(em, {
        appId: ctx.appId,
        table: table.name,
        rowId,
        status: 'New',
        title: titleOf(table, row),
        userId: userOf(ctx),
      });
      return this.view((await versionsOf(em, { appId: ctx.appId, table: table.name, masterId: rowId }))[0]);
    });
  }

  /**
   * An edit. Versioned tables: a new content row (the current one with `data` applied) and a new current
   * core_data row in status Editing, linked to the old one. Live tables: the row is updated in place.
   * `expectedCurrentId` (the meta_current_id the editor started from) turns a save on top of a newer
   * version into 409.
   */
  async edit(
    ctx: RequestContext,
    tableName: string,
    masterId: number,
    data: unknown,
    expectedCurrentId?: number,
  ): Promise<VersionView | Record<string, unknown>> {
    const table = await this.catalog.require(ctx, tableName);
    const values = this.writableValues(table, data);
    if (table.live) return this.editLive(ctx, table, masterId, values);
    const key = { appId: ctx.appId, table: table.name, masterId };
    return this.write(ctx, async (em) => {
      const current = await this.lockCurrentOr404(em, key);
      if (expectedCurrentId !== undefined && expectedCurrentId !== current.Current_ID) throw versioningError('CONCURRENT_CHANGE');
      const decision = decide('edit', current);
      if (decision.kind === 'refused') throw versioningError(decision.code, { detail: refusalDetail('edit', current.Status) });
      const { id: _oldId, ...old } = await this.contentRow(em, table, current.Current_ID);
      const next: Record<string, unknown> = { ...old, ...values };
      if (table.columns.has('updated')) next.updated = new Date();
      const rowId = await this.insertRow(em, table, next);
      const created = await appendVersion(em, current, rowId, titleOf(table, next), userOf(ctx));
      return this.view(created);
    });
  }

  /** The history of a record: every version, oldest first. */
  async history(ctx: RequestContext, tableName: string, masterId: number): Promise<VersionView[]> {
    const table = await this.requireVersioned(ctx, tableName);
    const versions = await versionsOf(this.connection.manager(ctx), { appId: ctx.appId, table: table.name, masterId });
    if (versions.length === 0) throw versioningError('RECORD_NOT_FOUND');
    return versions.map((v) => this.view(v));
  }

  /**
   * The field changes between two versions of a record (by their meta_current_id). `to` defaults to the
   * current version, `from` to the version before `to`. Secret columns are never shown.
   */
  async diff(ctx: RequestContext, tableName: string, masterId: number, fromCurrentId?: number, toCurrentId?: number) {
    const table = await this.requireVersioned(ctx, tableName);
    const em = this.connection.manager(ctx);
    const versions = await versionsOf(em, { appId: ctx.appId, table: table.name, masterId });
    if (versions.length === 0) throw versioningError('RECORD_NOT_FOUND');
    const to = toCurrentId === undefined ? versions.find((v) => v.IsCurrent === 1) : versions.find((v) => v.Current_ID === toCurrentId);
    if (!to) throw ApiError.field('toCurrentId', 'toCurrentId is not a version of this record');
    const from =
      fromCurrentId === undefined ? versions.find((v) => v.ID === to.Last_ID) : versions.find((v) => v.Current_ID === fromCurrentId);
    if (!from)
      throw ApiError.field(
        'fromCurrentId',
        fromCurrentId === undefined
          ? 'The version has no previous version; name fromCurrentId'
          : 'fromCurrentId is not a version of this record',
      );
    const [a, b] = [await this.contentRow(em, table, from.Current_ID), await this.contentRow(em, table, to.Current_ID)];
    const changes: FieldChange[] = [];
    for (const column of table.columns.values()) {
      if (column.secret || NOT_WRITABLE.has(column.name)) continue;
      if (!sameValue(a[column.name], b[column.name])) changes.push({ field: column.name, from: a[column.name], to: b[column.name] });
    }
    return { _id: this.cipher.encryptId(ctx.appId, masterId), from: this.view(from), to: this.view(to), changes };
  }

  view(row: CoreDataRow): VersionView {
    const { Shop_ID: appId, ...rest } = row;
    return { _id: this.cipher.encryptId(appId, row.Master_ID), ...rest };
  }

  /** The registered versioned table `name`, or a 400 naming `table`. */
  async requireVersioned(ctx: RequestContext, name: string): Promise<RegisteredTable> {
    const table = await this.catalog.require(ctx, name);
    if (table.live) throw ApiError.field('table', `"${table.name}" is a live table: it keeps no versions`);
    return table;
  }

  async lockCurrentOr404(em: EntityManager, key: RecordKey): Promise<CoreDataRow> {
    const current = await lockCurrentVersion(em, key);
    if (current) return current;
    // The record exists but its current version moved while we waited for the lock: a concurrent save won.
    if (await recordExists(em, key)) throw versioningError('CONCURRENT_CHANGE');
    throw versioningError('RECORD_NOT_FOUND');
  }

  /**
   * The master id of the record of versioned table `table` that `id` names: its master id or the id of
   * any of its versions' content rows (master ids first); null when the app has no such record.
   */
  async masterIdOf(scope: TransactionScope, appId: number, table: string, id: number): Promise<number | null> {
    const row = await this.connection
      .repository(scope, CoreData)
      .createQueryBuilder('d')
      .select('d.Master_ID', 'masterId')
      .where('d.Shop_ID = :appId AND d.Source_Table = :table AND (d.Master_ID = :id OR d.Current_ID = :id)', { appId, table, id })
      .orderBy('(d.Master_ID = :id)', 'DESC')
      .limit(1)
      .getRawOne<{ masterId: number }>();
    return row?.masterId ?? null;
  }

  /** The core_data row `id` as it is now. */
  async reload(em: EntityManager, id: number): Promise<CoreDataRow> {
    return em.findOneByOrFail(CoreData, { ID: id });
  }

  /**
   * Runs a write in the use case's transaction (its endpoint is @Transactional()); a lost race on the
   * one-current-version index is a 409, bad values a 400.
   */
  async write<T>(ctx: RequestContext, work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await work(this.connection.manager(ctx));
    } catch (error) {
      if (isUniqueViolation(error)) throw versioningError('CONCURRENT_CHANGE');
      throw clientDataError(error, 'data') ?? error;
    }
  }

  private async editLive(
    ctx: RequestContext,
    table: RegisteredTable,
    id: number,
    values: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (!table.tenantColumn) throw ApiError.field('table', `"${table.name}" has no tenant column and cannot be edited here`);
    // Accounts change through the auth routes (passwords, roles and emails have their own rules there).
    if (isAuthTable(table.name)) throw ApiError.field('table', `"${table.name}" is an account table: use the account endpoints`);
    return this.write(ctx, async (em) => {
      const names = Object.keys(values);
      if (table.columns.has('updated')) names.push('updated');
      const sets = names.map((n, i) => `${quoteIdentifier(n)} = $${i + 3}`).join(', ');
      const params = [id, ctx.appId, ...Object.keys(values).map((n) => values[n]), ...(table.columns.has('updated') ? [new Date()] : [])];
      // Raw SQL: a generic versioned-table write, the table and its columns come from core_tables and the catalog.
      const rows: Record<string, unknown>[] = names.length
        ? await updateReturning(em, `UPDATE ${quoteIdentifier(table.name)} SET ${sets} WHERE id = $1 AND app_id = $2 RETURNING *`, params)
        : await em.query(`SELECT * FROM ${quoteIdentifier(table.name)} WHERE id = $1 AND app_id = $2`, [id, ctx.appId]);
      const row = rows[0];
      if (!row) throw versioningError('RECORD_NOT_FOUND');
      await em
        .createQueryBuilder()
        .update(CoreData)
        .set({ Updated: () => 'now()', Updated_By: userOf(ctx), Title: () => 'COALESCE(:title, "Title")' })
        .where(RECORD_WHERE, recordParameters({ appId: ctx.appId, table: table.name, masterId: id }))
        .setParameter('title', titleOf(table, row))
        .execute();
      return { _id: this.cipher.encryptId(ctx.appId, id), ...this.readable(table, row) };
    });
  }

  /** `data` checked column by column: known, writable, not secret, and a value the column can take. */
  private writableValues(table: RegisteredTable, data: unknown): Record<string, unknown> {
    if (data === undefined || data === null) return {};
    if (typeof data !== 'object' || Array.isArray(data)) throw ApiError.field('data', 'data must be an object of column names to values');
    const entries = Object.entries(data as Record<string, unknown>);
    if (entries.length > MAX_DATA_COLUMNS) throw ApiError.field('data', `data may name at most ${MAX_DATA_COLUMNS} columns`);
    const values: Record<string, unknown> = {};
    for (const [name, value] of entries) {
      const column = table.columns.get(name);
      if (!column) throw ApiError.field(`data.${safeName(name)}`, `Unknown column "${safeName(name)}" in table "${table.name}"`);
      if (column.secret) throw ApiError.field(`data.${name}`, `Column "${name}" is secret and cannot be written here`);
      if (NOT_WRITABLE.has(name)) throw ApiError.field(`data.${name}`, `Column "${name}" is set by the service`);
      values[name] = toColumnValue(column, value, `data.${name}`);
    }
    return values;
  }

  private readable(table: RegisteredTable, row: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(row).filter(([name]) => !table.columns.get(name)?.secret));
  }

  private async insertRow(em: EntityManager, table: RegisteredTable, values: Record<string, unknown>): Promise<number> {
    const names = Object.keys(values).filter((n) => n !== 'id' && table.columns.has(n));
    // Raw SQL: a generic versioned-table write, the table and its columns come from core_tables and the catalog.
    const sql = names.length
      ? `INSERT INTO ${quoteIdentifier(table.name)} (${names.map(quoteIdentifier).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`
      : `INSERT INTO ${quoteIdentifier(table.name)} DEFAULT VALUES RETURNING id`;
    const [{ id }] = await em.query(
      sql,
      names.map((n) => values[n]),
    );
    return id;
  }

  private async contentRow(em: EntityManager, table: RegisteredTable, id: number): Promise<Record<string, unknown>> {
    // Raw SQL: a generic versioned-table read, the table comes from core_tables.
    const rows: Record<string, unknown>[] = await em.query(`SELECT * FROM ${quoteIdentifier(table.name)} WHERE id = $1`, [id]);
    if (!rows[0]) throw versioningError('RECORD_NOT_FOUND');
    return rows[0];
  }
}

/**
 * The rows an `UPDATE … RETURNING` gave back. Raw SQL: the statement is built from the catalog of a versioned
 * table the request names (its shape comes from data). TypeORM's PostgreSQL driver answers UPDATE and DELETE with
 * `[rows, rowCount]` and other statements with the rows alone.
 */
async function updateReturning(em: EntityManager, sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  const result = await em.query(sql, params);
  return Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number' ? result[0] : result;
}

function userOf(ctx: RequestContext): number | null {
  return ctx.principal?.userId ?? null;
}

function titleOf(table: RegisteredTable, row: Record<string, unknown>): string | null {
  if (!table.titleField || row[table.titleField] === undefined || row[table.titleField] === null) return null;
  return String(row[table.titleField]).slice(0, 500);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

/** A client-supplied name made safe to echo in a message. */
function safeName(name: string): string {
  return name.replace(/[^\w.-]/g, '?').slice(0, 64);
}
