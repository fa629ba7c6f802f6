import { Injectable } from '@nestjs/common';
import { Site, SitesService } from '../app-context';
import { RequestContext } from '../common/request-context';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
// The file, not '../versioning': that index loads VersioningModule, whose controllers import auth's guards (a cycle).
import { insertFirstVersion } from '../versioning/core-data';
import { AuthTable, TABLE_SHAPES } from './auth-tables';
import { ACCOUNT_ENTITIES, Customer, User } from './entities';

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

/** The profile of an account made for an external identity (SSO), and what `profileOf` reads. */
export interface ExternalProfile {
  email: string | null;
  firstname: string | null;
  lastname: string | null;
  displayname: string | null;
  photourl: string | null;
  emailverified: boolean;
}

export interface NewAccount {
  email: string;
  passwordHash: string;
  firstname?: string | null;
  lastname?: string | null;
  displayname?: string | null;
}

/** password_changed in microseconds since the epoch, as exact text (reset links are bound to it). */
const CHANGED_US = '(floor(extract(epoch FROM a.password_changed) * 1000000))::bigint::text';

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
 * Reads and writes accounts of the three user tables, always within one app, through the table's entity
 * (ACCOUNT_ENTITIES) on the scope's manager.
 */
/** The web-push columns of a core_customers row. */
export interface PushSubscriptionColumns {
  id: number;
  pushsubscription: string | null;
  p256dh: string | null;
  auth: string | null;
}

