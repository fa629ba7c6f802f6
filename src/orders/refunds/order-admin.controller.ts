import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse } from '../../common/api-responses';
import { RequirePermission } from '../../common/access-guards';
import { DecryptIds } from '../../common/decrypt-ids.interceptor';
import { success, successData } from '../../common/envelope';
import { Ctx, RequestContext } from '../../common/request-context';
import { Transactional } from '../../common/transactional';
import { RefundFlow } from '../flows/refund.flow';
import { OrderAccessService } from '../order-access.service';
import {
  CancelOrderAnswer,
  CancelOrderRequest,
  idempotencyKeyOf,
  ListOrdersAnswer,
  ListOrdersRequest,
  RefundOrderAnswer,
  RefundOrderRequest,
  ResendOrderMailAnswer,
  ResendOrderMailRequest,
} from './order-admin.dto';
import { OrderAdminService } from './order-admin.service';

const NOT_FOUND = "Order not found (an unknown, tampered or another app's encrypted id)";
const NOT_ADMIN = '401 without a bearer; 403 for a bearer that is not an admin of the app';

/**
 * The app admin's order routes (README "Refunds and cancellation"): refunds through the payment provider,
 * cancellation, and the order list. Admin bearer of the order's app only.
 *
 * refundOrder and cancelOrder are edges without @Transactional(): the provider is never called inside a
 * transaction or under the order's lock, so RefundFlow runs each of their steps that writes in a short
 * transaction of its own.
 */
@ApiTags('Shop: refunds and admin')
@ApiAccess('admin-bearer')
@DecryptIds()
@Controller('ecommerce')
export class OrderAdminController {
  constructor(
    private readonly refunds: RefundFlow,
    private readonly admin: OrderAdminService,
    private readonly access: OrderAccessService,
  ) {}

  @Post('refundOrder')
  @RequirePermission('orders.refund')
  @HttpCode(200)
  @ApiOperation({
    summary: "Refund (part of) a Paid order's card payment at the provider",
    description:
      "`amount` defaults to the whole refundable remainder. The amount is reserved under the order's lock before the provider is asked " +
      '(concurrent refunds never exceed what was paid) and the provider request carries an idempotency key: a retry with the same ' +
      'Idempotency-Key header (or, without one, a request for the amount of a refund still in flight) makes one refund. paymentStatus ' +
      "becomes Partially Refunded, or Refunded when nothing is left, which also expires the order's access tokens. A refund mail goes " +
      'to the billing email through the outbox.',
  })
  @ApiOkResponse({
    type: RefundOrderAnswer,
    description: '{ status: Success, data: { refundID, amount, currency, refundedTotal, paymentStatus } }',
  })
  @ApiFailureResponse(
    400,
    'Validation error naming amount (not a positive integer, or more than the refundable remainder), _orderID or reason',
  )
  @ApiFailureResponse(401, NOT_ADMIN)
  @ApiFailureResponse(403, NOT_ADMIN)
  @ApiFailureResponse(404, NOT_FOUND)
  @ApiFailureResponse(
    409,
    'Order is not paid (not Paid by card, or already refunded in full) / The payment of this order is disputed: it cannot be refunded',
  )
  @ApiFailureResponse(
    502,
    'Payment provider error: … (the provider refused: nothing recorded; or no answer: a retry of the same amount resumes the same refund)',
  )
  @ApiHeader({
    name: 'idempotency-key',
    required: false,
    description: 'Names this refund (at most 255 visible ASCII characters): a retry with the same key answers the same refund, made once',
  })
  async refundOrder(
    @Ctx() ctx: RequestContext,
    @Body() body: RefundOrderRequest,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<RefundOrderAnswer> {
    const requestKey = idempotencyKeyOf(idempotencyKey);
    return successData(await this.refunds.refund(ctx, this.access.refOf(ctx, body), body, requestKey));
  }

  @Post('cancelOrder')
  @RequirePermission('orders.cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel an order: its items become Cancelled and its access tokens expire; a Paid order is refunded in full first',
    description:
      "A New order's open payment intents are cancelled at the provider first (one that succeeded or is processing: 409, nothing " +
      'cancelled), then it stays New with an empty total; a Paid order has its whole paid rest refunded first (refunds already in ' +
      'flight settle on their own), then keeps its total and status (paymentStatus Refunded); an Ordered (Order Only) order is ' +
      'cancelled without a refund.',
  })
  @ApiOkResponse({
    type: CancelOrderAnswer,
    description: '{ status: Success, data: { orderStatus, paymentStatus, cancelledItems, refundID? } }',
  })
  @ApiFailureResponse(400, 'Validation error (_orderID, reason)')
  @ApiFailureResponse(401, NOT_ADMIN)
  @ApiFailureResponse(403, NOT_ADMIN)
  @ApiFailureResponse(404, NOT_FOUND)
  @ApiFailureResponse(
    409,
    'A payment of this order is in flight (pi_…): it completes the order; cancel the order once it is Paid, which refunds it (a New ' +
      'order whose payment intent succeeded or is processing: nothing was cancelled) / The order is being paid or refunded right now: ' +
      'try again shortly',
  )
  @ApiFailureResponse(
    502,
    'Payment provider error: … (the refund, or the cancellation of an open payment intent, failed: nothing was cancelled)',
  )
  async cancelOrder(@Ctx() ctx: RequestContext, @Body() body: CancelOrderRequest): Promise<CancelOrderAnswer> {
    return successData(await this.refunds.cancel(ctx, this.access.refOf(ctx, body), body.reason));
  }

