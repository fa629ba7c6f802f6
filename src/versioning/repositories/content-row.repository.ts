import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { quoteIdentifier } from '../../database/identifiers';
import { insertRow } from '../../database/insert-row';
import { TransactionalConnection } from '../../database/transactional-connection';
import { RegisteredTable } from '../table-catalog.service';

type Row = Record<string, unknown>;

/**
 * The content rows of the tables registered in core_tables (core_products and tenant-added tables).
 * Raw SQL throughout: these tables have no entity, their names and columns come from the table catalog
 * (allow-listed, always quoted), and every value is a bound parameter.
 */
@Injectable()
export class ContentRowRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** Inserts a row with the catalog columns of `values` (never `id`, which the table generates); its id. */
  async insert(ctx: RequestContext, table: RegisteredTable, values: Row): Promise<number> {
    const columns: Row = {};
    for (const name of Object.keys(values)) if (name !== 'id' && table.columns.has(name)) columns[name] = values[name];
    const { id } = await insertRow<{ id: number }>(this.connection.manager(ctx), table.name, columns);
    return id;
  }

  /** The row `id` (a version's content row), or undefined; only the app's own rows when the table has the tenant column. */
  async find(ctx: RequestContext, table: RegisteredTable, id: number): Promise<Row | undefined> {
    const rows = table.tenantColumn
      ? await this.connection.query<Row>(ctx, `SELECT * FROM ${quoteIdentifier(table.name)} WHERE id = $1 AND app_id = $2`, [id, ctx.appId])
      : await this.connection.query<Row>(ctx, `SELECT * FROM ${quoteIdentifier(table.name)} WHERE id = $1`, [id]);
    return rows[0];
  }

  /**
   * Updates the app's row `id` of a live table in place with `values`; the row as it is now, or undefined
   * when the app has no such row. With no values the row is only read.
   */
  async update(ctx: RequestContext, table: RegisteredTable, id: number, values: Row): Promise<Row | undefined> {
    const em = this.connection.manager(ctx);
    const names = Object.keys(values);
    if (names.length === 0) {
      const rows: Row[] = await em.query(`SELECT * FROM ${quoteIdentifier(table.name)} WHERE id = $1 AND app_id = $2`, [id, ctx.appId]);
      return rows[0];
    }
    const sets = names.map((n, i) => `${quoteIdentifier(n)} = $${i + 3}`).join(', ');
    const result: unknown = await em.query(`UPDATE ${quoteIdentifier(table.name)} SET ${sets} WHERE id = $1 AND app_id = $2 RETURNING *`, [
      id,
      ctx.appId,
      ...names.map((n) => values[n]),
    ]);
    return updatedRows(result)[0];
  }
}

/**
 * The rows an `UPDATE … RETURNING` gave back: TypeORM's PostgreSQL driver answers UPDATE and DELETE with
 * `[rows, rowCount]` and other statements with the rows alone.
 */
function updatedRows(result: unknown): Row[] {
  return Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number'
    ? (result[0] as Row[])
    : (result as Row[]);
}
