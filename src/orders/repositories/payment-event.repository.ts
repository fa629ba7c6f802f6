import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { PaymentEvent } from '../entities';

/** core_payment_events: the provider events acted on, one row per event id. */
@Injectable()
export class PaymentEventRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /**
   * Records the event for the app, once per event id: false when the id is taken. ON CONFLICT DO NOTHING
   * waits for a concurrent delivery of the same event to commit, then finds it.
   */
  async insertOnce(
    ctx: RequestContext,
    event: Pick<PaymentEvent, 'event_id' | 'type' | 'order_id' | 'payment_intent_id' | 'outcome'>,
  ): Promise<boolean> {
    const inserted = await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .insert()
      .into(PaymentEvent)
      .values({ ...event, app_id: ctx.appId })
      .orIgnore()
      .returning(['event_id'])
      .updateEntity(false)
      .execute();
    return (inserted.raw as unknown[]).length > 0;
  }

  async setOutcome(ctx: RequestContext, eventId: string, outcome: string): Promise<void> {
    await this.connection
      .manager(ctx)
      .createQueryBuilder()
      .update(PaymentEvent)
      .set({ outcome })
      .where('event_id = :id AND app_id = :appId', { id: eventId, appId: ctx.appId })
      .execute();
  }
}
