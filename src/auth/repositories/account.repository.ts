import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import type { PushSubscriptionColumns } from '../../messaging';
import { AuthTable, TABLE_SHAPES } from '../auth-tables';
import { ACCOUNT_ENTITIES, Customer, User } from '../entities';

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
  /** core_users.staff_roles: the staff roles assigned (empty for the other tables). */
  staffRoles: string[];
  mobile: string | null;
  /** password_changed in microseconds since the epoch, as text (exact: reset links are bound to it). */
  passwordChangedUs: string;
}

/** A core_users account as the staff list shows it. */
export interface StaffRow {
  id: number;
  email: string;
  firstname: string | null;
  lastname: string | null;
  primary_role: string;
  staff_roles: string[];
  created: Date;
  password_set: boolean;
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

/** password_changed in microseconds since the epoch, as exact text (reset links are bound to it). */
const CHANGED_US = '(floor(extract(epoch FROM a.password_changed) * 1000000))::bigint::text';

/**
 * Every query on the account tables (core_users, core_customers, core_app_users), through the table's entity
 * (ACCOUNT_ENTITIES) on the context's manager, always within `ctx.appId`.
 */
@Injectable()
export class AccountRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  async findByEmail(ctx: RequestContext, table: AuthTable, email: string): Promise<Account | null> {
    const row = await this.select(ctx, table)
      .where(`a.app_id = :appId AND lower(a.${TABLE_SHAPES[table].email}) = lower(:email)`, { appId: ctx.appId, email: email.trim() })
      .limit(1)
      .getRawOne();
    return toAccount(table, row);
  }

  async findById(ctx: RequestContext, table: AuthTable, id: number): Promise<Account | null> {
    const row = await this.select(ctx, table).where('a.app_id = :appId AND a.id = :id', { appId: ctx.appId, id }).getRawOne();
    return toAccount(table, row);
  }

  /** Inserts an account of the app with `values` (column names of the table); its id. */
  async insert(ctx: RequestContext, table: AuthTable, values: Record<string, unknown>): Promise<number> {
    const inserted = await this.connection
      .repository(ctx, ACCOUNT_ENTITIES[table])
      .createQueryBuilder()
      .insert()
      .values({ app_id: ctx.appId, ...values })
      .returning(['id'])
      .execute();
    return (inserted.raw as { id: number }[])[0].id;
  }

