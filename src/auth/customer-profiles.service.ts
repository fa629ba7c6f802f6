import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { IdCipher } from '../common/id-cipher.service';
import { tableColumns } from '../app-context/sites.service';
import { isSecretColumn } from '../versioning/secret-columns';
import { CustomerRouteTable } from './auth-tables';

/** The profile every customer answer carries (SPEC "Customers and app users"). */
export const PROFILE_FIELDS = ['email', 'firstname', 'lastname', 'displayname', 'description', 'photourl', 'emailverified'] as const;
const COLUMNS_CACHE_MS = 60_000;

/** Customer and app-user profiles as the customer routes answer them, with the id encrypted. */
@Injectable()
export class CustomerProfilesService {
  private readonly readable = new Map<CustomerRouteTable, { at: number; columns: Promise<Set<string>> }>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource, private readonly cipher: IdCipher) {}

  /**
   * The extra columns named in `extraFields`: any column of the account table that is not secret (the
   * secret-column registry decides: password hash, password_changed, push subscription keys never leave);
   * 400 naming `extraFields` and the first unknown or secret name.
   */
  async parseExtraFields(table: CustomerRouteTable, extraFields: string | undefined): Promise<string[]> {
    if (!extraFields) return [];
    const names = [...new Set(extraFields.split(',').map((n) => n.trim()).filter(Boolean))];
    const readable = await this.readableColumns(table);
    const refused = names.find((n) => !readable.has(n));
    if (refused !== undefined) {
      throw ApiError.field('extraFields', `extraFields may only name readable columns of ${table}; "${refused.slice(0, 60)}" is unknown or secret`);
    }
    return names.filter((n) => !(PROFILE_FIELDS as readonly string[]).includes(n));
  }

  async profile(appId: number, table: CustomerRouteTable, id: number, extra: string[] = []): Promise<Record<string, unknown>> {
    // Column names only from PROFILE_FIELDS and the extra list checked against the table's catalog.
    const columns = [...PROFILE_FIELDS, ...extra].map((c) => `"${c}"`).join(', ');
    const rows: Record<string, unknown>[] = await this.dataSource.query(`SELECT ${columns} FROM ${table} WHERE app_id = $1 AND id = $2`, [appId, id]);
    if (!rows[0]) throw ApiError.notFound('No user found');
    const { email, firstname, lastname, displayname, description, photourl, emailverified, ...rest } = rows[0];
    return { _id: this.cipher.encryptId(appId, id), email, firstname, lastname, displayname, description, photourl, emailverified, ...rest };
  }

  /** The table's columns from the database catalog, without the secret ones (kept a minute). */
  private readableColumns(table: CustomerRouteTable): Promise<Set<string>> {
    const cached = this.readable.get(table);
    if (cached && Date.now() - cached.at < COLUMNS_CACHE_MS) return cached.columns;
    const columns = tableColumns(this.dataSource, table).then((all) => new Set([...all].filter((c) => !isSecretColumn(table, c))));
    columns.catch(() => this.readable.delete(table));
    this.readable.set(table, { at: Date.now(), columns });
    return columns;
  }
}
