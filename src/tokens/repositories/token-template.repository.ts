import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { TokenTemplate } from '../entities/token-template.entity';

/** core_token_template: what tokens issued for a product start with. */
@Injectable()
export class TokenTemplateRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** The app's templates among `ids` (in no particular order). */
  findMany(ctx: RequestContext, ids: number[]): Promise<TokenTemplate[]> {
    return this.connection.repository(ctx, TokenTemplate).find({ where: { app_id: ctx.appId, id: In(ids) } });
  }
}
