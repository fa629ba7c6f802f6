import { Injectable } from '@nestjs/common';
import { In, QueryDeepPartialEntity } from 'typeorm';
import { RequestContext } from '../../common/request-context';
import { idOfTerm, prefixPattern } from '../../common/search';
import { TransactionalConnection } from '../../database/transactional-connection';
import { GIFT_REDEEM_STATUSES, ItemStatus, Order, OrderItem, OrderStatus, PaymentStatus } from '../entities';
import { MAX_ORDER_TOTAL, UNCOUNTED_ITEM_STATUSES } from '../order-totals';

/** The order total of `:orderId` in SQL, in bigint so no product of integers overflows (order-totals.ts's orderTotal). */
const SUM_SQL =
  `(SELECT COALESCE(SUM(i."Qty"::bigint * (i."Price"::bigint + i."bond")), 0) FROM core_order_items i ` +
  `WHERE i."Order_ID" = :orderId AND i."ItemStatus" NOT IN (:...uncounted))`;

/**
 * listOrders' search: each alternative is the expression of one index of migration 1764002350000 (app_id
 * first, then the lower-cased text with text_pattern_ops), so `LIKE 'term%'` is an index range whatever the
 * database's collation, and the alternatives are one BitmapOr; a number also matches the order id (primary key).
 */
export const ORDER_SEARCH_COLUMNS = [
  `lower(o."BillingEmail")`,
  `lower(o."BillingLastName")`,
  `lower(COALESCE(o."BillingFirstName", '') || ' ' || COALESCE(o."BillingLastName", ''))`,
] as const;

/** listOrders' filters and page. */
export interface OrderListQuery {
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  from?: string;
  to?: string;
  email?: string;
  /** Trimmed, blank-free: the order id exactly, or the start of the billing email or name (ORDER_SEARCH). */
  search?: string;
  /** The staff's customer page: that customer's orders (core_orders_app_customer_idx). */
  customerId?: number;
  offset: number;
  limit: number;
}

/**
 * The order aggregate: core_orders and its core_order_items. Every statement names the context's app and
 * runs on the context's transaction when its edge opened one. Locking reads take the order row FOR UPDATE:
 * writers of one order take turns, and what a caller checked under the lock stays true until it commits.
 */
