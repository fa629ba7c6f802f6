import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Site } from '../app-context/entities/site.entity';
import { RequestContext } from '../common/request-context';
import { insertFirstVersion } from '../versioning/core-data';
import { AuthTable, TABLE_SHAPES } from './auth-tables';

/** An account row of one of the user tables, in one shape whatever the table. */
export interface Account {
  id: number;
  appId: number;
  table: AuthTable;
  email: string;
  passwordHash: string | null;
  firstname: string | null;
  lastname: string | null;
  role: string | null;
  mobile: string | null;
  /** password_changed in microseconds since the epoch, as text (exact: reset links are bound to it). */
  passwordChangedUs: string;
}

export interface NewAccount {
  email: string;
  passwordHash: string;
  firstname?: string | null;
  lastname?: string | null;
  displayname?: string | null;
}

function selectList(table: AuthTable): string {
  const shape = TABLE_SHAPES[table];
  return `id, app_id, ${shape.email} AS email, password, firstname, lastname, ${shape.role} AS role, mobile,
          (floor(extract(epoch FROM password_changed) * 1000000))::bigint::text AS pc`;
}

function toAccount(table: AuthTable, row: Record<string, unknown> | undefined): Account | null {
  if (!row) return null;
  return {
    id: Number(row.id),
    appId: Number(row.app_id),
    table,
    email: String(row.email ?? ''),
    passwordHash: (row.password as string | null) ?? null,
    firstname: (row.firstname as string | null) ?? null,
    lastname: (row.lastname as string | null) ?? null,
    role: (row.role as string | null) ?? null,
    mobile: (row.mobile as string | null) ?? null,
    passwordChangedUs: String(row.pc),
  };
}

/**
 * Reads and writes accounts of the three user tables, always within one app. Table names come from the
 * AuthTable allow-list only.
 */
@Injectable()
export class AccountsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findByEmail(ctx: RequestContext, table: AuthTable, email: string): Promise<Account | null> {
    const rows = await this.dataSource.query(
      `SELECT ${selectList(table)} FROM ${table} WHERE app_id = $1 AND lower(${TABLE_SHAPES[table].email}) = lower($2) LIMIT 1`,
      [ctx.appId, email.trim()],
    );
    return toAccount(table, rows[0]);
  }

  async findById(appId: number, table: AuthTable, id: number, em: EntityManager | DataSource = this.dataSource): Promise<Account | null> {
    const rows = await em.query(`SELECT ${selectList(table)} FROM ${table} WHERE app_id = $1 AND id = $2`, [appId, id]);
    return toAccount(table, rows[0]);
  }

  /** Inserts the account and its version-tracking core_data row, in the caller's transaction. Throws PostgreSQL's unique violation on a taken email. */
  async create(em: EntityManager, ctx: RequestContext, table: AuthTable, account: NewAccount): Promise<Account> {
    const shape = TABLE_SHAPES[table];
    const columns = [shape.email, 'password', 'firstname', 'lastname'];
    const values: unknown[] = [account.email.trim(), account.passwordHash, account.firstname ?? null, account.lastname ?? null];
    if (table !== 'core_users') {
      columns.push('displayname');
      values.push(account.displayname ?? null);
    }
    const rows = await em.query(
      `INSERT INTO ${table} (app_id, ${columns.join(', ')}) VALUES ($1, ${columns.map((_, i) => `$${i + 2}`).join(', ')}) RETURNING ${selectList(table)}`,
      [ctx.appId, ...values],
    );
    const created = toAccount(table, rows[0])!;
    await insertFirstVersion(em, { appId: ctx.appId, table, rowId: created.id, title: created.email, userId: created.id });
    return created;
  }

  async siteOf(appId: number): Promise<Site | null> {
    const rows: Site[] = await this.dataSource.query('SELECT * FROM core_sites WHERE id = $1', [appId]);
    return rows[0] ?? null;
  }

  /** Replaces a hash after a legacy-format login, only if it is still the one that was verified. */
  async upgradeHash(account: Account, newHash: string): Promise<void> {
    await this.dataSource.query(`UPDATE ${account.table} SET password = $1, updated = now() WHERE app_id = $2 AND id = $3 AND password = $4`, [
      newHash,
      account.appId,
      account.id,
      account.passwordHash,
    ]);
  }

  /**
   * Sets a new password if password_changed is still `expectedChangedUs` (what the reset link was made
   * for): a second use of the same link, or a concurrent one, changes nothing and returns false.
   */
  async resetPassword(appId: number, table: AuthTable, id: number, expectedChangedUs: string, newHash: string): Promise<boolean> {
    const rows = await this.dataSource.query(
      `UPDATE ${table} SET password = $1, password_changed = clock_timestamp(), updated = now()
        WHERE app_id = $2 AND id = $3 AND (floor(extract(epoch FROM password_changed) * 1000000))::bigint::text = $4
        RETURNING id`,
      [newHash, appId, id, expectedChangedUs],
    );
    return rowCount(rows) > 0;
  }
}

/** TypeORM's query() answers an UPDATE … RETURNING with [rows, count] on PostgreSQL. */
export function rowCount(result: unknown): number {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[1];
  return Array.isArray(result) ? result.length : 0;
}
