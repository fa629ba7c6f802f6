import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/api-error';
import { authError } from '../auth.errors';
import { IdCipherService } from '../../common/id-cipher.service';
import { SchemaCatalogService } from '../../database/schema-catalog.service';
import { RequestContext } from '../../common/request-context';
import { TablePolicy } from '../../database/table-policy';
import { CustomerRouteTable } from '../auth-tables';
import { AccountRepository } from '../repositories/account.repository';

/** The profile every answer of the customer and app-user routes carries (docs/auth.md "Endpoints"). */
export const PROFILE_FIELDS = ['email', 'firstname', 'lastname', 'displayname', 'description', 'photourl', 'emailverified'] as const;

/** A profile as the customer routes answer it (CustomerProfile in customers.dto.ts documents it). */
export interface Profile {
  _id: string;
  email: string | null;
  firstname: string | null;
  lastname: string | null;
  displayname: string | null;
  description: string | null;
  photourl: string | null;
  emailverified: boolean;
}

/** Customer and app-user profiles as the customer routes answer them, with the id encrypted. */
@Injectable()
export class CustomerProfilesService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly catalog: SchemaCatalogService,
    private readonly cipher: IdCipherService,
  ) {}

  /**
   * The extra columns named in `extraFields`: any column of the account table that is not secret (the
   * secret-column registry decides: password hash, password_changed, push subscription keys never leave);
   * 400 naming `extraFields` and the first unknown or secret name.
   */
  async parseExtraFields(ctx: RequestContext, table: CustomerRouteTable, extraFields: string | undefined): Promise<string[]> {
    if (!extraFields) return [];
    const names = [
      ...new Set(
        extraFields
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean),
      ),
    ];
    const readable = await this.readableColumns(ctx, table);
    const refused = names.find((n) => !readable.has(n));
    if (refused !== undefined) {
      throw ApiError.field(
        'extraFields',
        `extraFields may only name readable columns of ${table}; "${refused.slice(0, 60)}" is unknown or secret`,
      );
    }
    return names.filter((n) => !(PROFILE_FIELDS as readonly string[]).includes(n));
  }

  async profile(
    ctx: RequestContext,
    table: CustomerRouteTable,
    id: number,
    extra: string[] = [],
  ): Promise<Profile & Record<string, unknown>> {
    // Column names only from PROFILE_FIELDS and the extra list checked against the table's catalog (tenant-added columns are not on the entity).
    const row = await this.accounts.columnsOf<Omit<Profile, '_id'> & Record<string, unknown>>(ctx, table, id, [
      ...PROFILE_FIELDS,
      ...extra,
    ]);
    if (!row) throw authError('NO_USER_FOUND');
    const { email, firstname, lastname, displayname, description, photourl, emailverified, ...rest } = row;
    return {
      _id: this.cipher.encryptId(ctx.appId, id),
      email,
      firstname,
      lastname,
      displayname,
      description,
      photourl,
      emailverified,
      ...rest,
    };
  }

  /** The table's columns from the schema catalog, without the secret ones. */
  private async readableColumns(ctx: RequestContext, table: CustomerRouteTable): Promise<Set<string>> {
    const all = await this.catalog.columnNames(ctx, table);
    return new Set([...all].filter((c) => !TablePolicy.isSecretColumn(table, c)));
  }
}
