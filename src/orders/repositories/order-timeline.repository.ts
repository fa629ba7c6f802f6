import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { OrderItem, OrderNote, OrderPaymentIntent, PaymentEvent, Refund } from '../entities';

/**
 * The rows of the orders module's tables that make up one order's timeline (POST /ecommerce/orderTimeline),
 * each read by an index on the order (order_id or Order_ID), one statement at a time in the caller's scope.
 */
@Injectable()
export class OrderTimelineRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  items(ctx: RequestContext, orderId: number): Promise<OrderItem[]> {
    return this.connection.repository(ctx, OrderItem).find({ where: { Order_ID: orderId, app_id: ctx.appId }, order: { id: 'ASC' } });
  }

  intents(ctx: RequestContext, orderId: number): Promise<OrderPaymentIntent[]> {
    return this.connection
      .repository(ctx, OrderPaymentIntent)
      .find({ where: { order_id: orderId, app_id: ctx.appId }, order: { created: 'ASC' } });
  }

  /** The provider events recorded about the order (never their payload). */
  events(
    ctx: RequestContext,
    orderId: number,
  ): Promise<Pick<PaymentEvent, 'event_id' | 'type' | 'status' | 'outcome' | 'payment_intent_id' | 'received' | 'processed_at'>[]> {
    return this.connection.repository(ctx, PaymentEvent).find({
      select: { event_id: true, type: true, status: true, outcome: true, payment_intent_id: true, received: true, processed_at: true },
      where: { order_id: orderId, app_id: ctx.appId },
      order: { received: 'ASC' },
    });
  }

  refunds(ctx: RequestContext, orderId: number): Promise<Refund[]> {
    return this.connection.repository(ctx, Refund).find({ where: { order_id: orderId, app_id: ctx.appId }, order: { id: 'ASC' } });
  }

  notes(ctx: RequestContext, orderId: number): Promise<OrderNote[]> {
    return this.connection
      .repository(ctx, OrderNote)
      .find({ where: { order_id: orderId, app_id: ctx.appId }, order: { created: 'ASC', id: 'ASC' } });
  }

  /** Inserts a note in the edge's transaction; the row as stored. */
  async insertNote(ctx: RequestContext, orderId: number, author: number, text: string): Promise<OrderNote> {
    const repository = this.connection.transactionManager(ctx).getRepository(OrderNote);
    return repository.save(repository.create({ app_id: ctx.appId, order_id: orderId, author, text }));
  }
}
