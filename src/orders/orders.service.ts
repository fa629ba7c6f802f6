import { Injectable } from '@nestjs/common';
import { AccountsService } from '../auth';
import { CUSTOMER_TABLE } from '../common/access-guards';
import { RequestContext } from '../common/request-context';
import { CartLine } from './cart/cart.dto';
import { CartService } from './cart/cart.service';
import { ItemStatus, Order, OrderItem, OrderStatus, PaymentStatus, PostalAddress, RedeemStatus } from './entities';
import { OrderAccessService, OrderRef } from './order-access.service';
import { lineTotal } from './order-totals';
import { labelOf, NEW_ORDER_STATUS } from './order-transitions';
import { CreateOrderRequest, PostalAddressDto } from './orders.dto';
import { OrderRepository } from './repositories/order.repository';

/** createOrder's answer: `{ _id, orderID, orderNumber, total, status }`. */
export interface CreatedOrder {
  _id: string;
  orderID: number;
  orderNumber: string;
  total: number;
  status: OrderStatus;
}

/** An order item as getOrder, addCart and removeCart show it: the core_order_items columns, plus its subtotal. */
export interface OrderItemView {
  id: number;
  /** The product version row added (core_products.id). */
  product_ID: number;
  /** The product's master id (what clients send as productID). */
  product_mid: number;
  title: string;
  Qty: number;
  /** Unit price in cents, GST included. */
  Price: number;
  /** GST per unit in cents (part of Price). */
  tax: number;
  /** Bond per unit in cents (on top of Price). */
  bond: number;
  /** Qty × (Price + bond) in cents (counted in the total unless Cancelled). */
  subtotal: number;
  ItemStatus: ItemStatus;
  IsDigital: 0 | 1;
  IsEvent: 0 | 1;
  RedeemStatus: RedeemStatus | null;
}

/** The billing fields of an order, in checkout's `data` shape. */
export interface BillingView {
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  address: string | null;
  suburb: string | null;
  postCode: string | null;
}

/**
 * An order as its customer (or an app admin) sees it: no customer id, no payment secrets, nothing of
 * another customer. Money in integer cents.
 */
export interface OrderView {
  _id: string;
  orderID: number;
  orderNumber: string;
  status: OrderStatus;
  orderStatusLabel: string;
  paymentStatus: PaymentStatus | null;
  paymentMethod: string | null;
  currency: string;
  total: number;
  created: Date;
  orderDate: Date | null;
  billing: BillingView;
  billingAddress: PostalAddress | null;
  shippingAddress: PostalAddress | null;
  notes: string | null;
  items: OrderItemView[];
}

/**
 * The order number shown to people: the order id zero-padded to at least 8 digits (order 42 is
 * `00000042`). It is derived, not stored, so it is unique per database and never changes.
 */
export function orderNumberOf(orderId: number): string {
  return String(orderId).padStart(8, '0');
}

export function itemView(item: OrderItem): OrderItemView {
  return {
    id: item.id,
    product_ID: item.product_ID,
    product_mid: item.product_mid,
    title: item.title,
    Qty: item.Qty,
    Price: item.Price,
    tax: item.tax,
    bond: item.bond,
    subtotal: lineTotal(item),
    ItemStatus: item.ItemStatus,
    IsDigital: item.IsDigital,
    IsEvent: item.IsEvent,
    RedeemStatus: item.RedeemStatus,
  };
}

/** The view of an order and its items; `encryptedId` is the order's `_id` for the app. */
export function orderView(order: Order, items: OrderItem[], encryptedId: string): OrderView {
  return {
    _id: encryptedId,
    orderID: order.id,
    orderNumber: orderNumberOf(order.id),
    status: order.orderstatus,
    orderStatusLabel: order.orderstatuslabel,
    paymentStatus: order.payment_status,
    paymentMethod: order.paymentMethodRef,
    currency: order.currency,
    total: order.total,
    created: order.created,
    orderDate: order.order_date,
    billing: {
      firstName: order.BillingFirstName,
      lastName: order.BillingLastName,
      email: order.BillingEmail,
      address: order.BillingAddress,
      suburb: order.BillingSuburb,
      postCode: order.BillingPostCode,
    },
    billingAddress: order.billing_address,
    shippingAddress: order.shipping_address,
    notes: order.notes,
    items: items.map(itemView),
  };
}

/** createOrder and getOrder; the cart's changes are CartService's. */
@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly access: OrderAccessService,
    private readonly accounts: AccountsService,
    private readonly cart: CartService,
  ) {}

  /**
   * A New order of the request's app. Its customer is the bearer's customer (a core_customers access
   * token of this app), otherwise a new placeholder customer (customer_is_placeholder) that the first
   * customer to use the order with a bearer takes over. Items given here are checked like addCart's.
   */
  async create(ctx: RequestContext, body: CreateOrderRequest): Promise<CreatedOrder> {
    const lines: CartLine[] = (body.items ?? []).map((item, i) => ({
      productID: item.productID,
      quantity: item.quantity,
      price: item.price,
      fields: { productID: `items[${i}].productID`, quantity: `items[${i}].quantity`, price: `items[${i}].price` },
    }));
    const resolved = lines.length ? await this.cart.resolve(ctx, lines) : [];

    const principal = ctx.principal;
    const customerId = principal?.authTable === CUSTOMER_TABLE && principal.appId === ctx.appId ? principal.userId : null;
    const orderId = await this.orders.insert(ctx, {
      customer_id: customerId ?? (await this.accounts.createPlaceholderCustomer(ctx)),
      customer_is_placeholder: customerId === null,
      currency: ctx.app.currency,
      orderstatus: NEW_ORDER_STATUS,
      orderstatuslabel: labelOf(NEW_ORDER_STATUS),
      payment_status: null,
      shipping_address: addressOf(body.shippingAddress),
      billing_address: addressOf(body.billingAddress),
    });
    const total = resolved.length ? await this.cart.addResolved(ctx, orderId, resolved, 'items') : 0;
    return {
      _id: this.access.encrypt(ctx, orderId),
      orderID: orderId,
      orderNumber: orderNumberOf(orderId),
      total,
      status: NEW_ORDER_STATUS,
    };
  }

  /** The order a request names, if the caller may see it (OrderAccessService's rules), as its view. */
  async get(ctx: RequestContext, ref: OrderRef): Promise<OrderView> {
    const order = await this.access.load(ctx, ref);
    return this.view(ctx, order.id);
  }

  /** The view of order `orderId` of the request's app as it is now (in the request's transaction). */
  async view(ctx: RequestContext, orderId: number): Promise<OrderView> {
    const order = await this.orders.findOneOrFail(ctx, orderId);
    const items = await this.orders.itemsOf(ctx, orderId);
    return orderView(order, items, this.access.encrypt(ctx, orderId));
  }
}

/** Only the address fields that were sent; null for none. */
function addressOf(address: PostalAddressDto | undefined): PostalAddress | null {
  if (!address) return null;
  const out: PostalAddress = {};
  for (const key of ['street', 'city', 'state', 'zip', 'country'] as const) if (address[key] !== undefined) out[key] = address[key];
  return out;
}
