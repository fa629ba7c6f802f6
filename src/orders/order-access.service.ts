import { Injectable } from '@nestjs/common';
import { CUSTOMER_TABLE, mayDo } from '../common/access-guards';
import { IdCipherService } from '../common/id-cipher.service';
import { RequestContext } from '../common/request-context';
import { Order } from './entities';
import { allows, orderMachine } from './order-transitions';
import { ordersError } from './orders.errors';
import { OrderRepository } from './repositories/order.repository';

/**
 * How a request names an order. An encrypted id (`_orderID`, or an `orderID` string) is a capability: it
 * was handed to whoever created the order. A plain number can be guessed, so it only names an order of
 * the caller's own (customer bearer) or of an app the caller administers.
 */
export interface OrderRef {
  id: number;
  encrypted: boolean;
}

export interface LoadOptions {
  /** Lock the order row until the transaction ends (FOR UPDATE): writers of one order take turns. */
  lock?: boolean;
  /**
   * A change of the order by its capability holder (addCart, removeCart, checkout, …): a customer bearer
   * presenting the encrypted id of a New placeholder order becomes its customer. Reads never move an order.
   */
  reconcile?: boolean;
}

/**
 * Finds the order a request names, within the request's app, and decides whether the caller may use it.
 * Unknown, another app's, another customer's and tampered ids all answer ORDER_NOT_FOUND.
 *
 * Who may use an order (docs/security.md "Orders"):
 * - whoever presents its encrypted id (the capability createOrder handed out), unless the order belongs to
 *   another real customer and the caller is a customer;
 * - its own customer (customer bearer) and an admin of its app, also by the plain numeric id or a legacy
 *   bracket-form id (malleable, so no capability).
 * A plain numeric id never reaches a placeholder (guest) order for a customer: ids can be enumerated.
 *
 * Reconciliation (README "Orders and cart"): an order created without a customer JWT belongs to a placeholder
 * customer; it moves to an authenticated customer only by a change that presents the encrypted id while
 * the order is New. After payment an order's customer never changes.
 */
@Injectable()
export class OrderAccessService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly cipher: IdCipherService,
  ) {}

  /** The order a body names: `_orderID` (already decrypted), else `orderID` (an encrypted string or a plain number). */
  refOf(ctx: RequestContext, body: { _orderID?: unknown; orderID?: unknown }): OrderRef {
    if (body._orderID !== undefined) return { id: toId(body._orderID), encrypted: !ctx.legacyIdFields?.has('_orderID') };
    if (typeof body.orderID === 'string') return this.encryptedRef(ctx, body.orderID);
    return { id: toId(body.orderID), encrypted: false };
  }

  /** An encrypted order id from a path or a string field (a legacy bracket form names the order, like a plain id). */
  encryptedRef(ctx: RequestContext, value: string): OrderRef {
    return { id: this.cipher.decryptId(ctx.appId, value) ?? 0, encrypted: !this.cipher.isLegacyForm(value) };
  }

  /** The order, if the caller may use it; with `reconcile`, a New placeholder order presented by its capability moves to the customer. */
  async load(ctx: RequestContext, ref: OrderRef, options: LoadOptions = {}): Promise<Order> {
    if (!(ref.id > 0)) throw ordersError('ORDER_NOT_FOUND');
    const order = await this.orders.findOne(ctx, ref.id, options.lock);
    if (!order) throw ordersError('ORDER_NOT_FOUND');

    const principal = ctx.principal?.appId === ctx.appId ? ctx.principal : null;
    if (principal?.authTable === CUSTOMER_TABLE) {
      if (order.customer_id === principal.userId) return order;
      if (!ref.encrypted || !order.customer_is_placeholder) throw ordersError('ORDER_NOT_FOUND');
      if (options.reconcile && allows('reconcile', order.orderstatus)) await this.reconcile(ctx, order, principal.userId);
      return order;
    }
    if (mayDo(principal, 'orders.view')) return order;
    if (ref.encrypted) return order;
    throw ordersError('ORDER_NOT_FOUND');
  }

  /** Moves a New placeholder order to `customerId`, unless another request reconciled or completed it first. */
  private async reconcile(ctx: RequestContext, order: Order, customerId: number): Promise<void> {
    const moved = await this.orders.setWhileIn(
      ctx,
      order.id,
      orderMachine.from('reconcile'),
      { customer_id: customerId, customer_is_placeholder: false },
      true,
    );
    if (!moved) return;
    order.customer_id = customerId;
    order.customer_is_placeholder = false;
  }

  /** The encrypted form of an order id, for responses. */
  encrypt(ctx: RequestContext, orderId: number): string {
    return this.cipher.encryptId(ctx.appId, orderId);
  }
}

function toId(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}
