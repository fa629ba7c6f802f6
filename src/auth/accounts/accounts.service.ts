import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { insertFirstVersion } from '../../versioning';
import { AuthTable, TABLE_SHAPES } from '../auth-tables';
import { Account, AccountRepository, ExternalProfile } from '../repositories/account.repository';

export type { Account, ExternalProfile } from '../repositories/account.repository';

export interface NewAccount {
  email: string;
  passwordHash: string;
  firstname?: string | null;
  lastname?: string | null;
  displayname?: string | null;
}

/** Accounts of the three user tables, always within the context's app (`ctx.appId`). */
@Injectable()
export class AccountsService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly accounts: AccountRepository,
  ) {}

  findByEmail(ctx: RequestContext, table: AuthTable, email: string): Promise<Account | null> {
    return this.accounts.findByEmail(ctx, table, email);
  }

  findById(ctx: RequestContext, table: AuthTable, id: number): Promise<Account | null> {
    return this.accounts.findById(ctx, table, id);
  }

  /**
   * Inserts the account and its version-tracking core_data row, in the context's transaction. Throws PostgreSQL's
   * unique violation on a taken email. `role` sets core_users.primary_role (operators only: the command line;
   * sign-up never passes it, so an account made over HTTP has the column's default, `user`).
   */
  async create(ctx: RequestContext, table: AuthTable, account: NewAccount, options: { role?: string } = {}): Promise<Account> {
    const values: Record<string, unknown> = {
      [TABLE_SHAPES[table].email]: account.email.trim(),
      password: account.passwordHash,
      firstname: account.firstname ?? null,
      lastname: account.lastname ?? null,
    };
    if (table !== 'core_users') values.displayname = account.displayname ?? null;
    if (table === 'core_users' && options.role !== undefined) values.primary_role = options.role;
    const created = (await this.accounts.findById(ctx, table, await this.accounts.insert(ctx, table, values)))!;
    await this.firstVersion(ctx, table, created.id, created.email, created.id);
    return created;
  }

  /**
   * A core_customers row with no email and no password, and its core_data row, in the context's transaction:
   * the owner of an order created without a customer JWT until a customer takes it over. It cannot log in
   * (no email to find it by, no hash to match) and never holds a unique email.
   */
  async createPlaceholderCustomer(ctx: RequestContext): Promise<number> {
    const id = await this.accounts.insert(ctx, 'core_customers', { email: null, password: null });
    await this.firstVersion(ctx, 'core_customers', id, null, null);
    return id;
  }

  /**
   * An account created for an external identity (SSO), with no password (it cannot log in by password until a
   * reset sets one), and its core_data row, in the context's transaction. `email` may be null for core_customers
   * and core_app_users (the IdP gave none, or one another account already holds); core_users needs one.
   * Throws PostgreSQL's unique violation when the email is taken (the caller retries its use case).
   */
  async createExternal(ctx: RequestContext, table: AuthTable, profile: ExternalProfile): Promise<Account> {
    const values: Record<string, unknown> = {
      [TABLE_SHAPES[table].email]: profile.email?.trim() ?? null,
      password: null,
      firstname: profile.firstname,
      lastname: profile.lastname,
    };
    if (table !== 'core_users')
      Object.assign(values, { displayname: profile.displayname, photourl: profile.photourl, emailverified: profile.emailverified });
    const created = (await this.accounts.findById(ctx, table, await this.accounts.insert(ctx, table, values)))!;
    await this.firstVersion(ctx, table, created.id, created.email || null, created.id);
    return created;
  }

  /** The profile columns of an account (core_users has no displayname, photourl or emailverified: null, null, false). */
  profileOf(ctx: RequestContext, table: AuthTable, id: number): Promise<ExternalProfile | null> {
    return this.accounts.profileOf(ctx, table, id);
  }

  /** Replaces a hash after a legacy-format login, only if it is still the one that was verified. */
  upgradeHash(ctx: RequestContext, account: Account, newHash: string): Promise<void> {
    return this.accounts.replaceHash(ctx, account, newHash);
  }

  /**
   * Sets a new password if password_changed is still `expectedChangedUs` (what the reset link was made
   * for): a second use of the same link, or a concurrent one, changes nothing and returns false.
   */
  resetPassword(ctx: RequestContext, table: AuthTable, id: number, expectedChangedUs: string, newHash: string): Promise<boolean> {
    return this.accounts.setPasswordIfUnchanged(ctx, table, id, expectedChangedUs, newHash);
  }

  /** core_users.user_email of user ids of the app (notification cc/bcc, order mails), in one read. */
  async userEmails(ctx: RequestContext, ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.accounts.userEmails(ctx, ids);
    return new Map(rows.map((r) => [r.id, r.user_email]));
  }

  private async firstVersion(ctx: RequestContext, table: AuthTable, rowId: number, title: string | null, userId: number | null) {
    await insertFirstVersion(this.connection.manager(ctx), { appId: ctx.appId, table, rowId, title, userId });
  }
}
