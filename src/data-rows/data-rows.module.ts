import { Module } from '@nestjs/common';
import { VersioningModule } from '../versioning';
import { DataRowsController } from './data-rows.controller';
import { DataRowsService } from './data-rows.service';
import { RelatedService } from './related.service';
import { DataRowsRepository } from './repositories/data-rows.repository';

/** POST /getDataRows (the generic, allow-listed row query) and POST /addrelated. */
@Module({
  imports: [VersioningModule],
  controllers: [DataRowsController],
  providers: [DataRowsService, RelatedService, DataRowsRepository],
})
export class DataRowsModule {}
