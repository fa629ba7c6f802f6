/** The versioning module's public surface: import from here, not from its files. */
export { VersioningModule } from './versioning.module';
export { insertFirstVersion } from './core-data';
export type { NewVersionRecord } from './core-data';
export { isLifecycleStatus, LIFECYCLE_STATUSES } from './lifecycle';
export type { LifecycleStatus } from './lifecycle';
export { NEVER_CONTENT_TABLES, TableCatalog } from './table-catalog.service';
export type { CatalogColumn, ColumnKind, RegisteredTable } from './table-catalog.service';
export { clientDataError, MAX_TEXT_VALUE, toColumnValue } from './column-values';
export { ContentService } from './content.service';
export { ProductCatalog } from './product-catalog.service';
export type { PublishedProduct } from './product-catalog.service';
