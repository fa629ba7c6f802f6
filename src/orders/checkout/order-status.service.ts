import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TokenIssuerService, TokenStatus } from '../../tokens';
import { OrderStatusAnswer, statusOf } from './checkout.service';
import { OrderAccessService } from '../order-access.service';
import { counts } from '../order-totals';
import { isCompleted } from '../order-transitions';
import { OrderRepository } from '../repositories/order.repository';

export interface GiftToken {
  id: number;
  token_value: string;
  product_id: number;
  order_item_id: number;
  status: TokenStatus;
  product_title: string;
}

/** orderStatus's data: refundedTotal (cents refunded so far), paymentError while the last payment attempt failed, giftTokens once paid. */
export type OrderStatusData = OrderStatusAnswer & { refundedTotal: number; paymentError?: string; giftTokens?: GiftToken[] };

/** GET /ecommerce/orderStatus/:id: what a client polls after checkout until the webhook completed the order. */
@Injectable()
export class OrderStatusService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly access: OrderAccessService,
    private readonly tokens: TokenIssuerService,
  ) {}

  /**
   * The order named by an encrypted id (a tampered or another app's id: Order not found). giftTokens is
   * present once the order is paid (payment_status Success) and has gift digital items that are not
   * Cancelled: their tokens, with the item's title.
   */
  async status(ctx: RequestContext, encryptedId: string): Promise<OrderStatusData> {
    const order = await this.access.load(ctx, this.access.encryptedRef(ctx, encryptedId));
    const answer: OrderStatusData = { ...statusOf(order), refundedTotal: order.refunded_total };
    if (order.payment_status === 'Failed' && order.payment_error) answer.paymentError = order.payment_error;
    if (!isCompleted(order.orderstatus) || !order.payment_status || order.payment_status === 'Failed') return answer;
    const gifts = (await this.orders.giftItemsOf(ctx, order.id)).filter(counts);
    if (gifts.length === 0) return answer;
    const titles = new Map(gifts.map((item) => [item.id, item.title]));
    const rows = await this.tokens.ofOrderItems(
      ctx,
      gifts.map((item) => item.id),
    );
    answer.giftTokens = rows.map((row) => ({
      id: row.id,
      token_value: row.token_value,
      product_id: row.product_id,
      order_item_id: row.order_item_id,
      status: row.status,
      product_title: titles.get(row.order_item_id) ?? '',
    }));
    return answer;
  }
}
