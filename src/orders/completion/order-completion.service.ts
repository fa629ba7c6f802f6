import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiError } from '../../common/api-error';
import { RequestContext } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { TransactionalConnection } from '../../database/transactional-connection';
import { DigitalItem, TokenIssuerService, TokenRow } from '../../tokens';
import { isGift, Order, OrderItem } from '../entities';
import { orderItemMachine } from '../order-item-transitions';
import { OrderMailsService } from './order-mails.service';
import { counts } from '../order-totals';
import { allows, labelOf, ORDER_TRANSITIONS, OrderAction, orderMachine, requireTransition } from '../order-transitions';
import { PaidIntent, PaymentMismatch, paymentMismatch } from '../checkout/payment-match';
import { OrderRepository } from '../repositories/order.repository';

/** How an order is completed (core_orders.paymentMethodRef): by card, without payment, or re-run. */
export type CompletionMethod = 'Card' | 'Order Only' | 'REDO';

export interface CompletionPayment {
  method: CompletionMethod;
  /** Card: the intent that succeeded (AuthCode and TrxnReference), checked against the order under its lock. */
  intent?: PaidIntent;
  /** Order Only: the order may hold digital items (an app admin submits it); otherwise they need a card payment. */
  allowDigital?: boolean;
  /** Stored on the order in step 1 (submitOrder's notes). */
  notes?: string;
}

/**
 * What a completion did: `completed` (New → Paid or Ordered, now), `redone` (REDO re-ran the steps),
 * `already_complete` (someone else completed it first: nothing done), `order_not_found` (no such order
 * of the app), a PaymentMismatch (the intent does not pay for this order as it is: nothing done).
 */
export type CompletionOutcome = 'completed' | 'redone' | 'already_complete' | 'order_not_found' | PaymentMismatch;

export interface CompletionResult {
  outcome: CompletionOutcome;
  /** The order as it is after the completion (null when not found). */
  order: Order | null;
  /** Tokens of the order's digital items (issued now or before); empty when provisioning failed. */
  tokens: TokenRow[];
  /** Outbox mails written (0 for REDO, disabled mail, or when nothing was done). */
  mails: number;
}

const ACTION_OF: Record<CompletionMethod, OrderAction> = { Card: 'payByCard', 'Order Only': 'submitOrderOnly', REDO: 'redo' };
/** Step 3: the item statuses completion changes (Pending), and what it makes them (Ordered). */
const ORDERED_FROM = orderItemMachine.from('order');
const ORDERED = orderItemMachine.transitions.order.to!;

/**
 * Order completion, run by the payment webhook, paymentComplete and submitOrder,
 * in the transaction their edge opened:
 *
 *   1. persist the remaining order fields and the payment reference;
 *   2. orderstatus + label Paid (Card) or Ordered (Order Only), payment_status Success, AuthCode and
 *      TrxnReference = the intent id, order_date = now;
 *   3. Pending items → Ordered;
 *   4. the admin email, 5. the customer email (outbox rows: sent by the background sender after commit);
 *   6. tokens for digital items, in a savepoint whose failure is logged and rolls back nothing else.
 *
 * Exactly once: the order row is locked, and New → Paid/Ordered is one conditional UPDATE, so of 20
 * concurrent deliveries (or a webhook racing paymentComplete) one completes and the others find the order
 * already complete and do nothing. REDO (an order already Paid or Ordered) re-runs steps 1, 3 and 6 only:
 * status, payment fields and emails stay, missing tokens are issued and none doubled (TokenIssuerService's key).
 */
