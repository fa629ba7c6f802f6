import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { OptionalBearerGuard, PermissionWidens } from '../common/access-guards';
import { success, successData } from '../common/envelope';
import { DecryptIds } from '../common/decrypt-ids.interceptor';
import { Ctx, RequestContext } from '../common/request-context';
import { Transactional } from '../common/transactional';
import { AddCartRequest, cartAddition, orderNamedBy, removalOrderOf, RemoveCartRequest } from './cart/cart.dto';
import { CartService } from './cart/cart.service';
import { OrderAccessService } from './order-access.service';
import { AddCartAnswer, CreateOrderAnswer, CreateOrderRequest, GetOrderRequest, OrderAnswer, RemoveCartAnswer } from './orders.dto';
import { OrdersService } from './orders.service';

const ORDER_VIEW =
  '{ _id (encrypted order id), orderID, orderNumber, status, orderStatusLabel, paymentStatus, paymentMethod, currency, total (cents), created, orderDate, ' +
  'billing: { firstName, lastName, email, address, suburb, postCode }, billingAddress, shippingAddress, notes, ' +
  'items: [{ id, product_ID (version row), product_mid (master id), title, Qty, Price, tax, bond, subtotal, ItemStatus, IsDigital, IsEvent, RedeemStatus }] }';
const NOT_FOUND =
  "Order not found: unknown, another app's, another customer's, a tampered encrypted id, or a plain id without the order's customer or an app admin bearer";
const VALIDATION =
  'Validation error, errors[] naming the field: items[i].productID (not a published product of this app), items[i].Price (not the ' +
  'current price), Qty/quantity (1..1000), …';
const INVALID_BEARER = 'Unauthorized: an invalid bearer token (the bearer is optional)';

/**
 * Orders and cart: createOrder, addCart, removeCart, getOrder. Money is integer cents. Each route takes an
 * optional customer bearer: it names the customer (never a body field) and takes over an order created
 * anonymously (OrderAccessService). The cart's two body shapes come to one in cart.dto.ts.
 */
@ApiTags('Orders and cart')
@UseGuards(OptionalBearerGuard)
@DecryptIds()
@Controller('ecommerce')
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly cart: CartService,
    private readonly access: OrderAccessService,
  ) {}

  @Post('createOrder')
  @HttpCode(201)
  @Transactional()
  @ApiOperation({
    summary:
      "Create a New order; its customer is the customer bearer's, else a placeholder customer taken over by the first customer who " +
      'uses the order with a bearer',
    description:
      "Any customerID in the body is ignored. items[] are checked like addCart's (published product of this app, price = its current " +
      'price). orderNumber is the order id zero-padded to 8 digits.',
  })
  @ApiAccess('site-id', 'customer-bearer')
  @ApiCreatedResponse({
    type: CreateOrderAnswer,
    description:
      '{ status: Success, data: { _id (encrypted order id: the sessionID / _orderID of later calls), orderID, orderNumber, total (cents), status: New } }',
  })
  @ApiFailureResponse(400, VALIDATION)
  @ApiFailureResponse(401, INVALID_BEARER)
  async createOrder(@Ctx() ctx: RequestContext, @Body() body: CreateOrderRequest): Promise<CreateOrderAnswer> {
    return successData(await this.orders.create(ctx, body));
  }

  @Post('addCart')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({
    summary:
      'Add products to a New order: shape A { sessionID, productID, quantity, price } or shape B { appID, _orderID | orderID, items[]: ' +
      '{ productID, Qty, Price, redeemStatus? } }',
    description:
      'sessionID is the encrypted _id createOrder answered. Only published products of the app, at their current published price ' +
      '(cents). A product already in the cart as a Pending non-gift line of the same version has its Qty raised; gift lines ' +
      '(redeemStatus gift | gift_pending) are always new lines. The total (Σ Qty × (Price + bond), Cancelled items excluded) is ' +
      'recomputed with the order locked.',
  })
  @ApiAccess('site-id', 'customer-bearer')
  @ApiOkResponse({ type: AddCartAnswer, description: `{ status: Success, message: Added to cart, data: ${ORDER_VIEW} }` })
  @ApiFailureResponse(400, `${VALIDATION}; Cannot change the cart of an order that is Paid (or Ordered)`)
  @ApiFailureResponse(401, INVALID_BEARER)
  @ApiFailureResponse(404, NOT_FOUND)
  async addCart(@Ctx() ctx: RequestContext, @Body() body: AddCartRequest): Promise<AddCartAnswer> {
    const addition = cartAddition(body);
    const order = await this.cart.add(ctx, this.access.refOf(ctx, addition), addition.lines, addition.totalField);
    return success({ message: 'Added to cart', data: await this.orders.view(ctx, order.id) });
  }

  @Post('removeCart')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({
    summary:
      "Remove a product's Pending items (gift lines included) from a New order: { sessionID, productID } (or _orderID / orderID instead of sessionID)",
    description:
      'When no item other than Cancelled ones is left the order is reset to New (orderstatus and orderstatuslabel). Removing a product ' +
      'the cart does not hold changes nothing and answers 200 with removed 0.',
  })
  @ApiAccess('site-id', 'customer-bearer')
  @ApiOkResponse({
    type: RemoveCartAnswer,
    description: `{ status: Success, message: Removed from cart | Product not in cart, removed (items deleted), data: ${ORDER_VIEW} }`,
  })
  @ApiFailureResponse(400, 'Validation error (sessionID, productID); Cannot change the cart of an order that is Paid (or Ordered)')
  @ApiFailureResponse(401, INVALID_BEARER)
  @ApiFailureResponse(404, NOT_FOUND)
  async removeCart(@Ctx() ctx: RequestContext, @Body() body: RemoveCartRequest): Promise<RemoveCartAnswer> {
    const { order, removed } = await this.cart.remove(ctx, this.access.refOf(ctx, removalOrderOf(body)), body.productID);
    const data = await this.orders.view(ctx, order.id);
    return success({ message: removed ? 'Removed from cart' : 'Product not in cart', removed, data });
  }

  @Post('getOrder')
  @PermissionWidens('orders.view')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "An order with its items: orderID as a plain number (the order's customer bearer or an app admin only), or the encrypted id as " +
      'an orderID string or _orderID',
    description:
      "Reading never changes an order's customer: a guest order is taken over only by a change (addCart, removeCart, checkout, " +
      'submitOrder) that presents its encrypted id while it is New.',
  })
  @ApiAccess('site-id', 'customer-bearer', 'admin-bearer')
  @ApiOkResponse({ type: OrderAnswer, description: `{ status: Success, data: ${ORDER_VIEW} }` })
  @ApiFailureResponse(
    400,
    'Validation error (orderID is required; orderID must be an encrypted order id (string) or a positive integer order id)',
  )
  @ApiFailureResponse(401, INVALID_BEARER)
  @ApiFailureResponse(404, NOT_FOUND)
  async getOrder(@Ctx() ctx: RequestContext, @Body() body: GetOrderRequest): Promise<OrderAnswer> {
    return successData(await this.orders.get(ctx, this.access.refOf(ctx, orderNamedBy(body, 'orderID'))));
  }
}
