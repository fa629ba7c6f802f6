import { Module } from '@nestjs/common';
import { VersioningModule } from '../versioning/versioning.module';
import { DataRowsController } from './data-rows.controller';
import { DataRowsService } from './data-rows.service';
import { RelatedService } from './related.service';
import { OptionalPrincipalGuard } from './optional-principal.guard';

/** POST /getDataRows (the generic, allow-listed row query) and POST /addrelated. */
@Module({
  imports: [VersioningModule],
  controllers: [DataRowsController],
  providers: [DataRowsService, RelatedService, OptionalPrincipalGuard],
})
export class DataRowsModule {}