  @Post('resendOrderMail')
  @HttpCode(200)
  @Transactional()
  @RequirePermission('orders.resend')
  @ApiOperation({
    summary:
      "Send a completed order's confirmation or admin mail again, rendered as the order is now (the app's own template, else the default)",
    description: 'Written to the outbox in one transaction with its audit row (`order.resend`); the background sender sends it.',
  })
  @ApiOkResponse({ type: ResendOrderMailAnswer, description: '{ status: Success, data: { mails } }' })
  @ApiFailureResponse(400, 'Validation error naming _orderID or mail / Cannot resend the mails of an order that is New')
  @ApiFailureResponse(401, NOT_ADMIN)
  @ApiFailureResponse(403, NOT_ADMIN)
  @ApiFailureResponse(404, NOT_FOUND)
  async resendOrderMail(@Ctx() ctx: RequestContext, @Body() body: ResendOrderMailRequest): Promise<ResendOrderMailAnswer> {
    return successData(await this.admin.resendMail(ctx, this.access.refOf(ctx, body), body.mail)) as ResendOrderMailAnswer;
  }

  @Post('listOrders')
  @RequirePermission('orders.view')
  @HttpCode(200)
  @ApiOperation({
    summary: "The app's orders, newest first, one page",
    description:
      'Filters: status, paymentStatus, from/to (creation time), email (billing email, exact), search (the order number or id exactly, ' +
      'or the start of the billing email, last name or "first last", without regard to case). Index-backed: a page costs the same ' +
      'whatever the number of orders; a search reads the orders it matches through its indexes.',
  })
  @ApiOkResponse({
    type: ListOrdersAnswer,
    description:
      '{ status: Success, data: [{ _id, orderID, orderNumber, orderStatus, paymentStatus, total, refundedTotal, currency, ' +
      'billingEmail, orderDate, created, items }], paging: { page, perPage, hasMore } }',
  })
  @ApiFailureResponse(400, 'Validation error naming the field (status, paymentStatus, from, to, email, search, page, perPage 1..100)')
  @ApiFailureResponse(401, NOT_ADMIN)
  @ApiFailureResponse(403, NOT_ADMIN)
  async listOrders(@Ctx() ctx: RequestContext, @Body() body: ListOrdersRequest): Promise<ListOrdersAnswer> {
    const { data, paging } = await this.admin.list(ctx, body);
    return success({ data, paging });
  }
}
