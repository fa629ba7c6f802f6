import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { CoreData } from '../entities/core-data.entity';
import { Product } from '../entities/product.entity';
import { VersionVisibility } from '../version-visibility';

const PRODUCTS = 'core_products';
const PUBLISHED_NOW = VersionVisibility.publishedNow('d');

/** What an order item copies from the published version of a product, as the database returns it. */
export interface PublishedProductRow {
  masterId: number;
  versionId: number;
  title: string | null;
  price: number;
  tax: number;
  bond: number;
  IsDigital: number;
  IsEvent: number;
}

/** core_products read through its version chains: only the app's own records. */
@Injectable()
export class ProductRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** The published-now versions of the app's products `masterIds`, one per product (absent when none is published). */
  publishedMany(ctx: RequestContext, masterIds: number[]): Promise<PublishedProductRow[]> {
    return (
      this.connection
        .repository(ctx, CoreData)
        .createQueryBuilder('d')
        .innerJoin(Product, 'p', 'p.id = d.Current_ID AND p.app_id = d.Shop_ID')
        // Publishing live resets the record's other versions, so one version is published; should two ever
        // be, the newest wins (DISTINCT ON keeps the first row per master in ID DESC order).
        .distinctOn(['d.Master_ID'])
        .select('d.Master_ID', 'masterId')
        .addSelect('p.id', 'versionId')
        .addSelect('p.title', 'title')
        .addSelect('p.price', 'price')
        .addSelect('p.tax', 'tax')
        .addSelect('p.bond', 'bond')
        .addSelect('p.IsDigital', 'IsDigital')
        .addSelect('p.IsEvent', 'IsEvent')
        .where('d.Shop_ID = :appId AND d.Source_Table = :table AND d.Master_ID IN (:...ids)', {
          appId: ctx.appId,
          table: PRODUCTS,
          ids: masterIds,
        })
        .andWhere(PUBLISHED_NOW)
        .orderBy('d.Master_ID')
        .addOrderBy('d.ID', 'DESC')
        .getRawMany<PublishedProductRow>()
    );
  }
}
