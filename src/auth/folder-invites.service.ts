import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { RequestContext } from '../common/request-context';
import { DatabaseLock, lockRecord } from '../database/locks';
import { inTransaction } from '../database/transaction';
import { UserLinkTokens } from './user-link-tokens.service';

export const INVITE_DAYS = 60;

/**
 * Folder access of core_users (SPEC /auth/invite-link, /auth/getFolderLimits): a core_related row
 * parent_table core_users, parent_id and master_id the user, name core_folders, linked the folder, with
 * `expires` 60 days after the invitation.
 */
@Injectable()
export class FolderInvitesService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource, private readonly links: UserLinkTokens) {}

  /** Grants (or renews) the user's access to the folder and returns the userId link token with the same expiry. */
  async invite(ctx: RequestContext, userId: number, folderId: number): Promise<string> {
    const expires = await inTransaction(this.dataSource, async (em) => {
      const [user] = await em.query('SELECT id FROM core_users WHERE app_id = $1 AND id = $2', [ctx.appId, userId]);
      if (!user) throw ApiError.field('user', 'user does not name a user of this app');
      const [folder] = await em.query('SELECT id FROM core_folders WHERE app_id = $1 AND id = $2', [ctx.appId, folderId]);
      if (!folder) throw ApiError.field('folder_id', 'folder_id does not name a folder of this app');
      // One row per (user, folder): serialize concurrent invitations of the same pair.
      await lockRecord(em, DatabaseLock.FolderInvite, `${ctx.appId}:${userId}:${folderId}`);
      const renewed = await em.query(
        `UPDATE core_related SET expires = now() + make_interval(days => $4)
          WHERE app_id = $1 AND parent_table = 'core_users' AND parent_id = $2 AND name = 'core_folders' AND linked = $3
          RETURNING expires`,
        [ctx.appId, userId, folderId, INVITE_DAYS],
      );
      const rows = Array.isArray(renewed[0]) ? renewed[0] : renewed;
      if (rows.length > 0) return rows[0].expires as Date;
      const [created] = await em.query(
        `INSERT INTO core_related (app_id, parent_table, parent_id, name, linked, master_id, expires)
         VALUES ($1, 'core_users', $2, 'core_folders', $3, $2, now() + make_interval(days => $4)) RETURNING expires`,
        [ctx.appId, userId, folderId, INVITE_DAYS],
      );
      return created.expires as Date;
    });
    return this.links.issue({ userId, appId: ctx.appId, expires: new Date(expires) });
  }

  /** The folders the user may access now: core_related rows whose master_id is the user, joined with the app's folders. */
  async limits(ctx: RequestContext, userId: number): Promise<{ linked: number }[]> {
    return this.dataSource.query(
      `SELECT r.linked FROM core_related r
         JOIN core_folders f ON f.id = r.linked AND f.app_id = r.app_id
        WHERE r.app_id = $1 AND r.master_id = $2 AND r.name = 'core_folders' AND (r.expires IS NULL OR r.expires > now())
        ORDER BY r.linked`,
      [ctx.appId, userId],
    );
  }
}
