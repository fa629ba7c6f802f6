import { Injectable } from '@nestjs/common';
import { RequestContext } from '../common/request-context';
import { ProductRepository } from './repositories/product.repository';

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

/**
 * The shop's view of core_products: which version of a product is for sale now. Only the app's own
 * records: another app's master id is simply not found.
 */
@Injectable()
export class ProductCatalogService {
  constructor(private readonly products: ProductRepository) {}

  /** The version of the app's product `masterId` that readers see as published now, or null. */
  async published(ctx: RequestContext, masterId: number): Promise<PublishedProduct | null> {
    return (await this.publishedMany(ctx, [masterId])).get(masterId) ?? null;
  }

  /** The published versions of several products in one read, by master id (products not published now are absent). */
  async publishedMany(ctx: RequestContext, masterIds: number[]): Promise<Map<number, PublishedProduct>> {
    const ids = [...new Set(masterIds.filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647))];
    if (ids.length === 0) return new Map();
    const rows = await this.products.publishedMany(ctx, ids);
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
