import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Related } from './entities/related.entity';
import { RelatedLinksService } from './related-links.service';
import { RelatedRepository } from './repositories/related.repository';

/**
 * core_related, the generic link table every domain uses (folder invitations, notification log links,
 * /addrelated, token templates of products). Its own module below the domains, so that none of them has to
 * import another domain module to write a link.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Related])],
  providers: [RelatedLinksService, RelatedRepository],
  exports: [RelatedLinksService],
})
export class RelatedModule {}
