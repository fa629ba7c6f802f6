import { Module } from '@nestjs/common';
import { VersioningModule } from '../versioning';
import { DataRowsController } from './data-rows.controller';
import { DataRowsService } from './data-rows.service';
import { RelatedService } from './related.service';
import { DataRowRepository } from './repositories/data-row.repository';

/** POST /getDataRows (the generic, allow-listed row query) and POST /addrelated. */
@Module({
  imports: [VersioningModule],
  controllers: [DataRowsController],
  providers: [DataRowsService, RelatedService, DataRowRepository],
})
export class DataRowsModule {}
