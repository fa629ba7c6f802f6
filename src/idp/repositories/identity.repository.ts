import { Injectable } from '@nestjs/common';
import { AuthTable } from '../../auth';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { Identity } from '../entities/identity.entity';

/** An IdP account within (app, user table): the provider and its subject (`sub`). */
export interface IdentityKey {
  table: AuthTable;
  provider: string;
  sub: string;
}

/** Every query on core_identities, within `ctx.appId`. */
@Injectable()
export class IdentityRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  find(ctx: RequestContext, key: IdentityKey): Promise<Pick<Identity, 'id' | 'user_id'> | null> {
    return this.connection
      .repository(ctx, Identity)
      .createQueryBuilder('i')
      .select(['i.id', 'i.user_id'])
      .where('i.app_id = :appId AND i.auth_table = :table AND i.provider = :provider AND i.provider_user_id = :sub', {
        appId: ctx.appId,
        ...key,
      })
      .getOne();
  }

  /** Deletes the identity if it still links `userId`. */
  async delete(ctx: RequestContext, id: number, userId: number): Promise<void> {
    await this.connection
      .repository(ctx, Identity)
      .createQueryBuilder()
      .delete()
      .where('id = :id AND user_id = :userId AND app_id = :appId', { id, userId, appId: ctx.appId })
      .execute();
  }

  /** Links the IdP account to `userId` unless it is linked already (ON CONFLICT DO NOTHING); whether this inserted it. */
  async insert(ctx: RequestContext, key: IdentityKey, userId: number, email: string | null): Promise<boolean> {
    const inserted = await this.connection
      .repository(ctx, Identity)
      .createQueryBuilder()
      .insert()
      .values({ app_id: ctx.appId, auth_table: key.table, provider: key.provider, provider_user_id: key.sub, user_id: userId, email })
      .orIgnore()
      .returning(['id'])
      .execute();
    return (inserted.raw as unknown[]).length > 0;
  }
}