  /** The profile columns of an account (core_users has no displayname, photourl or emailverified: null, null, false). */
  async profileOf(ctx: RequestContext, table: AuthTable, id: number): Promise<ExternalProfile | null> {
    const query = this.connection
      .repository(ctx, ACCOUNT_ENTITIES[table])
      .createQueryBuilder('a')
      .select(`a.${TABLE_SHAPES[table].email}`, 'email')
      .addSelect('a.firstname', 'firstname')
      .addSelect('a.lastname', 'lastname')
      .where('a.app_id = :appId AND a.id = :id', { appId: ctx.appId, id });
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

  /**
   * The named columns of an account, as a raw row keyed by column name; undefined without the account.
   * Every name must come from a checked list (the entity's, or the table's catalog for tenant-added columns).
   */
  columnsOf<T extends Record<string, unknown>>(ctx: RequestContext, table: AuthTable, id: number, columns: readonly string[]) {
    const query = this.connection.repository(ctx, ACCOUNT_ENTITIES[table]).createQueryBuilder('a').select([]);
    for (const column of columns) query.addSelect(`a."${column}"`, column);
    return query.where('a.app_id = :appId AND a.id = :id', { appId: ctx.appId, id }).getRawOne<T>();
  }

  /** Whether `id` is a core_users account of the app. */
  userExists(ctx: RequestContext, id: number): Promise<boolean> {
    return this.connection.repository(ctx, User).exists({ where: { app_id: ctx.appId, id } });
  }

  /** Replaces the hash only if it is still `account.passwordHash` (the one that was verified). */
  async replaceHash(ctx: RequestContext, account: Account, newHash: string): Promise<void> {
    await this.connection
      .repository(ctx, ACCOUNT_ENTITIES[account.table])
      .createQueryBuilder()
      .update()
      .set({ password: newHash, updated: () => 'now()' })
      .where('app_id = :appId AND id = :id AND password = :old', { appId: ctx.appId, id: account.id, old: account.passwordHash })
      .execute();
  }

  /** Sets a new password (and password_changed) if password_changed is still `expectedChangedUs`; whether it did. */
  async setPasswordIfUnchanged(
    ctx: RequestContext,
    table: AuthTable,
    id: number,
    expectedChangedUs: string,
    newHash: string,
  ): Promise<boolean> {
    const result = await this.connection
      .repository(ctx, ACCOUNT_ENTITIES[table])
      .createQueryBuilder()
      .update()
      .set({ password: newHash, password_changed: () => 'clock_timestamp()', updated: () => 'now()' })
      .where('app_id = :appId AND id = :id AND (floor(extract(epoch FROM password_changed) * 1000000))::bigint::text = :expected', {
        appId: ctx.appId,
        id,
        expected: expectedChangedUs,
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** The app's core_users accounts (its staff and former staff), oldest first. */
  staffOf(ctx: RequestContext): Promise<StaffRow[]> {
    return this.connection
      .repository(ctx, User)
      .createQueryBuilder('u')
      .select(['u.id AS id', 'u.user_email AS email', 'u.firstname AS firstname', 'u.lastname AS lastname'])
      .addSelect(['u.primary_role AS primary_role', 'u.staff_roles AS staff_roles', 'u.created AS created'])
      .addSelect('u.password IS NOT NULL', 'password_set')
      .where('u.app_id = :appId', { appId: ctx.appId })
      .orderBy('u.id')
      .getRawMany<StaffRow>();
  }

  /** A core_users account's staff roles and primary role, written as given. */
  async setStaffRoles(ctx: RequestContext, id: number, staffRoles: string[], primaryRole: string): Promise<void> {
    await this.connection
      .repository(ctx, User)
      .update({ app_id: ctx.appId, id }, { staff_roles: staffRoles, primary_role: primaryRole, updated: () => 'now()' });
  }

  /** How many accounts of the app are owners (an `admin` primary role, or the `owner` staff role). */
  countOwners(ctx: RequestContext): Promise<number> {
    return this.connection
      .repository(ctx, User)
      .createQueryBuilder('u')
      .where(`u.app_id = :appId AND (u.primary_role = 'admin' OR 'owner' = ANY(u.staff_roles))`, { appId: ctx.appId })
      .getCount();
  }

  /**
   * Takes an account out of the staff: no roles, no password, and password_changed moved, so every token issued
   * to it stops working at its next request. The row stays (the audit log and orders name it); an invitation
   * of the same address brings it back.
   */
  async revokeStaff(ctx: RequestContext, id: number): Promise<void> {
    await this.connection
      .repository(ctx, User)
      .update(
        { app_id: ctx.appId, id },
        { staff_roles: [], primary_role: 'user', password: null, password_changed: () => 'clock_timestamp()', updated: () => 'now()' },
      );
  }

  async userEmails(ctx: RequestContext, ids: number[]): Promise<{ id: number; user_email: string }[]> {
    return this.connection
      .repository(ctx, User)
      .createQueryBuilder('u')
      .select('u.id', 'id')
      .addSelect('u.user_email', 'user_email')
      .where('u.id IN (:...ids) AND u.app_id = :appId', { ids, appId: ctx.appId })
      .getRawMany<{ id: number; user_email: string }>();
  }

  /** The secret web-push columns, so selected explicitly. */
  async pushSubscriptionOf(ctx: RequestContext, customerId: number): Promise<PushSubscriptionColumns | null> {
    const row = await this.connection
      .repository(ctx, Customer)
      .createQueryBuilder('c')
      .select('c.id', 'id')
      .addSelect('c.pushsubscription', 'pushsubscription')
      .addSelect('c.p256dh', 'p256dh')
      .addSelect('c.auth', 'auth')
      .where('c.id = :customerId AND c.app_id = :appId', { customerId, appId: ctx.appId })
      .getRawOne<PushSubscriptionColumns>();
    return row ?? null;
  }

  async forgetPushSubscription(ctx: RequestContext, customerId: number): Promise<void> {
    await this.connection
      .repository(ctx, Customer)
      .createQueryBuilder()
      .update()
      .set({ pushsubscription: null, p256dh: null, auth: null })
      .where('id = :customerId AND app_id = :appId', { customerId, appId: ctx.appId })
      .execute();
  }

  private select(ctx: RequestContext, table: AuthTable) {
    const shape = TABLE_SHAPES[table];
    return this.connection
      .repository(ctx, ACCOUNT_ENTITIES[table])
      .createQueryBuilder('a')
      .select('a.id', 'id')
      .addSelect('a.app_id', 'app_id')
      .addSelect(`a.${shape.email}`, 'email')
      .addSelect('a.password', 'password')
      .addSelect('a.firstname', 'firstname')
      .addSelect('a.lastname', 'lastname')
      .addSelect(/^[a-z_]+$/.test(shape.role) ? `a.${shape.role}` : shape.role, 'role') // a column, or the fixed label of TABLE_SHAPES
      .addSelect(shape.staffRoles, 'staff_roles')
      .addSelect('a.mobile', 'mobile')
      .addSelect(CHANGED_US, 'pc');
  }
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
    staffRoles: (row.staff_roles as string[] | null) ?? [],
    mobile: (row.mobile as string | null) ?? null,
    passwordChangedUs: String(row.pc),
  };
}
