import { Injectable } from '@nestjs/common';
import { ADMIN_TABLE, mayDo } from '../../common/access-guards';
import { ApiError } from '../../common/api-error';
import { AuthPrincipal, RequestContext } from '../../common/request-context';
import { DatabaseLock, lockRecord } from '../../database/locks';
import { TransactionalConnection } from '../../database/transactional-connection';
import { RelatedLinksService } from '../../related';
import { AccountRepository } from '../repositories/account.repository';
import { FolderRepository } from '../repositories/folder.repository';
import { UserLinkTokensService } from './user-link-tokens.service';

export const INVITE_DAYS = 60;

/**
 * Folder access of core_users, given by /auth/invite-link and read by /auth/getFolderLimits: a core_related
 * row parent_table core_users, parent_id and master_id the user, name core_folders, linked the folder, with
 * `expires` 60 days after the invitation.
 */
@Injectable()
export class FolderInvitesService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly accounts: AccountRepository,
    private readonly folders: FolderRepository,
    private readonly related: RelatedLinksService,
    private readonly links: UserLinkTokensService,
  ) {}

  /** Grants (or renews) the user's access to the folder and returns the userId link token with the same expiry. Runs in the route's transaction. */
  async invite(ctx: RequestContext, userId: number, folderId: number): Promise<string> {
    const em = this.connection.transactionManager(ctx);
    const appId = ctx.appId;
    if (!(await this.accounts.userExists(ctx, userId))) throw ApiError.field('user', 'user does not name a user of this app');
    if (!(await this.folders.exists(ctx, folderId))) throw ApiError.field('folder_id', 'folder_id does not name a folder of this app');
    // One row per (user, folder): serialize concurrent invitations of the same pair.
    await lockRecord(em, DatabaseLock.FolderInvite, `${appId}:${userId}:${folderId}`);
    const key = { app_id: appId, parent_table: 'core_users', parent_id: userId, name: 'core_folders', linked: folderId };
    let expires = await this.related.renew(ctx, key, INVITE_DAYS);
    if (!expires) {
      // The expiry is the database's clock, as a renewal's: insert the link, then set it.
      await this.related.insert(ctx, { ...key, master_id: userId });
      expires = await this.related.renew(ctx, key, INVITE_DAYS);
    }
    return this.links.issue({ userId, appId, expires: new Date(expires!) });
  }

  /**
   * The folders the user may access now: the user's live core_folders links whose folder is one of the app's.
   * Asked by the request's bearer, who must be an admin who may view customers, or the user themself (403).
   */
  async limits(ctx: RequestContext, userId: number): Promise<{ linked: number }[]> {
    if (!mayReadLimitsOf(ctx.principal, userId)) throw ApiError.forbidden();
    const linked = await this.related.activeLinked(ctx, userId, 'core_folders');
    if (linked.length === 0) return [];
    const mine = new Set(await this.folders.existing(ctx, linked));
    return linked.filter((id) => mine.has(id)).map((id) => ({ linked: id }));
  }
}

/** Who may read a user's folder access: an admin of the app who may view customers (any user), or the user themself. */
function mayReadLimitsOf(principal: AuthPrincipal | null, userId: number): boolean {
  const self = principal?.authTable === ADMIN_TABLE && principal.userId === userId;
  return mayDo(principal, 'customers.view') || self;
}