@Injectable()
export class AccountsService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly sites: SitesService,
  ) {}

  async findByEmail(ctx: RequestContext, table: AuthTable, email: string): Promise<Account | null> {
    const row = await this.select(ctx, table)
      .where(`a.app_id = :appId AND lower(a.${TABLE_SHAPES[table].email}) = lower(:email)`, { appId: ctx.appId, email: email.trim() })
      .limit(1)
      .getRawOne();
    return toAccount(table, row);
  }

  async findById(scope: TransactionScope, appId: number, table: AuthTable, id: number): Promise<Account | null> {
    const row = await this.select(scope, table).where('a.app_id = :appId AND a.id = :id', { appId, id }).getRawOne();
    return toAccount(table, row);
  }

  /**
   * Inserts the account and its version-tracking core_data row, in the scope's transaction. Throws PostgreSQL's
   * unique violation on a taken email. `role` sets core_users.primary_role (operators only: the command line;
   * sign-up never passes it, so an account made over HTTP has the column's default, `user`).
   */
  async create(ctx: RequestContext, table: AuthTable, account: NewAccount, options: { role?: string } = {}): Promise<Account> {
    const values: Record<string, unknown> = {
      app_id: ctx.appId,
      [TABLE_SHAPES[table].email]: account.email.trim(),
      password: account.passwordHash,
      firstname: account.firstname ?? null,
      lastname: account.lastname ?? null,
    };
    if (table !== 'core_users') values.displayname = account.displayname ?? null;
    if (table === 'core_users' && options.role !== undefined) values.primary_role = options.role;
    const inserted = await this.connection
      .repository(ctx, ACCOUNT_ENTITIES[table])
      .createQueryBuilder()
      .insert()
      .values(values)
      .returning(['id'])
      .execute();
    const created = (await this.findById(ctx, ctx.appId, table, (inserted.raw as { id: number }[])[0].id))!;
    await insertFirstVersion(this.connection.manager(ctx), {
      appId: ctx.appId,
      table,
      rowId: created.id,
      title: created.email,
      userId: created.id,
    });
    return created;
  }

  /**
   * A core_customers row with no email and no password, and its core_data row, in the scope's transaction:
   * the owner of an order created without a customer JWT until a customer takes it over. It cannot log in
   * (no email to find it by, no hash to match) and never holds a unique email.
   */
  async createPlaceholderCustomer(scope: TransactionScope, appId: number): Promise<number> {
    const inserted = await this.connection
      .repository(scope, Customer)
      .createQueryBuilder()
      .insert()
      .values({ app_id: appId, email: null, password: null })
      .returning(['id'])
      .execute();
    const id = (inserted.raw as { id: number }[])[0].id;
    await insertFirstVersion(this.connection.manager(scope), { appId, table: 'core_customers', rowId: id, title: null, userId: null });
    return id;
  }

  /**
   * An account created for an external identity (SSO), with no password (it cannot log in by password until a
   * reset sets one), and its core_data row, in the scope's transaction. `email` may be null for core_customers
   * and core_app_users (the IdP gave none, or one another account already holds); core_users needs one.
   * Throws PostgreSQL's unique violation when the email is taken (the caller retries its use case).
   */
  async createExternal(scope: TransactionScope, appId: number, table: AuthTable, profile: ExternalProfile): Promise<Account> {
    const values: Record<string, unknown> = {
      app_id: appId,
      [TABLE_SHAPES[table].email]: profile.email?.trim() ?? null,
      password: null,
      firstname: profile.firstname,
      lastname: profile.lastname,
    };
    if (table !== 'core_users')
      Object.assign(values, { displayname: profile.displayname, photourl: profile.photourl, emailverified: profile.emailverified });
    const inserted = await this.connection
      .repository(scope, ACCOUNT_ENTITIES[table])
      .createQueryBuilder()
      .insert()
      .values(values)
      .returning(['id'])
      .execute();
    const created = (await this.findById(scope, appId, table, (inserted.raw as { id: number }[])[0].id))!;
    await insertFirstVersion(this.connection.manager(scope), {
      appId,
      table,
      rowId: created.id,
      title: created.email || null,
      userId: created.id,
    });
    return created;
  }

  /** The profile columns of an account (core_users has no displayname, photourl or emailverified: null, null, false). */
  async profileOf(scope: TransactionScope, appId: number, table: AuthTable, id: number): Promise<ExternalProfile | null> {
    const query = this.connection
      .repository(scope, ACCOUNT_ENTITIES[table])
      .createQueryBuilder('a')
      .select(`a.${TABLE_SHAPES[table].email}`, 'email')
      .addSelect('a.firstname', 'firstname')
      .addSelect('a.lastname', 'lastname')
      .where('a.app_id = :appId AND a.id = :id', { appId, id });
    if (table !== 'core_users')
      query.addSelect('a.displayname', 'displayname').addSelect('a.photourl', 'photourl').addSelect('a.emailverified', 'emailverified');
    const row = await query.getRawOne<Partial<ExternalProfile>>();
    if (!row) return null;
    return {
      email: row.email ?? null,
      firstname: row.firstname ?? null,
      lastname: row.lastname ?? null,
      displayname: row.displayname ?? null,
      photourl: row.photourl ?? null,
      emailverified: row.emailverified === true,
    };
  }

  async siteOf(scope: TransactionScope, appId: number): Promise<Site | null> {
    return this.sites.findById(scope, appId);
  }

  /** Replaces a hash after a legacy-format login, only if it is still the one that was verified. */
  async upgradeHash(scope: TransactionScope, account: Account, newHash: string): Promise<void> {
    await this.connection
      .repository(scope, ACCOUNT_ENTITIES[account.table])
      .createQueryBuilder()
      .update()
      .set({ password: newHash, updated: () => 'now()' })
      .where('app_id = :appId AND id = :id AND password = :old', { appId: account.appId, id: account.id, old: account.passwordHash })
      .execute();
  }

  /**
   * Sets a new password if password_changed is still `expectedChangedUs` (what the reset link was made
   * for): a second use of the same link, or a concurrent one, changes nothing and returns false.
   */
  async resetPassword(
    scope: TransactionScope,
    appId: number,
    table: AuthTable,
    id: number,
    expectedChangedUs: string,
    newHash: string,
  ): Promise<boolean> {
    const result = await this.connection
      .repository(scope, ACCOUNT_ENTITIES[table])
      .createQueryBuilder()
      .update()
      .set({ password: newHash, password_changed: () => 'clock_timestamp()', updated: () => 'now()' })
      .where('app_id = :appId AND id = :id AND (floor(extract(epoch FROM password_changed) * 1000000))::bigint::text = :expected', {
        appId,
        id,
        expected: expectedChangedUs,
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** core_users.user_email of user ids of the app (notification cc/bcc), in one read. */
  async userEmails(scope: TransactionScope, appId: number, ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.connection
      .repository(scope, User)
      .createQueryBuilder('u')
      .select('u.id', 'id')
      .addSelect('u.user_email', 'user_email')
      .where('u.id IN (:...ids) AND u.app_id = :appId', { ids, appId })
      .getRawMany<{ id: number; user_email: string }>();
    return new Map(rows.map((r) => [r.id, r.user_email]));
  }

  /** A customer's stored web-push subscription (secret columns, so selected explicitly); null without the customer. */
  async pushSubscriptionOf(scope: TransactionScope, appId: number, customerId: number): Promise<PushSubscriptionColumns | null> {
    const row = await this.connection
      .repository(scope, Customer)
      .createQueryBuilder('c')
      .select('c.id', 'id')
      .addSelect('c.pushsubscription', 'pushsubscription')
      .addSelect('c.p256dh', 'p256dh')
      .addSelect('c.auth', 'auth')
      .where('c.id = :customerId AND c.app_id = :appId', { customerId, appId })
      .getRawOne<PushSubscriptionColumns>();
    return row ?? null;
  }

  /** Forgets a customer's subscription (the push service answered that it is gone). */
  async forgetPushSubscription(scope: TransactionScope, appId: number, customerId: number): Promise<void> {
    await this.connection
      .repository(scope, Customer)
      .createQueryBuilder()
      .update()
      .set({ pushsubscription: null, p256dh: null, auth: null })
      .where('id = :customerId AND app_id = :appId', { customerId, appId })
      .execute();
  }

  private select(scope: TransactionScope, table: AuthTable) {
    const shape = TABLE_SHAPES[table];
    return this.connection
      .repository(scope, ACCOUNT_ENTITIES[table])
      .createQueryBuilder('a')
      .select('a.id', 'id')
      .addSelect('a.app_id', 'app_id')
      .addSelect(`a.${shape.email}`, 'email')
      .addSelect('a.password', 'password')
      .addSelect('a.firstname', 'firstname')
      .addSelect('a.lastname', 'lastname')
      .addSelect(/^[a-z_]+$/.test(shape.role) ? `a.${shape.role}` : shape.role, 'role') // a column, or the fixed label of TABLE_SHAPES
      .addSelect('a.mobile', 'mobile')
      .addSelect(CHANGED_US, 'pc');
  }
}
