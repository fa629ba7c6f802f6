import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/api-error';
import { FieldError } from '../../common/envelope';
import { RequestContext } from '../../common/request-context';
import { ProductCatalogService, PublishedProduct } from '../../versioning';
import { CartLine, MAX_QUANTITY } from './cart.dto';
import { Order } from '../entities';
import { OrderAccessService, OrderRef } from '../order-access.service';
import { orderItemMachine, NEW_ITEM_STATUS } from '../order-item-transitions';
import { MAX_ORDER_TOTAL } from '../order-totals';
import { labelOf, requireTransition } from '../order-transitions';
import { OrderRepository } from '../repositories/order.repository';

/** A checked line: the product version it adds. */
interface ResolvedLine {
  line: CartLine;
  product: PublishedProduct;
}

/**
 * The cart of a New order: addCart, removeCart, and the lines createOrder starts it with. Every change runs
 * in the route's transaction with the order row locked (OrderAccessService.load with lock), so concurrent
 * changes of one cart take turns and the total is recomputed from the items each time: no update is lost.
 *
 * Adding a product that the cart already holds as a Pending, non-gift line of the same product version
 * raises that line's Qty (at most MAX_QUANTITY); a gift line (redeemStatus set) is always a line of its
 * own, and after the product was republished its new version gets a new line at its new price.
 */
@Injectable()
export class CartService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly access: OrderAccessService,
    private readonly catalog: ProductCatalogService,
  ) {}

  /**
   * Checks lines against the products published now: the product must be a published product of the
   * request's app, and the price must be its current price (a client never sets its own). Every failing
   * field is reported in one 400.
   */
  async resolve(ctx: RequestContext, lines: CartLine[]): Promise<ResolvedLine[]> {
    const products = await this.catalog.publishedMany(
      ctx,
      lines.map((l) => l.productID),
    );
    const errors: FieldError[] = [];
    const resolved: ResolvedLine[] = [];
    for (const line of lines) {
      const product = products.get(line.productID);
      if (!product) {
        errors.push({ field: line.fields.productID, message: `Product ${line.productID} is not a published product of this app` });
        continue;
      }
      if (line.price !== product.price) {
        errors.push({
          field: line.fields.price,
          message: `Price ${line.price} does not match the product's current price (${product.price} cents)`,
        });
        continue;
      }
      resolved.push({ line, product });
    }
    if (errors.length) throw ApiError.validation(errors);
    return resolved;
  }

  /**
   * Adds checked lines to order `orderId` (locked by the caller, status New) and recomputes its total.
   * `totalField` names the request field a too-large total is blamed on.
   */
  async addResolved(ctx: RequestContext, orderId: number, lines: ResolvedLine[], totalField: string): Promise<number> {
    for (const { line, product } of lines) {
      const gift = line.redeemStatus ?? null;
      if (!gift) {
        const rows = await this.orders.raiseQty(ctx, orderId, product.versionId, line.quantity, orderItemMachine.from('changeQty'));
        if (rows.length) {
          if (rows.some((r) => Number(r.Qty) > MAX_QUANTITY)) {
            throw ApiError.field(line.fields.quantity, `The cart would hold more than ${MAX_QUANTITY} units of product ${line.productID}`);
          }
          continue;
        }
      }
      await this.orders.insertItem(ctx, {
        Order_ID: orderId,
        ItemStatus: NEW_ITEM_STATUS,
        IsDigital: product.IsDigital,
        IsEvent: product.IsEvent,
        RedeemStatus: gift,
        product_ID: product.versionId,
        product_mid: product.masterId,
        Qty: line.quantity,
        Price: product.price,
        title: product.title.slice(0, 500),
        tax: product.tax,
        bond: product.bond,
      });
    }
    return this.recompute(ctx, orderId, totalField);
  }

  /** addCart: the order named by `ref`, locked, must be New; the lines are checked, added, the total recomputed. */
  async add(ctx: RequestContext, ref: OrderRef, lines: CartLine[], totalField: string): Promise<Order> {
    const order = await this.access.load(ctx, ref, { lock: true, reconcile: true });
    requireTransition('editCart', order.orderstatus);
    const resolved = await this.resolve(ctx, lines);
    await this.addResolved(ctx, order.id, resolved, totalField);
    return order;
  }

  /**
   * removeCart: deletes the Pending items of product `productMasterId` (gift lines included) from the
   * order. Removing a product the cart does not hold changes nothing (`removed` 0). When no item other
   * than Cancelled ones is left, the order is reset to New (the `emptyCart` transition).
   */
  async remove(ctx: RequestContext, ref: OrderRef, productMasterId: number): Promise<{ order: Order; removed: number }> {
    const order = await this.access.load(ctx, ref, { lock: true, reconcile: true });
    requireTransition('editCart', order.orderstatus);
    const removed = await this.orders.deleteItems(ctx, order.id, productMasterId, orderItemMachine.from('remove'));
    if (removed === 0) return { order, removed };

    const left = await this.orders.countCountedItems(ctx, order.id);
    if (left === 0) {
      const to = requireTransition('emptyCart', order.orderstatus).to ?? order.orderstatus;
      await this.orders.set(ctx, order.id, { orderstatus: to, orderstatuslabel: labelOf(to) });
    }
    await this.recompute(ctx, order.id, 'productID');
    return { order, removed };
  }

  private async recompute(ctx: RequestContext, orderId: number, totalField: string): Promise<number> {
    const total = await this.orders.recomputeTotal(ctx, orderId);
    if (total === null) throw ApiError.field(totalField, `The order total would exceed ${MAX_ORDER_TOTAL} cents`);
    return total;
  }
}
