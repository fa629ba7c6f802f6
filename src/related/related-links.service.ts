import { Injectable } from '@nestjs/common';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';
import { Related } from './entities/related.entity';

export type NewRelated = Pick<Related, 'app_id' | 'parent_table' | 'parent_id' | 'name' | 'linked'> &
  Partial<Pick<Related, 'master_id' | 'expires'>>;
export type RelatedKey = Pick<Related, 'app_id' | 'parent_table' | 'parent_id' | 'name' | 'linked'>;

/** core_related for the other modules (notification log links, folder invitations): they never touch the table itself. */
@Injectable()
export class RelatedLinks {
  constructor(private readonly connection: TransactionalConnection) {}

  async insert(scope: TransactionScope, link: NewRelated): Promise<Related> {
    const repository = this.connection.repository(scope, Related);
    return repository.save(repository.create(link));
  }

  /** The oldest link `key` of the app, or null. */
  async first(scope: TransactionScope, key: RelatedKey): Promise<Related | null> {
    return this.connection.repository(scope, Related).findOne({ where: key, order: { id: 'ASC' } });
  }

  /** Sets `expires` to now plus `days` on the link `key`; the new expiry, or null when there is no such link. */
  async renew(scope: TransactionScope, key: RelatedKey, days: number): Promise<Date | null> {
    const result = await this.connection
      .repository(scope, Related)
      .createQueryBuilder()
      .update()
      .set({ expires: () => 'now() + make_interval(days => :days)' })
      .setParameter('days', days)
      .where(key)
      .returning(['expires'])
      .execute();
    const rows = result.raw as { expires: Date }[];
    return rows[0]?.expires ?? null;
  }

  /**
   * The `linked` ids of the app's links named `name` from the record `masterId` of `parentTable`, newest
   * first. A link names its parent by master_id (/addrelated sets it) or only by parent_id (fixture rows
   * leave master_id null): both count. Expired links do not.
   */
  async linkedFrom(scope: TransactionScope, appId: number, parentTable: string, masterId: number, name: string): Promise<number[]> {
    const rows = await this.connection
      .repository(scope, Related)
      .createQueryBuilder('r')
      .select('r.linked', 'linked')
      .where('r.app_id = :appId AND r.parent_table = :parentTable AND r.name = :name', { appId, parentTable, name })
      .andWhere('(r.master_id = :masterId OR r.parent_id = :masterId)', { masterId })
      .andWhere('(r.expires IS NULL OR r.expires > now())')
      .orderBy('r.id', 'DESC')
      .getRawMany<{ linked: number }>();
    return rows.map((r) => r.linked);
  }

  /** The `linked` ids of the app's links named `name` from the record `masterId` that have not expired. */
  async activeLinked(scope: TransactionScope, appId: number, masterId: number, name: string): Promise<number[]> {
    const rows = await this.connection
      .repository(scope, Related)
      .createQueryBuilder('r')
      .select('r.linked', 'linked')
      .where('r.app_id = :appId AND r.master_id = :masterId AND r.name = :name', { appId, masterId, name })
      .andWhere('(r.expires IS NULL OR r.expires > now())')
      .orderBy('r.linked')
      .getRawMany<{ linked: number }>();
    return rows.map((r) => r.linked);
  }
}
