import { Injectable } from '@nestjs/common';
import { AuditService } from '../../audit';
import { ApiError } from '../../common/api-error';
import { RequestContext } from '../../common/request-context';
import { MailOutboxService } from '../../messaging';
import { OrderAccessService, OrderRef } from '../order-access.service';
import { OrderTimelineRepository } from '../repositories/order-timeline.repository';

/** The kinds of timeline events, in the order they are shown when two happen at the same instant. */
export const TIMELINE_EVENT_TYPES = [
  'created',
  'item_added',
  'item_changed',
  'checkout',
  'payment_event',
  'completed',
  'refund',
  'cancelled',
  'staff_action',
  'mail_written',
  'mail_sent',
  'note',
] as const;
export type TimelineEventType = (typeof TIMELINE_EVENT_TYPES)[number];

export interface TimelineEvent {
  at: Date;
  type: TimelineEventType;
  summary: string;
  details: Record<string, unknown>;
}

export interface OrderTimeline {
  _id: string;
  orderID: number;
  events: TimelineEvent[];
}

export interface AddedNote {
  noteID: number;
  author: number;
  text: string;
  created: Date;
}

const RANK = new Map<TimelineEventType, number>(TIMELINE_EVENT_TYPES.map((type, i) => [type, i]));
/** An item row touched this long after it was added counts as changed (a status or quantity change). */
const CHANGED_AFTER_MS = 1000;

/**
 * The order timeline and staff notes (README "Order timeline and notes"): an order's history assembled from
 * what the database already holds (the order, its items, payment intents, payment events, refunds, mails,
 * audit rows and notes), in time order.
 */
@Injectable()
export class OrderTimelineService {
  constructor(
    private readonly access: OrderAccessService,
    private readonly rows: OrderTimelineRepository,
    private readonly mails: MailOutboxService,
    private readonly audit: AuditService,
  ) {}

  async timeline(ctx: RequestContext, ref: OrderRef): Promise<OrderTimeline> {
    const order = await this.access.load(ctx, ref);
    const events: TimelineEvent[] = [];
    const add = (at: Date | null | undefined, type: TimelineEventType, summary: string, details: Record<string, unknown>) => {
      if (at) events.push({ at, type, summary, details });
    };
    add(order.created, 'created', 'Order created', { orderStatus: order.orderstatus, cartVersion: order.cart_version });
    // One statement after the other: the scope may be a transaction (no Promise.all over one connection).
    for (const item of await this.rows.items(ctx, order.id)) {
      const details = { itemID: item.id, title: item.title, Qty: item.Qty, Price: item.Price, ItemStatus: item.ItemStatus };
      add(item.created, 'item_added', `${item.Qty} × ${item.title} added to the cart`, details);
      if (item.updated.getTime() - item.created.getTime() >= CHANGED_AFTER_MS)
        add(item.updated, 'item_changed', `${item.title}: ${item.Qty}, ${item.ItemStatus}`, details);
    }
    for (const intent of await this.rows.intents(ctx, order.id))
      add(intent.created, 'checkout', `Checkout: payment of ${intent.amount} ${intent.currency} asked`, {
        paymentIntentID: intent.intent_id,
        amount: intent.amount,
        currency: intent.currency,
        livemode: intent.livemode,
        status: intent.status,
      });
    for (const event of await this.rows.events(ctx, order.id))
      add(event.received, 'payment_event', `Payment event ${event.type} received${event.outcome ? `: ${event.outcome}` : ''}`, {
        eventID: event.event_id,
        type: event.type,
        status: event.status,
        outcome: event.outcome,
        paymentIntentID: event.payment_intent_id,
        processed: event.processed_at,
      });
    add(order.order_date, 'completed', `Order completed: ${order.orderstatus}`, {
      orderStatus: order.orderstatus,
      paymentStatus: order.payment_status,
      total: order.total,
    });
    for (const refund of await this.rows.refunds(ctx, order.id))
      add(refund.created, 'refund', `Refund of ${refund.amount} ${refund.currency}: ${refund.status}`, {
        refundID: refund.refund_id,
        amount: refund.amount,
        currency: refund.currency,
        status: refund.status,
        source: refund.source,
        reason: refund.reason,
      });
    for (const row of await this.audit.ofRecord(ctx, 'core_orders', order.id)) {
      if (row.action === 'order.refund') continue; // its refund row is in the timeline already
      const cancelled = row.action === 'order.cancel';
      add(row.created, cancelled ? 'cancelled' : 'staff_action', cancelled ? 'Order cancelled' : `Staff action ${row.action}`, {
        action: row.action,
        actor: row.actor,
        changes: row.changes,
      });
    }
    for (const mail of await this.mails.mailsAbout(ctx, 'core_orders', order.id)) {
      const details = {
        mailID: mail.id,
        event: mail.event,
        email: mail.email,
        subject: mail.subject,
        status: mail.status,
        attempts: mail.attempts,
      };
      add(mail.created, 'mail_written', `Mail ${mail.event} written`, details);
      add(mail.sent, 'mail_sent', `Mail ${mail.event} sent`, details);
    }
    for (const note of await this.rows.notes(ctx, order.id))
      add(note.created, 'note', 'Staff note', { noteID: note.id, author: note.author, text: note.text });
    events.sort((a, b) => a.at.getTime() - b.at.getTime() || RANK.get(a.type)! - RANK.get(b.type)!);
    return { _id: this.access.encrypt(ctx, order.id), orderID: order.id, events };
  }

  /** addOrderNote, in the edge's transaction: the note and its audit row `order.note`. */
  async addNote(ctx: RequestContext, ref: OrderRef, text: string): Promise<AddedNote> {
    const trimmed = text.trim();
    if (trimmed.length === 0) throw ApiError.field('text', 'text must not be empty');
    const order = await this.access.load(ctx, ref);
    const note = await this.rows.insertNote(ctx, order.id, ctx.principal!.userId, trimmed);
    await this.audit.record(ctx, {
      action: 'order.note',
      table: 'core_order_notes',
      recordId: note.id,
      after: { order_id: order.id, text: note.text },
    });
    return { noteID: note.id, author: note.author, text: note.text, created: note.created };
  }
}
