import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { IdCipherService } from '../common/id-cipher.service';
import { RequestContext } from '../common/request-context';
import { TablePolicy } from '../database/table-policy';
import { isUniqueViolation } from '../database/transaction';
import { TransactionalConnection } from '../database/transactional-connection';
import { clientDataError, toColumnValue } from './column-values';
import { decide, refusalDetail, LIFECYCLE_TRANSITIONS } from './lifecycle-transitions';
import { ContentRowRepository } from './repositories/content-row.repository';
import { CoreDataRow, VersionRepository } from './repositories/version.repository';
import { RegisteredTable, TableCatalogService } from './table-catalog.service';
import { versioningError } from './versioning.errors';

/** Columns the content endpoints never take from a request: identity, tenant, bookkeeping. */
/** Columns the service sets: never written from a request, never offered to a form. */
export const NOT_WRITABLE = new Set(['id', 'app_id', 'created', 'updated']);
const MAX_DATA_COLUMNS = 100;

/** A version as the admin endpoints show it: the core_data row (its column names, case included) plus the encrypted master id. */
export type VersionView = Omit<CoreDataRow, 'Shop_ID'> & { _id: string };

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/**
 * Content records and their version chains (docs/content.md "Versions"). Every write runs in the use case's
 * transaction (the endpoint is @Transactional()) and locks the record's current core_data row first, so two
 * saves of one record are serialized and the second one is refused with 409 instead of silently building
 * on a version it never saw.
 */
