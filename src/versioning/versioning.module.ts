import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContentTablesController } from './content-tables.controller';
import { ContentTablesService } from './content-tables.service';
import { ContentController } from './content.controller';
import { ContentService } from './content.service';
import { ExpiryJob } from './expiry.job';
import { LifecycleService } from './lifecycle.service';
import { ProductCatalogService } from './product-catalog.service';
import { ContentRowsRepository } from './repositories/content-rows.repository';
import { ContentStagesRepository } from './repositories/content-stages.repository';
import { ProductsRepository } from './repositories/products.repository';
import { TablesRepository } from './repositories/tables.repository';
import { VersionsRepository } from './repositories/versions.repository';
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
    TablesRepository,
    VersionsRepository,
    ContentRowsRepository,
    ProductsRepository,
    ContentStagesRepository,
    ContentTablesService,
  ],
  exports: [TableCatalogService, ContentService, ProductCatalogService],
})
export class VersioningModule {}
