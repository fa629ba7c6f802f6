import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { Folder } from '../entities/folder.entity';

/** Every query on core_folders, within `ctx.appId`. */
@Injectable()
export class FolderRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  exists(ctx: RequestContext, id: number): Promise<boolean> {
    return this.connection.repository(ctx, Folder).exists({ where: { app_id: ctx.appId, id } });
  }

  /** The ids among `ids` that are folders of the app. */
  async existing(ctx: RequestContext, ids: number[]): Promise<number[]> {
    const folders = await this.connection
      .repository(ctx, Folder)
      .createQueryBuilder('f')
      .select('f.id', 'id')
      .where('f.app_id = :appId AND f.id IN (:...ids)', { appId: ctx.appId, ids })
      .getRawMany<{ id: number }>();
    return folders.map((f) => f.id);
  }
}
