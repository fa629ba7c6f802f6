import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { Related } from '../entities/related.entity';

/** A link of the context's app, named without its app. */
export type RelatedKey = Pick<Related, 'parent_table' | 'parent_id' | 'name' | 'linked'>;
export type NewRelated = RelatedKey & Partial<Pick<Related, 'master_id' | 'expires'>>;

/** core_related: every statement names the context's app and runs on the context's transaction when its edge opened one. */
@Injectable()
export class RelatedRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  async insert(ctx: RequestContext, link: NewRelated): Promise<Related> {
    const repository = this.connection.repository(ctx, Related);
    return repository.save(repository.create({ ...link, app_id: ctx.appId }));
  }

  /** The oldest link `key`, or null. */
  first(ctx: RequestContext, key: RelatedKey): Promise<Related | null> {
    return this.connection.repository(ctx, Related).findOne({ where: { ...key, app_id: ctx.appId }, order: { id: 'ASC' } });
  }

  /** Sets `expires` to now plus `days` on the link `key`; the new expiry, or null when there is no such link. */
  async renew(ctx: RequestContext, key: RelatedKey, days: number): Promise<Date | null> {
    const result = await this.connection
      .repository(ctx, Related)
      .createQueryBuilder()
      .update()
      .set({ expires: () => 'now() + make_interval(days => :days)' })
      .setParameter('days', days)
      .where({ ...key, app_id: ctx.appId })
      .returning(['expires'])
      .execute();
    const rows = result.raw as { expires: Date }[];
    return rows[0]?.expires ?? null;
  }

  /**
   * The `linked` ids of the links named `name` from the record `masterId` of `parentTable`, newest first,
   * by master_id or by parent_id; expired links left out.
   */
  async linkedFrom(ctx: RequestContext, parentTable: string, masterId: number, name: string): Promise<number[]> {
    const rows = await this.connection
      .repository(ctx, Related)
      .createQueryBuilder('r')
      .select('r.linked', 'linked')
      .where('r.app_id = :appId AND r.parent_table = :parentTable AND r.name = :name', { appId: ctx.appId, parentTable, name })
      .andWhere('(r.master_id = :masterId OR r.parent_id = :masterId)', { masterId })
      .andWhere('(r.expires IS NULL OR r.expires > now())')
      .orderBy('r.id', 'DESC')
      .getRawMany<{ linked: number }>();
    return rows.map((r) => r.linked);
  }

  /** The `linked` ids of the links named `name` from the record `masterId` that have not expired, ascending. */
  async activeLinked(ctx: RequestContext, masterId: number, name: string): Promise<number[]> {
    const rows = await this.connection
      .repository(ctx, Related)
      .createQueryBuilder('r')
      .select('r.linked', 'linked')
      .where('r.app_id = :appId AND r.master_id = :masterId AND r.name = :name', { appId: ctx.appId, masterId, name })
      .andWhere('(r.expires IS NULL OR r.expires > now())')
      .orderBy('r.linked')
      .getRawMany<{ linked: number }>();
    return rows.map((r) => r.linked);
  }
}
