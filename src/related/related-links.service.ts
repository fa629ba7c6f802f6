import { Injectable } from '@nestjs/common';
import { RequestContext } from '../common/request-context';
import { Related } from './entities/related.entity';
import { NewRelated, RelatedKey, RelatedRepository } from './repositories/related.repository';

export type { NewRelated, RelatedKey } from './repositories/related.repository';

/**
 * core_related for the other modules (notification log links, folder invitations, token ownership): they
 * never touch the table itself. Every link belongs to the context's app.
 */
@Injectable()
export class RelatedLinksService {
  constructor(private readonly related: RelatedRepository) {}

  insert(ctx: RequestContext, link: NewRelated): Promise<Related> {
    return this.related.insert(ctx, link);
  }

  /** The oldest link `key` of the app, or null. */
  first(ctx: RequestContext, key: RelatedKey): Promise<Related | null> {
    return this.related.first(ctx, key);
  }

  /** Sets `expires` to now plus `days` on the link `key`; the new expiry, or null when there is no such link. */
  renew(ctx: RequestContext, key: RelatedKey, days: number): Promise<Date | null> {
    return this.related.renew(ctx, key, days);
  }

  /**
   * The `linked` ids of the app's links named `name` from the record `masterId` of `parentTable`, newest
   * first. A link names its parent by master_id (/addrelated sets it) or only by parent_id (fixture rows
   * leave master_id null): both count. Expired links do not.
   */
  linkedFrom(ctx: RequestContext, parentTable: string, masterId: number, name: string): Promise<number[]> {
    return this.related.linkedFrom(ctx, parentTable, masterId, name);
  }

  /** The `linked` ids of the app's links named `name` from the record `masterId` that have not expired. */
  activeLinked(ctx: RequestContext, masterId: number, name: string): Promise<number[]> {
    return this.related.activeLinked(ctx, masterId, name);
  }
}
