/** The versioning module's public surface: import from here, not from its files. */
export { VersioningModule } from './versioning.module';
export { insertFirstVersion } from './repositories/version.repository';
export type { NewVersionRecord } from './repositories/version.repository';
export { isLifecycleStatus, LIFECYCLE_STATUSES } from './lifecycle';
export type { LifecycleStatus } from './lifecycle';
export { TableCatalogService } from './table-catalog.service';
export type { CatalogColumn, ColumnKind, RegisteredTable } from './table-catalog.service';
export { clientDataError, MAX_TEXT_VALUE, toColumnValue } from './column-values';
export { ContentService } from './content.service';
export { ProductCatalogService } from './product-catalog.service';
export type { PublishedProduct } from './product-catalog.service';
export { VERSION_META, VersionVisibility } from './version-visibility';
export type { ReadScope, VersionReading } from './version-visibility';
