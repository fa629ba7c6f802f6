import { Injectable } from '@nestjs/common';
import { isIdentifier } from './identifiers';
import { TransactionScope } from './transaction-scope';
import { TransactionalConnection } from './transactional-connection';

export interface SchemaColumn {
  name: string;
  /** information_schema's data_type, e.g. `integer`, `character varying`, `timestamp with time zone`. */
  dataType: string;
  nullable: boolean;
  /** varchar(n) and char(n): n. */
  maxLength?: number;
}

/** How long a read of the catalog is reused; tenants may add tables and columns while the service runs. */
const CACHE_MS = 30_000;

/**
 * The one reader of information_schema: every base table of the service's schema with its columns in
 * order, read in one query and cached for CACHE_MS. Names that are not plain identifiers are left out, so
 * whatever this returns may be quoted into SQL. Used where a table's shape comes from data (tenant-added
 * tables and columns); tables the service owns are described by their entities.
 */
@Injectable()
export class SchemaCatalogService {
  private cache: { at: number; tables: Promise<Map<string, Map<string, SchemaColumn>>> } | null = null;

  constructor(private readonly connection: TransactionalConnection) {}

  // The scope is the caller's: a read inside its transaction must use that connection (the embedded
  // database has only one).
  async tableNames(scope: TransactionScope): Promise<Set<string>> {
    return new Set((await this.tables(scope)).keys());
  }

  /** The columns of `table` in order, or undefined when the schema has no such base table. */
  async columns(scope: TransactionScope, table: string): Promise<Map<string, SchemaColumn> | undefined> {
    return (await this.tables(scope)).get(table);
  }

  async columnNames(scope: TransactionScope, table: string): Promise<Set<string>> {
    return new Set((await this.columns(scope, table))?.keys() ?? []);
  }

  /** Forgets the cached read (after a migration, or when a caller just changed the schema). */
  invalidate(): void {
    this.cache = null;
  }

  private tables(scope: TransactionScope): Promise<Map<string, Map<string, SchemaColumn>>> {
    if (!this.cache || Date.now() - this.cache.at >= CACHE_MS) {
      const tables = this.read(scope);
      this.cache = { at: Date.now(), tables };
      tables.catch(() => (this.cache = null));
    }
    return this.cache.tables;
  }

  private async read(scope: TransactionScope): Promise<Map<string, Map<string, SchemaColumn>>> {
    // Raw SQL: information_schema is PostgreSQL's own catalog, not a table of ours with an entity.
    const rows: {
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
      character_maximum_length: number | null;
    }[] = await this.connection.manager(scope).query(
      `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.character_maximum_length
           FROM information_schema.columns c
           JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
          WHERE c.table_schema = current_schema()
          ORDER BY c.table_name, c.ordinal_position`,
    );
    const tables = new Map<string, Map<string, SchemaColumn>>();
    for (const row of rows) {
      if (!isIdentifier(row.table_name) || !isIdentifier(row.column_name)) continue;
      let columns = tables.get(row.table_name);
      if (!columns) tables.set(row.table_name, (columns = new Map()));
      columns.set(row.column_name, {
        name: row.column_name,
        dataType: row.data_type,
        nullable: row.is_nullable === 'YES',
        ...(row.character_maximum_length ? { maxLength: Number(row.character_maximum_length) } : {}),
      });
    }
    return tables;
  }
}
