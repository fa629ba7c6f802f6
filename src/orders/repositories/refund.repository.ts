import { Injectable } from '@nestjs/common';
import { EntityManager, In, QueryDeepPartialEntity } from 'typeorm';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { HELD_REFUND_STATUSES, Refund } from '../entities';

/** core_refunds: the refunds of the app's orders, reserved here or learnt from the provider. */
@Injectable()
export class RefundRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** The refund an Idempotency-Key named for the order. */
  findByRequestKey(ctx: RequestContext, orderId: number, requestKey: string): Promise<Refund | null> {
    return this.connection.repository(ctx, Refund).findOneBy({ app_id: ctx.appId, order_id: orderId, request_key: requestKey });
  }

  /** The row of the provider's refund `refundId`. */
  findByRefundId(ctx: RequestContext, refundId: string): Promise<Refund | null> {
    return this.connection.repository(ctx, Refund).findOneBy({ app_id: ctx.appId, refund_id: refundId });
  }

  /** Row `id` of the order while it is still held (reserved or unknown). */
  findHeld(ctx: RequestContext, id: number, orderId: number): Promise<Refund | null> {
    return this.connection
      .repository(ctx, Refund)
      .findOneBy({ id, app_id: ctx.appId, order_id: orderId, status: In([...HELD_REFUND_STATUSES]) });
  }

  /** The order's refunds made here that are still held, oldest first. */
  heldOfOrder(ctx: RequestContext, orderId: number): Promise<Refund[]> {
    return this.connection.repository(ctx, Refund).find({
      where: { app_id: ctx.appId, order_id: orderId, status: In([...HELD_REFUND_STATUSES]), source: 'api' },
      order: { id: 'ASC' },
    });
  }

  /** A new row of the app; its id. */
  async insert(ctx: RequestContext, values: QueryDeepPartialEntity<Refund>): Promise<number> {
    const inserted = await this.connection.repository(ctx, Refund).insert({ ...values, app_id: ctx.appId });
    return (inserted.identifiers[0] as { id: number }).id;
  }

  /**
   * An automatic refund of `payment_intent_id` (source auto, reserved): its id, or null when that intent's
   * money is being (or was) refunded automatically already.
   */
  async insertAuto(
    ctx: RequestContext,
    values: Pick<Refund, 'order_id' | 'payment_intent_id' | 'amount' | 'currency' | 'reason'>,
  ): Promise<number | null> {
    const inserted = await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .insert()
      .into(Refund)
      .values({ ...values, app_id: ctx.appId, status: 'reserved', source: 'auto', request_key: `auto-${values.payment_intent_id}` })
      .orIgnore()
      .returning(['id'])
      .updateEntity(false)
      .execute();
    return (inserted.raw as { id: number }[])[0]?.id ?? null;
  }

  /** Automatic refunds held (unanswered) for longer than `olderThanMs`, across apps: what the reconciliation sends again. */
  heldAutomatic(em: EntityManager, olderThanMs: number, limit: number): Promise<Pick<Refund, 'id' | 'app_id' | 'payment_intent_id'>[]> {
    return em
      .getRepository(Refund)
      .createQueryBuilder('r')
      .select(['r.id', 'r.app_id', 'r.payment_intent_id'])
      .where(`r.source = 'auto' AND r.status IN (:...held) AND r.updated < now() - make_interval(secs => :secs)`, {
        held: [...HELD_REFUND_STATUSES],
        secs: olderThanMs / 1000,
      })
      .orderBy('r.id')
      .limit(limit)
      .getMany();
  }

  findOne(ctx: RequestContext, id: number): Promise<Refund | null> {
    return this.connection.repository(ctx, Refund).findOneBy({ id, app_id: ctx.appId });
  }

  findOneOrFail(ctx: RequestContext, id: number): Promise<Refund> {
    return this.connection.repository(ctx, Refund).findOneByOrFail({ id, app_id: ctx.appId });
  }

  async update(ctx: RequestContext, id: number, values: QueryDeepPartialEntity<Refund>): Promise<void> {
    await this.connection.repository(ctx, Refund).update({ id, app_id: ctx.appId }, values);
  }

  /** A reservation the provider refused: nothing happened there, so nothing stays recorded. */
  async deleteHeld(ctx: RequestContext, id: number): Promise<void> {
    await this.connection.repository(ctx, Refund).delete({ id, app_id: ctx.appId, status: In([...HELD_REFUND_STATUSES]) });
  }

  /** A reservation whose answer never came: held as `unknown` for a retry (or the provider's event) to settle. */
  async markUnknown(ctx: RequestContext, id: number): Promise<void> {
    await this.connection.repository(ctx, Refund).update({ id, app_id: ctx.appId, status: 'reserved' }, { status: 'unknown' });
  }
}
