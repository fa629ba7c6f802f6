import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { DatabaseLock, lockRecord } from '../database/locks';
import { TransactionalConnection } from '../database/transactional-connection';
import { RelatedLinks } from '../related';
import { Folder } from './entities/folder.entity';
import { User } from './entities/user.entity';
import { UserLinkTokens } from './user-link-tokens.service';

export const INVITE_DAYS = 60;

/**
 * Folder access of core_users (SPEC /auth/invite-link, /auth/getFolderLimits): a core_related row
 * parent_table core_users, parent_id and master_id the user, name core_folders, linked the folder, with
 * `expires` 60 days after the invitation.
 */
@Injectable()
export class FolderInvitesService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly related: RelatedLinks,
    private readonly links: UserLinkTokens,
  ) {}

  /** Grants (or renews) the user's access to the folder and returns the userId link token with the same expiry. Runs in the use case's transaction. */
  async invite(ctx: RequestContext, userId: number, folderId: number): Promise<string> {
    const appId = ctx.appId;
    if (!(await this.connection.repository(ctx, User).exists({ where: { app_id: appId, id: userId } }))) {
      throw ApiError.field('user', 'user does not name a user of this app');
    }
    if (!(await this.connection.repository(ctx, Folder).exists({ where: { app_id: appId, id: folderId } }))) {
      throw ApiError.field('folder_id', 'folder_id does not name a folder of this app');
    }
    // One row per (user, folder): serialize concurrent invitations of the same pair.
    await lockRecord(this.connection.manager(ctx), DatabaseLock.FolderInvite, `${appId}:${userId}:${folderId}`);
    const key = { app_id: appId, parent_table: 'core_users', parent_id: userId, name: 'core_folders', linked: folderId };
    let expires = await this.related.renew(ctx, key, INVITE_DAYS);
    if (!expires) {
      // The expiry is the database's clock, as a renewal's: insert the link, then set it.
      await this.related.insert(ctx, { ...key, master_id: userId });
      expires = await this.related.renew(ctx, key, INVITE_DAYS);
    }
    return this.links.issue({ userId, appId, expires: new Date(expires!) });
  }

  /** The folders the user may access now: the user's live core_folders links whose folder is one of the app's. */
  async limits(ctx: RequestContext, userId: number): Promise<{ linked: number }[]> {
    const linked = await this.related.activeLinked(ctx, ctx.appId, userId, 'core_folders');
    if (linked.length === 0) return [];
    const folders = await this.connection
      .repository(ctx, Folder)
      .createQueryBuilder('f')
      .select('f.id', 'id')
      .where('f.app_id = :appId AND f.id IN (:...linked)', { appId: ctx.appId, linked })
      .getRawMany<{ id: number }>();
    const mine = new Set(folders.map((f) => f.id));
    return linked.filter((id) => mine.has(id)).map((id) => ({ linked: id }));
  }
}