@Injectable()
export class OrderCompletionService {
  private readonly logger = new Logger(OrderCompletionService.name);

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly orders: OrderRepository,
    private readonly tokens: TokenIssuerService,
    private readonly mails: OrderMailsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async complete(ctx: RequestContext, orderId: number, payment: CompletionPayment): Promise<CompletionResult> {
    const em = this.connection.transactionManager(ctx);
    const site = ctx.app;
    const action = ACTION_OF[payment.method];
    const locked = await this.orders.findOne(ctx, orderId, true);
    if (!locked) return { outcome: 'order_not_found', order: null, tokens: [], mails: 0 };
    if (!allows(action, locked.orderstatus)) {
      if (payment.method === 'REDO') requireTransition(action, locked.orderstatus); // throws: only a completed order is redone
      return { outcome: 'already_complete', order: locked, tokens: [], mails: 0 };
    }
    // Every check below and every step after it see the same locked order and items: what is fulfilled is what was checked.
    const before = await this.orders.itemsOf(ctx, orderId);
    if (payment.method === 'Card') {
      if (!payment.intent) throw new Error('a card completion needs the intent that paid');
      const mismatch = paymentMismatch(payment.intent, site, this.config.production, locked, before);
      if (mismatch) {
        const { id, amount, currency, livemode, metadata } = payment.intent;
        this.logger.error(
          {
            appId: site.id,
            orderId,
            intentId: id,
            amount,
            currency,
            livemode,
            cartVersion: metadata.cartVersion,
            total: locked.total,
            orderCurrency: locked.currency,
            orderCartVersion: locked.cart_version,
            mismatch,
          },
          'payment does not pay for the order as it is: the order is not completed (refund or complete it by hand)',
        );
        return { outcome: mismatch, order: locked, tokens: [], mails: 0 };
      }
    }
    if (payment.method === 'Order Only' && !payment.allowDigital && before.some((item) => item.IsDigital === 1 && counts(item))) {
      throw ApiError.field(
        'paymentMethod',
        'Order Only cannot complete an order with digital items (they would be issued without payment): pay by card through checkout',
      );
    }

    // Steps 1 and 2.
    const order =
      payment.method === 'REDO' ? await this.redoFields(ctx, locked, payment) : await this.markComplete(ctx, locked, action, payment);
    if (!order) return { outcome: 'already_complete', order: locked, tokens: [], mails: 0 };

    // Step 3.
    await this.orders.setItemStatus(ctx, orderId, ORDERED_FROM, ORDERED);
    // The order's items as that UPDATE left them (the row lock keeps every other writer of the cart out).
    const items = before.map((item) =>
      orderItemMachine.allows('order', item.ItemStatus) ? Object.assign(item, { ItemStatus: ORDERED }) : item,
    );

    // Step 6 runs here, before the emails are written: the confirmation (step 5) lists the gift tokens'
    // values, so they must exist when it is rendered. Nothing leaves before the commit (the emails are
    // outbox rows the sender sends afterwards, the tokens become visible with the order), so to everyone
    // outside this transaction the steps still happen in the order above, all at once.
    const tokens = await this.provisionTokens(ctx, em, order, items);

    // Steps 4 and 5 (none for REDO).
    const mails = payment.method === 'REDO' ? 0 : await this.mails.write(ctx, order, items, tokens);
    return { outcome: payment.method === 'REDO' ? 'redone' : 'completed', order, tokens, mails };
  }

  /**
   * Steps 1 and 2 in one conditional UPDATE: New → Paid (Card) or Ordered (Order Only) with the payment
   * fields, only while the order is still in a status the action applies to. Null: another completion won.
   * Order Only has no payment reference: AuthCode and TrxnReference stay null.
   */
  private markComplete(ctx: RequestContext, order: Order, action: OrderAction, payment: CompletionPayment): Promise<Order | null> {
    const to = ORDER_TRANSITIONS[action].to!;
    const intentId = payment.method === 'Card' ? (payment.intent?.id ?? null) : null;
    return this.orders.updateWhileIn(ctx, order.id, orderMachine.transitions[action].from, {
      paymentMethodRef: payment.method,
      ...(payment.notes !== undefined ? { notes: payment.notes } : {}),
      orderstatus: to,
      orderstatuslabel: labelOf(to),
      payment_status: 'Success',
      payment_error: null,
      payment_livemode: payment.method === 'Card' ? (payment.intent?.livemode ?? null) : null,
      AuthCode: intentId,
      TrxnReference: intentId,
      order_date: () => 'now()',
    });
  }

  /** REDO's step 1: only the notes, when given; status, payment fields and paymentMethodRef stay as completed. */
  private async redoFields(ctx: RequestContext, order: Order, payment: CompletionPayment): Promise<Order> {
    if (payment.notes === undefined) return order;
    await this.orders.set(ctx, order.id, { notes: payment.notes });
    return Object.assign(order, { notes: payment.notes });
  }

  /**
   * Step 6: one token per unit of each digital item that is not Cancelled (gift items' tokens gift_pending).
   * The one savepoint of a completion, on purpose (a token provisioning failure is logged and does not roll
   * back the order or stop the emails): a failure rolls back only the tokens and leaves the order and the
   * emails to commit; submitOrder REDO issues them later. The tokens of the order's digital items (also those
   * issued by an earlier run), or none after a failure.
   */
  private async provisionTokens(ctx: RequestContext, em: EntityManager, order: Order, items: OrderItem[]): Promise<TokenRow[]> {
    const digital: DigitalItem[] = items
      .filter((item) => item.IsDigital === 1 && counts(item))
      .map((item) => ({
        orderId: order.id,
        orderItemId: item.id,
        productVersionId: item.product_ID,
        productMasterId: item.product_mid,
        quantity: item.Qty,
        gift: isGift(item),
      }));
    if (digital.length === 0) return [];
    try {
      // em.transaction inside the open transaction is a SAVEPOINT on the same connection (ctx.manager is em).
      return await em.transaction(() => this.tokens.issue(ctx, order.customer_id, digital));
    } catch (error) {
      this.logger.error(
        { appId: ctx.appId, orderId: order.id, err: (error as Error)?.message },
        'token provisioning failed: the order and its emails stand, run submitOrder REDO to issue the tokens',
      );
      return [];
    }
  }
}
