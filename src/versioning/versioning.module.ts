import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContentController } from './content.controller';
import { ContentService } from './content.service';
import { ExpiryJob } from './expiry.job';
import { LifecycleService } from './lifecycle.service';
import { ProductCatalog } from './product-catalog.service';
import { TableCatalog } from './table-catalog.service';
import { CoreData } from './entities/core-data.entity';
import { CoreTable } from './entities/core-table.entity';
import { Product } from './entities/product.entity';

/** core_data version chains, the record lifecycle, the admin content endpoints and the expiry job. */
@Module({
  imports: [TypeOrmModule.forFeature([CoreData, CoreTable, Product])],
  controllers: [ContentController],
  providers: [TableCatalog, ContentService, LifecycleService, ExpiryJob, ProductCatalog],
  exports: [TableCatalog, ContentService, ProductCatalog],
})
export class VersioningModule {}
