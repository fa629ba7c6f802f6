import { Injectable } from '@nestjs/common';
import { AuditService } from '../../audit';
import { ApiError } from '../../common/api-error';
import { effectiveRoles, OWNER_PRIMARY_ROLE, StaffRole } from '../../common/permissions';
import { RequestContext } from '../../common/request-context';
import { DatabaseLock, lockRecord } from '../../database/locks';
import { isUniqueViolation } from '../../database/transaction';
import { TransactionalConnection } from '../../database/transactional-connection';
import { AccountsService } from '../accounts/accounts.service';
import { authError } from '../auth.errors';
import { AccountRepository, StaffRow } from '../repositories/account.repository';
import { ResetLinksService } from '../reset/reset-links.service';

/** A staff member as the staff routes answer it. */
export interface StaffMember {
  id: number;
  email: string;
  firstname: string | null;
  lastname: string | null;
  roles: StaffRole[];
  passwordSet: boolean;
  created: Date;
}

/**
 * The tenant's staff (README "Staff roles and permissions"): core_users accounts and their roles. Invited with
 * their roles (an account without a password and a link to set one, through the outbox), given other roles,
 * and removed (no roles, no password, every token void), each in the edge's transaction. An app keeps at least
 * one owner: changes that would leave none are 409, decided under a per-app lock so that two at once cannot
 * each take one of the last two owners.
 */
@Injectable()
export class StaffService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly accounts: AccountsService,
    private readonly repository: AccountRepository,
    private readonly resetLinks: ResetLinksService,
    private readonly audit: AuditService,
  ) {}

  /** The core_users account of the app with this login email, or null. */
  async idOf(ctx: RequestContext, email: string): Promise<number | null> {
    return (await this.accounts.findByEmail(ctx, 'core_users', email))?.id ?? null;
  }

  async list(ctx: RequestContext): Promise<StaffMember[]> {
    return (await this.repository.staffOf(ctx)).map(memberOf);
  }

  /**
   * A new staff member with `roles`, or a removed one brought back (same address), and the link that sets the
   * password mailed to them (the reset link's mail and lifetime).
   */
  async invite(
    ctx: RequestContext,
    input: { email: string; roles: StaffRole[]; firstname?: string; lastname?: string; url?: string },
  ): Promise<StaffMember> {
    const em = this.connection.transactionManager(ctx);
    const email = input.email.trim();
    let account = await this.accounts.findByEmail(ctx, 'core_users', email);
    if (account && (account.passwordHash !== null || effectiveRoles(account.role, account.staffRoles).length > 0))
      throw authError('EMAIL_TAKEN');
    if (!account) {
      try {
        // A savepoint: a concurrent invitation of the same address fails here alone, as 409.
        account = await em.transaction(() =>
          this.accounts.createExternal(ctx, 'core_users', {
            email,
            firstname: input.firstname ?? null,
            lastname: input.lastname ?? null,
            displayname: null,
            photourl: null,
            emailverified: false,
          }),
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw authError('EMAIL_TAKEN');
        throw error;
      }
    }
    await this.repository.setStaffRoles(ctx, account.id, input.roles, 'user');
    await this.resetLinks.request(ctx, 'core_users', email, input.url, true);
    const member = await this.member(ctx, account.id);
    await this.audit.record(ctx, {
      action: 'staff.invite',
      table: 'core_users',
      recordId: account.id,
      after: { email, roles: member.roles },
    });
    return member;
  }

  /** The member's roles become `roles` exactly (an `admin` primary role becomes `user` unless `owner` stays). */
  async setRoles(ctx: RequestContext, userId: number, roles: StaffRole[]): Promise<StaffMember> {
    const before = await this.lockMember(ctx, userId);
    const primary = before.primary_role === OWNER_PRIMARY_ROLE && !roles.includes('owner') ? 'user' : before.primary_role;
    await this.repository.setStaffRoles(ctx, userId, roles, primary);
    await this.requireAnOwner(ctx);
    const after = await this.member(ctx, userId);
    await this.audit.record(ctx, {
      action: 'staff.roles',
      table: 'core_users',
      recordId: userId,
      before: { roles: memberOf(before).roles },
      after: { roles: after.roles },
    });
    return after;
  }

  /** Takes the member out of the staff (AccountRepository.revokeStaff). */
  async remove(ctx: RequestContext, userId: number): Promise<StaffMember> {
    const before = memberOf(await this.lockMember(ctx, userId));
    await this.repository.revokeStaff(ctx, userId);
    await this.requireAnOwner(ctx);
    const after = await this.member(ctx, userId);
    await this.audit.record(ctx, {
      action: 'staff.remove',
      table: 'core_users',
      recordId: userId,
      before: { roles: before.roles, loginEnabled: before.passwordSet },
      after: { roles: after.roles, loginEnabled: after.passwordSet },
    });
    return after;
  }

  /** The app's staff lock, then the member (404 for no core_users account of the app). */
  private async lockMember(ctx: RequestContext, userId: number): Promise<StaffRow> {
    await lockRecord(this.connection.transactionManager(ctx), DatabaseLock.StaffOwners, String(ctx.appId));
    const member = (await this.repository.staffOf(ctx)).find((row) => row.id === userId);
    if (!member) throw ApiError.notFound('Staff member not found');
    return member;
  }

  /** After a change, in its transaction: 409 (and the change rolls back) when the app would have no owner. */
  private async requireAnOwner(ctx: RequestContext): Promise<void> {
    if ((await this.repository.countOwners(ctx)) === 0)
      throw ApiError.conflict('An app keeps at least one owner: make another staff member owner first');
  }

  private async member(ctx: RequestContext, userId: number): Promise<StaffMember> {
    return memberOf((await this.repository.staffOf(ctx)).find((row) => row.id === userId)!);
  }
}

function memberOf(row: StaffRow): StaffMember {
  return {
    id: row.id,
    email: row.email,
    firstname: row.firstname,
    lastname: row.lastname,
    roles: effectiveRoles(row.primary_role, row.staff_roles),
    passwordSet: row.password_set,
    created: row.created,
  };
}
