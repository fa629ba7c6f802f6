import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContentTablesController } from './content-tables.controller';
import { ContentTablesService } from './content-tables.service';
import { ContentController } from './content.controller';
import { ContentService } from './content.service';
import { ExpiryJob } from './expiry.job';
import { LifecycleService } from './lifecycle.service';
import { ProductCatalogService } from './product-catalog.service';
import { ContentRowRepository } from './repositories/content-row.repository';
import { ContentStageRepository } from './repositories/content-stage.repository';
import { ProductRepository } from './repositories/product.repository';
import { ContentTableRepository } from './repositories/content-table.repository';
import { VersionRepository } from './repositories/version.repository';
import { TableCatalogService } from './table-catalog.service';
import { CoreData } from './entities/core-data.entity';
import { CoreTable } from './entities/core-table.entity';
import { Product } from './entities/product.entity';

/** core_data version chains, the record lifecycle, the admin content endpoints and the expiry job. */
@Module({
  imports: [TypeOrmModule.forFeature([CoreData, CoreTable, Product])],
  controllers: [ContentController, ContentTablesController],
  providers: [
    TableCatalogService,
    ContentService,
    LifecycleService,
    ExpiryJob,
    ProductCatalogService,
    ContentTableRepository,
    VersionRepository,
    ContentRowRepository,
    ProductRepository,
    ContentStageRepository,
    ContentTablesService,
  ],
  exports: [TableCatalogService, ContentService, ProductCatalogService],
})
export class VersioningModule {}
