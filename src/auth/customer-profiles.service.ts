import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { IdCipher } from '../common/id-cipher.service';
import { CustomerRouteTable } from './auth-tables';

/** The profile every customer answer carries (SPEC "Customers and app users"). */
export const PROFILE_FIELDS = ['email', 'firstname', 'lastname', 'displayname', 'description', 'photourl', 'emailverified'] as const;
/**
 * Columns `extraFields` may add. Everything else (password hash, password_changed, push subscription keys,
 * app_id) is never returned, whatever a client asks for.
 */
export const SAFE_EXTRA_FIELDS = ['mobile', 'created', 'updated'] as const;

/** Customer and app-user profiles as the customer routes answer them, with the id encrypted. */
@Injectable()
export class CustomerProfilesService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource, private readonly cipher: IdCipher) {}

  /** The extra columns named in `extraFields`, checked against the allow-list; 400 naming the first refused one. */
  parseExtraFields(extraFields: string | undefined): string[] {
    if (!extraFields) return [];
    const names = [...new Set(extraFields.split(',').map((n) => n.trim()).filter(Boolean))];
    const allowed = new Set<string>([...PROFILE_FIELDS, ...SAFE_EXTRA_FIELDS]);
    const refused = names.find((n) => !allowed.has(n));
    if (refused !== undefined) {
      throw ApiError.field('extraFields', `extraFields may only name ${SAFE_EXTRA_FIELDS.join(', ')} (not "${refused.slice(0, 60)}")`);
    }
    return names.filter((n) => !(PROFILE_FIELDS as readonly string[]).includes(n));
  }

  async profile(appId: number, table: CustomerRouteTable, id: number, extra: string[] = []): Promise<Record<string, unknown>> {
    // Column names only from PROFILE_FIELDS and the checked extra list.
    const columns = [...PROFILE_FIELDS, ...extra].map((c) => `"${c}"`).join(', ');
    const rows: Record<string, unknown>[] = await this.dataSource.query(`SELECT ${columns} FROM ${table} WHERE app_id = $1 AND id = $2`, [appId, id]);
    if (!rows[0]) throw ApiError.notFound('No user found');
    const { email, firstname, lastname, displayname, description, photourl, emailverified, ...rest } = rows[0];
    return { _id: this.cipher.encryptId(id), email, firstname, lastname, displayname, description, photourl, emailverified, ...rest };
  }
}
