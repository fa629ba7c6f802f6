import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { idOfTerm, prefixPattern } from '../../common/search';
import { TransactionalConnection } from '../../database/transactional-connection';
import { Customer } from '../entities';

/** A customer as staff see it: the profile, never the password hash, push keys or any other secret. */
export interface CustomerProfileRow {
  id: number;
  email: string | null;
  firstname: string | null;
  lastname: string | null;
  displayname: string | null;
  mobile: string | null;
  emailverified: boolean;
  passwordSet: boolean;
  created: Date;
  updated: Date;
}

/**
 * SQL: a customer with something to show. A guest's order makes a placeholder core_customers row with none of
 * these (AccountsService.createPlaceholderCustomer): the list leaves those out. The partial index of migration
 * 1764002360000 has this predicate, word for word, so the planner can use it.
 */
export const LISTED_CUSTOMER =
  '(c.email IS NOT NULL OR c.mobile IS NOT NULL OR c.firstname IS NOT NULL ' + 'OR c.lastname IS NOT NULL OR c.displayname IS NOT NULL)';

/** The search's alternatives: each the expression of one index of migration 1764002360000 (app_id first, text_pattern_ops). */
export const CUSTOMER_SEARCH_COLUMNS = [
  `lower(c.email)`,
  `lower(c.lastname)`,
  `lower(COALESCE(c.firstname, '') || ' ' || COALESCE(c.lastname, ''))`,
] as const;

/** The staff customer directory's reads of core_customers, always within `ctx.appId`. */
@Injectable()
export class CustomerDirectoryRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /**
   * One page of the app's customers (placeholders left out), newest first. `search`: the customer id exactly,
   * or the start of the email, last name or "first last", without regard to case (one BitmapOr over the indexes).
   */
  list(ctx: RequestContext, query: { search?: string; offset: number; limit: number }): Promise<CustomerProfileRow[]> {
    const qb = this.select(ctx)
      .andWhere(LISTED_CUSTOMER)
      .orderBy('c.created', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .offset(query.offset)
      .limit(query.limit);
    if (query.search) {
      const id = idOfTerm(query.search);
      const alternatives = CUSTOMER_SEARCH_COLUMNS.map((column) => `${column} LIKE :searchPrefix`);
      if (id !== null) alternatives.unshift('c.id = :searchId');
      qb.andWhere(`(${alternatives.join(' OR ')})`, { searchPrefix: prefixPattern(query.search), searchId: id });
    }
    return this.rows(qb.getRawMany());
  }

  /** The app's customer `id` (a placeholder too), or null. */
  async find(ctx: RequestContext, id: number): Promise<CustomerProfileRow | null> {
    const [row] = await this.rows(this.select(ctx).andWhere('c.id = :id', { id }).getRawMany());
    return row ?? null;
  }

  private select(ctx: RequestContext) {
    return this.connection
      .repository(ctx, Customer)
      .createQueryBuilder('c')
      .select('c.id', 'id')
      .addSelect('c.email', 'email')
      .addSelect('c.firstname', 'firstname')
      .addSelect('c.lastname', 'lastname')
      .addSelect('c.displayname', 'displayname')
      .addSelect('c.mobile', 'mobile')
      .addSelect('c.emailverified', 'emailverified')
      .addSelect('(c.password IS NOT NULL)', 'passwordSet') // whether one is set, never the hash
      .addSelect('c.created', 'created')
      .addSelect('c.updated', 'updated')
      .where('c.app_id = :appId', { appId: ctx.appId });
  }

  private async rows(query: Promise<CustomerProfileRow[]>): Promise<CustomerProfileRow[]> {
    return (await query).map((row) => ({ ...row, id: Number(row.id) }));
  }
}