@Injectable()
export class ContentService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly catalog: TableCatalogService,
    private readonly cipher: IdCipherService,
    private readonly versions: VersionRepository,
    private readonly rows: ContentRowRepository,
  ) {}

  /** A new record: its first content row and its core_data row with status New. */
  async create(ctx: RequestContext, tableName: string, data: unknown): Promise<VersionView> {
    const table = await this.catalog.require(ctx, tableName);
    if (table.live) throw ApiError.field('table', `"${table.name}" is a live table; create its rows through its own endpoints`);
    const values = this.writableValues(table, data);
    return this.write(ctx, async () => {
      const rowId = await this.rows.insert(ctx, table, { ...values, ...(table.tenantColumn ? { app_id: ctx.appId } : {}) });
      const row = await this.contentRow(ctx, table, rowId);
      await this.versions.insertFirst(ctx, {
        table: table.name,
        rowId,
        status: LIFECYCLE_TRANSITIONS.create.to,
        title: titleOf(table, row),
        userId: userOf(ctx),
      });
      return this.view(ctx, (await this.versions.history(ctx, table.name, rowId))[0]);
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
    return this.write(ctx, async () => {
      const current = await this.lockCurrentOr404(ctx, table.name, masterId);
      if (expectedCurrentId !== undefined && expectedCurrentId !== current.Current_ID) throw versioningError('CONCURRENT_CHANGE');
      const decision = decide('edit', current);
      if (decision.kind === 'refused') throw versioningError(decision.code, { detail: refusalDetail('edit', current.Status) });
      const { id: _oldId, ...old } = await this.contentRow(ctx, table, current.Current_ID);
      const next: Record<string, unknown> = { ...old, ...values };
      if (table.columns.has('updated')) next.updated = new Date();
      const rowId = await this.rows.insert(ctx, table, next);
      return this.view(ctx, await this.appendVersion(ctx, current, rowId, titleOf(table, next)));
    });
  }

  /** The history of a record: every version, oldest first. */
  async history(ctx: RequestContext, tableName: string, masterId: number): Promise<VersionView[]> {
    const table = await this.requireVersioned(ctx, tableName);
    const versions = await this.versions.history(ctx, table.name, masterId);
    if (versions.length === 0) throw versioningError('RECORD_NOT_FOUND');
    return versions.map((v) => this.view(ctx, v));
  }

  /**
   * The field changes between two versions of a record (by their meta_current_id). `to` defaults to the
   * current version, `from` to the version before `to`. Secret columns are never shown.
   */
  async diff(ctx: RequestContext, tableName: string, masterId: number, fromCurrentId?: number, toCurrentId?: number) {
    const table = await this.requireVersioned(ctx, tableName);
    const versions = await this.versions.history(ctx, table.name, masterId);
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
    const [a, b] = [await this.contentRow(ctx, table, from.Current_ID), await this.contentRow(ctx, table, to.Current_ID)];
    const changes: FieldChange[] = [];
    for (const column of table.columns.values()) {
      if (column.secret || NOT_WRITABLE.has(column.name)) continue;
      if (!sameValue(a[column.name], b[column.name])) changes.push({ field: column.name, from: a[column.name], to: b[column.name] });
    }
    return { _id: this.cipher.encryptId(ctx.appId, masterId), from: this.view(ctx, from), to: this.view(ctx, to), changes };
  }

  /** A version of the context's app as the admin endpoints show it. */
  view(ctx: RequestContext, row: CoreDataRow): VersionView {
    const { Shop_ID: _appId, ...rest } = row;
    return { _id: this.cipher.encryptId(ctx.appId, row.Master_ID), ...rest };
  }

  /** The registered versioned table `name`, or a 400 naming `table`. */
  async requireVersioned(ctx: RequestContext, name: string): Promise<RegisteredTable> {
    const table = await this.catalog.require(ctx, name);
    if (table.live) throw ApiError.field('table', `"${table.name}" is a live table: it keeps no versions`);
    return table;
  }

  /** The current version of the app's record `masterId` of `table`, locked until the transaction ends; else 409 or 404. */
  async lockCurrentOr404(ctx: RequestContext, table: string, masterId: number): Promise<CoreDataRow> {
    const current = await this.versions.lockCurrent(ctx, table, masterId);
    if (current) return current;
    // The record exists but its current version moved while we waited for the lock: a concurrent save won.
    if (await this.versions.exists(ctx, table, masterId)) throw versioningError('CONCURRENT_CHANGE');
    throw versioningError('RECORD_NOT_FOUND');
  }

  /**
   * The master id of the app's record of versioned table `table` that `id` names: its master id or the id of
   * any of its versions' content rows (master ids first); null when the app has no such record.
   */
  masterIdOf(ctx: RequestContext, table: string, id: number): Promise<number | null> {
    return this.versions.masterIdOf(ctx, table, id);
  }

  /** The content rows of every version of the app's record `masterId` of `table`, oldest first (none for an unknown record). */
  async versionRowIds(ctx: RequestContext, table: string, masterId: number): Promise<number[]> {
    return (await this.versions.history(ctx, table, masterId)).map((version) => version.Current_ID);
  }

  /**
   * Runs a write in the use case's transaction, which its edge opened (the endpoint is @Transactional()):
   * a lost race on the one-current-version index is a 409, bad values a 400.
   */
  async write<T>(ctx: RequestContext, work: () => Promise<T>): Promise<T> {
    this.connection.transactionManager(ctx); // asserts that the edge opened the transaction
    try {
      return await work();
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
    if (TablePolicy.isAccountTable(table.name))
      throw ApiError.field('table', `"${table.name}" is an account table: use the account endpoints`);
    const set = table.columns.has('updated') ? { ...values, updated: new Date() } : values;
    return this.write(ctx, async () => {
      const row = await this.rows.update(ctx, table, id, set);
      if (!row) throw versioningError('RECORD_NOT_FOUND');
      await this.versions.touch(ctx, table.name, id, titleOf(table, row), userOf(ctx));
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

  private async contentRow(ctx: RequestContext, table: RegisteredTable, id: number): Promise<Record<string, unknown>> {
    const row = await this.rows.find(ctx, table, id);
    if (!row) throw versioningError('RECORD_NOT_FOUND');
    return row;
  }

  /**
   * Version rules 2 and 3: the old metadata row stops being current and unlocks, the new one (for content
   * row `rowId`) becomes the current Editing version, and the two are linked by Last_ID / Next_ID. The old
   * row's publication flags stay: what is live stays live until the new version is published.
   */
  private async appendVersion(ctx: RequestContext, current: CoreDataRow, rowId: number, title: string | null): Promise<CoreDataRow> {
    const { set, previous } = LIFECYCLE_TRANSITIONS.edit;
    // The old row stops being current first: the partial unique index allows one current row per record.
    await this.versions.setColumns(ctx, current.ID, previous);
    const userId = userOf(ctx);
    const created = await this.versions.insertNext(ctx, current, {
      ...set,
      Current_ID: rowId,
      Title: title,
      Created_By: userId,
      Updated_By: userId,
    });
    await this.versions.setColumns(ctx, current.ID, { Next_ID: created.ID });
    return created;
  }
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