@Injectable()
export class OrderRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** The app's order `orderId`; `lock`: FOR UPDATE until the transaction ends (a lock outside one would end at once: refused). */
  findOne(ctx: RequestContext, orderId: number, lock = false): Promise<Order | null> {
    const query = (lock ? this.connection.transactionManager(ctx).getRepository(Order) : this.connection.repository(ctx, Order))
      .createQueryBuilder('o')
      .where('o.id = :orderId AND o.app_id = :appId', { orderId, appId: ctx.appId });
    if (lock) query.setLock('pessimistic_write');
    return query.getOne();
  }

  findOneOrFail(ctx: RequestContext, orderId: number): Promise<Order> {
    return this.connection.repository(ctx, Order).findOneByOrFail({ id: orderId, app_id: ctx.appId });
  }

  /**
   * The app of the order paid with this intent, across apps (the one query not scoped by `ctx.appId`): the
   * payment webhook asks it before it knows its tenant (a refund event of the provider's dashboard names
   * only the intent), to choose the secret its signature is checked with.
   */
  async appPaidWith(ctx: RequestContext, intentId: string): Promise<number | null> {
    const order = await this.connection.repository(ctx, Order).findOne({ select: { app_id: true }, where: { AuthCode: intentId } });
    return order?.app_id ?? null;
  }

  /**
   * The app's order a refund is about, locked: order `orderId` when given, else the order paid with
   * `intentId` (null when neither is known).
   */
  lockForRefund(ctx: RequestContext, orderId: number | null, intentId: string | null): Promise<Order | null> {
    const query = this.connection
      .transactionManager(ctx)
      .getRepository(Order)
      .createQueryBuilder('o')
      .where('o.app_id = :appId', { appId: ctx.appId })
      .setLock('pessimistic_write');
    if (orderId) query.andWhere('o.id = :orderId', { orderId });
    else if (intentId) query.andWhere('o."AuthCode" = :intent', { intent: intentId });
    else return Promise.resolve(null);
    return query.getOne();
  }

  /** A new order of the app; its id. */
  async insert(ctx: RequestContext, values: QueryDeepPartialEntity<Order>): Promise<number> {
    const inserted = await this.connection
      .repository(ctx, Order)
      .createQueryBuilder()
      .insert()
      .values({ ...values, app_id: ctx.appId })
      .returning(['id'])
      .execute();
    return (inserted.raw as { id: number }[])[0].id;
  }

  /** Sets `values` on the app's order. */
  async set(ctx: RequestContext, orderId: number, values: QueryDeepPartialEntity<Order>): Promise<void> {
    await this.connection
      .repository(ctx, Order)
      .createQueryBuilder()
      .update()
      .set(values)
      .where('id = :id AND app_id = :appId', { id: orderId, appId: ctx.appId })
      .execute();
  }

  /**
   * Sets `values` only while the order's status is one of `from` (and, with `placeholderOnly`, while its
   * customer is still a guest's placeholder); whether it did.
   */
  async setWhileIn(
    ctx: RequestContext,
    orderId: number,
    from: readonly OrderStatus[],
    values: QueryDeepPartialEntity<Order>,
    placeholderOnly = false,
  ): Promise<boolean> {
    const result = await this.connection
      .repository(ctx, Order)
      .createQueryBuilder()
      .update()
      .set(values)
      .where(`id = :id AND app_id = :appId AND orderstatus IN (:...from)${placeholderOnly ? ' AND customer_is_placeholder' : ''}`, {
        id: orderId,
        appId: ctx.appId,
        from,
      })
      .execute();
    return Boolean(result.affected);
  }

  /** As setWhileIn, answering the order as the UPDATE left it (null: its status was no longer one of `from`). */
  async updateWhileIn(
    ctx: RequestContext,
    orderId: number,
    from: readonly OrderStatus[],
    values: QueryDeepPartialEntity<Order>,
  ): Promise<Order | null> {
    const result = await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .update(Order)
      .set(values)
      .where('id = :id AND app_id = :appId AND orderstatus IN (:...from)', { id: orderId, appId: ctx.appId, from })
      .returning('*')
      .execute();
    const row = (result.raw as Order[])[0];
    return row ? Object.assign(new Order(), row) : null;
  }

  /**
   * After a change of the cart: sets the order's total to the sum of its items and raises its cart_version,
   * in one UPDATE (callers hold the order row's lock, so the sum sees every committed item change). The new
   * total, or null, leaving the order unchanged, when the sum would exceed MAX_ORDER_TOTAL.
   */
  async recomputeTotal(ctx: RequestContext, orderId: number): Promise<number | null> {
    const result = await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .update(Order)
      .set({ total: () => SUM_SQL, cart_version: () => 'cart_version + 1' })
      .where(`id = :orderId AND app_id = :appId AND ${SUM_SQL} <= :max`, {
        orderId,
        appId: ctx.appId,
        uncounted: UNCOUNTED_ITEM_STATUSES,
        max: MAX_ORDER_TOTAL,
      })
      .returning(['total'])
      .execute();
    const row = (result.raw as { total: number }[])[0];
    return row ? Number(row.total) : null;
  }

  /** One page of the app's orders, newest first (every filter is a column of an index that starts with app_id). */
  list(ctx: RequestContext, query: OrderListQuery): Promise<Order[]> {
    const qb = this.connection
      .repository(ctx, Order)
      .createQueryBuilder('o')
      .where('o.app_id = :appId', { appId: ctx.appId })
      .orderBy('o.created', 'DESC')
      .addOrderBy('o.id', 'DESC')
      .offset(query.offset)
      .limit(query.limit);
    if (query.status) qb.andWhere('o.orderstatus = :status', { status: query.status });
    if (query.paymentStatus) qb.andWhere('o.payment_status = :paymentStatus', { paymentStatus: query.paymentStatus });
    if (query.email) qb.andWhere('o."BillingEmail" = :email', { email: query.email });
    if (query.customerId !== undefined) qb.andWhere('o.customer_id = :customerId', { customerId: query.customerId });
    if (query.from) qb.andWhere('o.created >= :from', { from: query.from });
    if (query.to) qb.andWhere('o.created < :to', { to: query.to });
    if (query.search) {
      const id = idOfTerm(query.search);
      const alternatives = ORDER_SEARCH_COLUMNS.map((column) => `${column} LIKE :searchPrefix`);
      if (id !== null) alternatives.unshift('o.id = :searchId');
      qb.andWhere(`(${alternatives.join(' OR ')})`, { searchPrefix: prefixPattern(query.search), searchId: id });
    }
    return qb.getMany();
  }

  // Items.

  /** The order's items, oldest first. */
  itemsOf(ctx: RequestContext, orderId: number): Promise<OrderItem[]> {
    return this.connection.repository(ctx, OrderItem).find({ where: { Order_ID: orderId, app_id: ctx.appId }, order: { id: 'ASC' } });
  }

  /** The order's digital gift items (id, title, ItemStatus), oldest first. */
  giftItemsOf(ctx: RequestContext, orderId: number): Promise<Pick<OrderItem, 'id' | 'title' | 'ItemStatus'>[]> {
    return this.connection.repository(ctx, OrderItem).find({
      select: { id: true, title: true, ItemStatus: true },
      where: { Order_ID: orderId, app_id: ctx.appId, IsDigital: 1, RedeemStatus: In([...GIFT_REDEEM_STATUSES]) },
      order: { id: 'ASC' },
    });
  }

  /** How many items each order has, whatever their status. */
  async itemCounts(ctx: RequestContext, orderIds: number[]): Promise<Map<number, number>> {
    if (orderIds.length === 0) return new Map();
    const rows = await this.connection
      .repository(ctx, OrderItem)
      .createQueryBuilder('i')
      .select('i.Order_ID', 'orderId')
      .addSelect('count(*)::int', 'n')
      .where('i.app_id = :appId AND i.Order_ID IN (:...orderIds)', { appId: ctx.appId, orderIds })
      .groupBy('i.Order_ID')
      .getRawMany<{ orderId: number; n: number }>();
    return new Map(rows.map((row) => [Number(row.orderId), Number(row.n)]));
  }

  /** How many of the order's items have a status that counts towards its total. */
  countCountedItems(ctx: RequestContext, orderId: number): Promise<number> {
    return this.connection
      .repository(ctx, OrderItem)
      .createQueryBuilder('i')
      .where('i.Order_ID = :orderId AND i.app_id = :appId AND i.ItemStatus NOT IN (:...uncounted)', {
        orderId,
        appId: ctx.appId,
        uncounted: UNCOUNTED_ITEM_STATUSES,
      })
      .getCount();
  }

  async insertItem(ctx: RequestContext, values: QueryDeepPartialEntity<OrderItem>): Promise<void> {
    await this.connection.repository(ctx, OrderItem).insert({ ...values, app_id: ctx.appId });
  }

  /**
   * Raises the Qty of the order's non-gift line of product version `versionId` whose status is one of
   * `from`; the lines it changed (none: the cart holds no such line).
   */
  async raiseQty(
    ctx: RequestContext,
    orderId: number,
    versionId: number,
    quantity: number,
    from: readonly ItemStatus[],
  ): Promise<{ id: number; Qty: number }[]> {
    const raised = await this.connection
      .repository(ctx, OrderItem)
      .createQueryBuilder()
      .update()
      .set({ Qty: () => `"Qty" + :qty` })
      .where(
        `"Order_ID" = :orderId AND app_id = :appId AND "product_ID" = :versionId AND "ItemStatus" IN (:...from) AND "RedeemStatus" IS NULL`,
        { qty: quantity, orderId, appId: ctx.appId, versionId, from },
      )
      .returning(['id', 'Qty'])
      .execute();
    return raised.raw as { id: number; Qty: number }[];
  }

  /** Deletes the order's items of product `productMasterId` whose status is one of `from`; how many. */
  async deleteItems(ctx: RequestContext, orderId: number, productMasterId: number, from: readonly ItemStatus[]): Promise<number> {
    const deleted = await this.connection
      .repository(ctx, OrderItem)
      .createQueryBuilder()
      .delete()
      .where(`"Order_ID" = :orderId AND app_id = :appId AND product_mid = :productMasterId AND "ItemStatus" IN (:...from)`, {
        orderId,
        appId: ctx.appId,
        productMasterId,
        from,
      })
      .execute();
    return deleted.affected ?? 0;
  }

  /** Moves the order's items whose status is one of `from` to `to`; how many. */
  async setItemStatus(ctx: RequestContext, orderId: number, from: readonly ItemStatus[], to: ItemStatus): Promise<number> {
    const result = await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .update(OrderItem)
      .set({ ItemStatus: to })
      .where('"Order_ID" = :orderId AND app_id = :appId AND "ItemStatus" IN (:...from)', { orderId, appId: ctx.appId, from })
      .execute();
    return result.affected ?? 0;
  }
}
