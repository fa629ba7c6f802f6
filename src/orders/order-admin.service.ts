import { Injectable } from '@nestjs/common';
import { RequestContext } from '../common/request-context';
import { TransactionalConnection } from '../database/transactional-connection';
import { TokenIssuer } from '../tokens';
import { Order, OrderItem, OrderStatus, PaymentStatus } from './entities';
import { OrderAccess, OrderRef } from './order-access.service';
import { recomputeOrderTotal, UNCOUNTED_ITEM_STATUSES } from './order-totals';
import { requireTransition } from './order-transitions';
import { orderNumberOf } from './orders.service';
import { RefundsService } from './refunds.service';

export interface CancelAnswer {
  orderStatus: OrderStatus;
  paymentStatus: PaymentStatus | '';
  cancelledItems: number;
  refundID?: string;
}

export interface ListOrdersQuery {
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  from?: string;
  to?: string;
  email?: string;
  page?: number;
  perPage?: number;
}

export interface ListedOrder {
  _id: string;
  orderID: number;
  orderNumber: string;
  orderStatus: OrderStatus;
  paymentStatus: PaymentStatus | null;
  total: number;
  refundedTotal: number;
  currency: string;
  billingEmail: string | null;
  orderDate: Date | null;
  created: Date;
  items: number;
}

export const DEFAULT_PER_PAGE = 20;

/** The app admin's order routes: cancelOrder and listOrders (refundOrder is RefundsService's). */
@Injectable()
export class OrderAdminService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly access: OrderAccess,
    private readonly refunds: RefundsService,
    private readonly tokens: TokenIssuer,
  ) {}

  /**
   * cancelOrder: a Paid order is first refunded in full (what is left of it); then, under the order's lock,
   * every item not Cancelled becomes Cancelled and every token of the order expires. A New order's total
   * becomes 0 (its cart is empty); a Paid or Ordered order keeps its total (what was paid) and its status.
   */
  async cancel(ctx: RequestContext, ref: OrderRef, reason: string | null): Promise<CancelAnswer> {
    const refund = await this.refunds.refundRemainder(ctx, ref, reason);
    return this.connection.inTransaction(ctx, async (em) => {
      const order = await this.access.load(ctx, ref, { lock: true });
      requireTransition('cancel', order.orderstatus);
      const cancelled = await em
        .createQueryBuilder()
        .update(OrderItem)
        .set({ ItemStatus: 'Cancelled' })
        .where('"Order_ID" = :orderId AND app_id = :appId AND "ItemStatus" NOT IN (:...uncounted)', {
          orderId: order.id,
          appId: ctx.appId,
          uncounted: UNCOUNTED_ITEM_STATUSES,
        })
        .execute();
      if (order.orderstatus === 'New') await recomputeOrderTotal(em, order.id);
      else await this.tokens.expireOrderTokens(ctx, ctx.appId, order.id);
      const after = await em.getRepository(Order).findOneByOrFail({ id: order.id, app_id: ctx.appId });
      return {
        orderStatus: after.orderstatus,
        paymentStatus: after.payment_status ?? '',
        cancelledItems: cancelled.affected ?? 0,
        ...(refund ? { refundID: refund.refundID } : {}),
      };
    });
  }

  /**
   * listOrders: the app's orders, newest first, one page. Every filter is a column of an index that starts
   * with app_id and ends with (created DESC, id DESC), so a page reads about perPage index entries whatever
   * the number of orders (test/orders/order-admin.e2e.ts checks the plan).
   */
  async list(
    ctx: RequestContext,
    query: ListOrdersQuery,
  ): Promise<{ data: ListedOrder[]; paging: { page: number; perPage: number; hasMore: boolean } }> {
    const page = query.page ?? 1;
    const perPage = query.perPage ?? DEFAULT_PER_PAGE;
    const qb = this.connection
      .repository(ctx, Order)
      .createQueryBuilder('o')
      .where('o.app_id = :appId', { appId: ctx.appId })
      .orderBy('o.created', 'DESC')
      .addOrderBy('o.id', 'DESC')
      .offset((page - 1) * perPage)
      .limit(perPage + 1);
    if (query.status) qb.andWhere('o.orderstatus = :status', { status: query.status });
    if (query.paymentStatus) qb.andWhere('o.payment_status = :paymentStatus', { paymentStatus: query.paymentStatus });
    if (query.email) qb.andWhere('o."BillingEmail" = :email', { email: query.email });
    if (query.from) qb.andWhere('o.created >= :from', { from: query.from });
    if (query.to) qb.andWhere('o.created < :to', { to: query.to });
    const orders = await qb.getMany();
    const hasMore = orders.length > perPage;
    const shown = orders.slice(0, perPage);
    const counts = await this.itemCounts(
      ctx,
      shown.map((order) => order.id),
    );
    return {
      data: shown.map((order) => ({
        _id: this.access.encrypt(ctx, order.id),
        orderID: order.id,
        orderNumber: orderNumberOf(order.id),
        orderStatus: order.orderstatus,
        paymentStatus: order.payment_status,
        total: order.total,
        refundedTotal: order.refunded_total,
        currency: order.currency,
        billingEmail: order.BillingEmail,
        orderDate: order.order_date,
        created: order.created,
        items: counts.get(order.id) ?? 0,
      })),
      paging: { page, perPage, hasMore },
    };
  }

  /** How many items each order has (Cancelled ones included: the list shows what the order held). */
  private async itemCounts(ctx: RequestContext, orderIds: number[]): Promise<Map<number, number>> {
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
}
