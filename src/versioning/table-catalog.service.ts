import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { isIdentifier } from '../database/identifiers';
import { SchemaCatalogService, SchemaColumn } from '../database/schema-catalog.service';
import { TablePolicy } from '../database/table-policy';
import { TransactionScope } from '../database/transaction-scope';
import { ContentTableRepository } from './repositories/content-table.repository';

export type ColumnKind = 'integer' | 'number' | 'boolean' | 'datetime' | 'text' | 'json' | 'other';

export interface CatalogColumn {
  name: string;
  kind: ColumnKind;
  nullable: boolean;
  secret: boolean;
  /** Integer columns: the range of the column's type (smallint, integer, bigint). */
  range?: { min: bigint; max: bigint };
  /** Text columns with a declared length (varchar(n), char(n)). */
  maxLength?: number;
}

/** A table registered in core_tables, with its columns as the database catalog lists them. */
export interface RegisteredTable {
  name: string;
  /** Live tables keep no history; versioned tables (Live = false) keep the chain in core_data. */
  live: boolean;
  titleField: string | null;
  columns: Map<string, CatalogColumn>;
  /** Whether the table has the tenant column `app_id`. */
  tenantColumn: boolean;
}

/** How long the core_tables registry is reused (the columns come from SchemaCatalogService, cached alike). */
const CACHE_MS = 30_000;

const INTEGER_RANGES: Record<string, { min: bigint; max: bigint }> = {
  smallint: { min: -32768n, max: 32767n },
  integer: { min: -2147483648n, max: 2147483647n },
  bigint: { min: -9223372036854775808n, max: 9223372036854775807n },
};

/**
 * The allow-list for every identifier that reaches SQL in the generic content paths: a table must be
 * registered in core_tables, a column must be in the catalog of that table. Identifiers are only ever
 * taken from here (never from the request) and always double-quoted.
 */
@Injectable()
export class TableCatalogService {
  private cache: { at: number; tables: Promise<Map<string, RegisteredTable>> } | null = null;

  constructor(
    private readonly registry: ContentTableRepository,
    private readonly schema: SchemaCatalogService,
  ) {}

  /**
   * The registered table named `name`, or a 400 naming `field`. The registry is global (core_tables has no
   * app column), so any scope will do: a request's context, or the seed's and the tests' own.
   */
  async require(ctx: TransactionScope, name: unknown, field = 'table'): Promise<RegisteredTable> {
    if (!isIdentifier(name)) throw ApiError.field(field, `${field} must be the name of a registered table`);
    const table = (await this.tables(ctx)).get(name);
    if (!table) throw ApiError.field(field, `Unknown table "${name}"`);
    return table;
  }

  async find(ctx: TransactionScope, name: string): Promise<RegisteredTable | undefined> {
    return (await this.tables(ctx)).get(name);
  }

  /** Every registered table the content paths can reach, by name. */
  async list(ctx: TransactionScope): Promise<RegisteredTable[]> {
    return [...(await this.tables(ctx)).values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Forgets the cached registry and schema (after a migration, or a change of core_tables, in tests). */
  invalidate(): void {
    this.cache = null;
    this.schema.invalidate();
  }

  // The scope is the caller's: inside its transaction the reads must use that connection.
  private tables(scope: TransactionScope): Promise<Map<string, RegisteredTable>> {
    if (!this.cache || Date.now() - this.cache.at >= CACHE_MS) {
      const tables = this.read(scope);
      this.cache = { at: Date.now(), tables };
      tables.catch(() => (this.cache = null));
    }
    return this.cache.tables;
  }

  private async read(scope: TransactionScope): Promise<Map<string, RegisteredTable>> {
    const registered = await this.registry.registered(scope);
    const tables = new Map<string, RegisteredTable>();
    for (const r of registered) {
      // A registered name without a table behind it (or with an unusable name) is not queryable.
      const schemaColumns =
        isIdentifier(r.table_name) && TablePolicy.isContentTable(r.table_name) ? await this.schema.columns(scope, r.table_name) : undefined;
      if (!schemaColumns?.has('id')) continue;
      const columns = new Map<string, CatalogColumn>();
      for (const c of schemaColumns.values()) columns.set(c.name, catalogColumn(r.table_name, c));
      tables.set(r.table_name, {
        name: r.table_name,
        live: r.Live,
        titleField: r.title_field,
        columns,
        tenantColumn: columns.has('app_id'),
      });
    }
    return tables;
  }
}

function catalogColumn(table: string, c: SchemaColumn): CatalogColumn {
  return {
    name: c.name,
    kind: kindOf(c.dataType),
    nullable: c.nullable,
    secret: TablePolicy.isSecretColumn(table, c.name),
    ...(INTEGER_RANGES[c.dataType] ? { range: INTEGER_RANGES[c.dataType] } : {}),
    ...(c.maxLength ? { maxLength: c.maxLength } : {}),
  };
}

function kindOf(dataType: string): ColumnKind {
  if (['integer', 'smallint', 'bigint'].includes(dataType)) return 'integer';
  if (['numeric', 'real', 'double precision'].includes(dataType)) return 'number';
  if (dataType === 'boolean') return 'boolean';
  if (dataType.startsWith('timestamp') || dataType === 'date') return 'datetime';
  if (['character varying', 'text', 'character', 'citext', 'uuid'].includes(dataType)) return 'text';
  if (dataType === 'json' || dataType === 'jsonb') return 'json';
  return 'other';
}
