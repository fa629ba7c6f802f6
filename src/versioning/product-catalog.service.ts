import { Injectable } from '@nestjs/common';
import { TransactionScope } from '../database/transaction-scope';
import { TransactionalConnection } from '../database/transactional-connection';
import { CoreData } from './entities/core-data.entity';
import { Product } from './entities/product.entity';

/** A product as the shop sells it now: the version readers see as published, with what an order item copies. */
export interface PublishedProduct {
  /** The core_products row of the published version (an order item's product_ID). */
  versionId: number;
  /** The record's master id (an order item's product_mid, the `productID` clients send). */
  masterId: number;
  title: string;
  /** Unit price in cents, GST included. */
  price: number;
  /** GST per unit in cents (part of price). */
  tax: number;
  /** Bond or deposit per unit in cents (on top of price). */
  bond: number;
  IsDigital: 0 | 1;
  IsEvent: 0 | 1;
}

const PRODUCTS = 'core_products';

/**
 * Published now, exactly as /getDataRows reads `isPublished` (SPEC "Reading by lifecycle stage"): Published
 * = 1, Publish_Set_Date reached, Publish_Expire_Date not yet reached (or none), not expired.
 */
const PUBLISHED_NOW =
  'd.Published = 1 AND d.Publish_Set_Date <= now() AND (d.Publish_Expire_Date > now() OR d.Publish_Expire_Date IS NULL) AND d.IsExpired <> 1';

/**
 * The shop's view of core_products: which version of a product is for sale now. Only the app's own
 * records: another app's master id is simply not found.
 */
@Injectable()
export class ProductCatalog {
  constructor(private readonly connection: TransactionalConnection) {}

  /** The version of product `masterId` of app `appId` that readers see as published now, or null. */
  async published(scope: TransactionScope, appId: number, masterId: number): Promise<PublishedProduct | null> {
    return (await this.publishedMany(scope, appId, [masterId])).get(masterId) ?? null;
  }

  /** The published versions of several products in one read, by master id (products not published now are absent). */
  async publishedMany(scope: TransactionScope, appId: number, masterIds: number[]): Promise<Map<number, PublishedProduct>> {
    const ids = [...new Set(masterIds.filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647))];
    if (ids.length === 0) return new Map();
    const rows = await this.connection
      .repository(scope, CoreData)
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
      .where('d.Shop_ID = :appId AND d.Source_Table = :table AND d.Master_ID IN (:...ids)', { appId, table: PRODUCTS, ids })
      .andWhere(PUBLISHED_NOW)
      .orderBy('d.Master_ID')
      .addOrderBy('d.ID', 'DESC')
      .getRawMany<Record<string, unknown>>();
    return new Map(
      rows.map((row) => {
        const product: PublishedProduct = {
          versionId: Number(row.versionId),
          masterId: Number(row.masterId),
          title: String(row.title ?? ''),
          price: Number(row.price),
          tax: Number(row.tax),
          bond: Number(row.bond),
          IsDigital: Number(row.IsDigital) === 1 ? 1 : 0,
          IsEvent: Number(row.IsEvent) === 1 ? 1 : 0,
        };
        return [product.masterId, product];
      }),
    );
  }
}
