import { Module } from '@nestjs/common';
import { ContentController } from './content.controller';
import { ContentService } from './content.service';
import { ExpiryJob } from './expiry.job';
import { LifecycleService } from './lifecycle.service';
import { TableCatalog } from './table-catalog.service';

/** core_data version chains, the record lifecycle, the admin content endpoints and the expiry job. */
@Module({
  controllers: [ContentController],
  providers: [TableCatalog, ContentService, LifecycleService, ExpiryJob],
  exports: [TableCatalog, ContentService],
})
export class VersioningModule {}
