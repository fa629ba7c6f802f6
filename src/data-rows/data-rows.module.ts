import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Related } from './entities/related.entity';
import { VersioningModule } from '../versioning';
import { DataRowsController } from './data-rows.controller';
import { DataRowsService } from './data-rows.service';
import { RelatedLinks } from './related-links.service';
import { RelatedService } from './related.service';

/** POST /getDataRows (the generic, allow-listed row query) and POST /addrelated. */
@Module({
  imports: [TypeOrmModule.forFeature([Related]), VersioningModule],
  controllers: [DataRowsController],
  providers: [DataRowsService, RelatedService, RelatedLinks],
  exports: [RelatedLinks],
})
export class DataRowsModule {}
