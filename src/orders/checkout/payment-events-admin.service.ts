import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { ListedPaymentEvent, PaymentEventRepository } from '../repositories/payment-event.repository';

/**
 * The inbox's dead letters for operators (`npm run cli -- events:failed`, `events:retry`). An event is failed
 * once PAYMENT_EVENTS_MAX_ATTEMPTS tries to apply it failed (the provider is not asked again: it was told
 * the event arrived). Retrying puts it back as pending, due now, its tries counted from zero; a running
 * instance's inbox worker applies it within PAYMENT_EVENTS_POLL_MS, once.
 */
@Injectable()
export class PaymentEventsAdmin {
  constructor(private readonly events: PaymentEventRepository) {}

  /** `ctx`'s app's failed events, newest first, at most `limit`, and how many there are. */
  failed(ctx: RequestContext, limit: number): Promise<{ total: number; events: ListedPaymentEvent[] }> {
    return this.events.failed(ctx, limit);
  }

  /** In the caller's transaction: `ctx`'s app's failed events (or only `eventId`) back in the inbox; their ids, sorted. */
  async retry(ctx: RequestContext, eventId?: string): Promise<string[]> {
    return (await this.events.requeueFailed(ctx, eventId)).sort();
  }
}
