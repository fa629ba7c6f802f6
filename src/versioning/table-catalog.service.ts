import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { isSecretColumn } from '../database/secret-columns';

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

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const CACHE_MS = 30_000;

/**
 * Tables that are never content, even if someone registers them in core_tables: the tenants with their
 * private payment keys and webhook secrets (their public part is served by /getApp), the version metadata,
 * the registry itself, one-time codes and the migrations table.
 */
export const NEVER_CONTENT_TABLES: ReadonlySet<string> = new Set(['core_sites', 'core_data', 'core_tables', 'core_sms_codes', 'migrations', 'typeorm_migrations']);

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
export class TableCatalog {
  private cache: { at: number; tables: Map<string, RegisteredTable> } | null = null;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The registered table named `name`, or a 400 naming `field`. */
  async require(name: unknown, field = 'table'): Promise<RegisteredTable> {
    if (typeof name !== 'string' || !IDENTIFIER.test(name)) throw ApiError.field(field, `${field} must be the name of a registered table`);
    const table = (await this.tables()).get(name);
    if (!table) throw ApiError.field(field, `Unknown table "${name}"`);
    return table;
  }

  async find(name: string): Promise<RegisteredTable | undefined> {
    return (await this.tables()).get(name);
  }

  /** Forgets the cached catalog (after a migration in tests). */
  invalidate(): void {
    this.cache = null;
  }

  private async tables(): Promise<Map<string, RegisteredTable>> {
    if (this.cache && Date.now() - this.cache.at < CACHE_MS) return this.cache.tables;
    const registered: { table_name: string; Live: boolean; title_field: string | null }[] = await this.dataSource.query(
      'SELECT table_name, "Live", title_field FROM core_tables',
    );
    const columns: { table_name: string; column_name: string; data_type: string; is_nullable: string; character_maximum_length: number | null }[] = await this.dataSource.query(
      `SELECT table_name, column_name, data_type, is_nullable, character_maximum_length FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY($1) ORDER BY table_name, ordinal_position`,
      [registered.map((r) => r.table_name)],
    );
    const tables = new Map<string, RegisteredTable>();
    for (const r of registered) {
      const cols = new Map<string, CatalogColumn>();
      for (const c of columns.filter((c) => c.table_name === r.table_name)) {
        cols.set(c.column_name, {
          name: c.column_name,
          kind: kindOf(c.data_type),
          nullable: c.is_nullable === 'YES',
          secret: isSecretColumn(r.table_name, c.column_name),
          ...(INTEGER_RANGES[c.data_type] ? { range: INTEGER_RANGES[c.data_type] } : {}),
          ...(c.character_maximum_length ? { maxLength: Number(c.character_maximum_length) } : {}),
        });
      }
      // A registered name without a table behind it (or with an unusable name) is not queryable.
      if (cols.size === 0 || !IDENTIFIER.test(r.table_name) || !cols.has('id') || NEVER_CONTENT_TABLES.has(r.table_name)) continue;
      tables.set(r.table_name, { name: r.table_name, live: r.Live, titleField: r.title_field, columns: cols, tenantColumn: cols.has('app_id') });
    }
    this.cache = { at: Date.now(), tables };
    return tables;
  }
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

/** A quoted SQL identifier; only call it with names from the catalog. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
