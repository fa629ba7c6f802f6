import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse } from '../../common/api-responses';
import { OptionalBearerGuard, PermissionWidens } from '../../common/access-guards';
import { success, successData } from '../../common/envelope';
import { DecryptIds } from '../../common/decrypt-ids.interceptor';
import { Ctx, RequestContext } from '../../common/request-context';
import { Transactional } from '../../common/transactional';
import {
  CheckoutRequest,
  CreatePaymentIntentRequest,
  PaymentCompleteAnswer,
  PaymentCompleteRequest,
  PaymentIntentAnswer,
  SubmitOrderAnswer,
  SubmitOrderRequest,
} from './checkout.dto';
import { CheckoutService } from './checkout.service';
import { CheckoutFlow } from '../flows/checkout.flow';
import { OrderAccessService } from '../order-access.service';

const INTENT_ANSWER = '{ status: Success, data: { clientSecret, paymentIntentID } }';
const STATUS_ANSWER = '{ status: Success, data: { orderStatus, orderStatusLabel, paymentStatus } }';
const ORDER_FAILURES = "Order not found (404: unknown, another app's or another customer's order, or a tampered id)";
const INVALID_BEARER = 'Unauthorized: an invalid bearer token (the bearer is optional)';
const INTENT_FAILURES =
  "Validation error (naming the field) / amount must equal the order total / currency must be the app's currency / The order has no " +
  'items to pay for / Cannot check out an order that is Paid|Ordered / Payment is not configured for this app (no private key for the ' +
  'mode) / Payment request rejected by the provider';

/**
 * Paying for an order (README "Checkout and payment"): checkout, the legacy createPaymentIntent and
 * paymentComplete, and submitOrder. An optional customer bearer links a placeholder order to the customer.
 * The card routes are edges without @Transactional(): CheckoutFlow runs their steps, the provider's outside
 * any transaction.
 */
@ApiTags('Shop: checkout and payment')
@ApiAccess('site-id', 'customer-bearer')
@UseGuards(OptionalBearerGuard)
@DecryptIds()
@Controller('ecommerce')
export class CheckoutController {
  constructor(
    private readonly payments: CheckoutFlow,
    private readonly checkouts: CheckoutService,
    private readonly access: OrderAccessService,
  ) {}

  @Post('checkout')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Save the billing fields and create the card payment intent (metadata appID, orderID, customerID)',
    description:
      "`amount` must equal the order total (items not Cancelled); `currency`, when sent, must be the app's (core_sites.currency); " +
      '`data` takes only the six billing fields: card data is refused with 400, never stored or forwarded. A retried checkout (same ' +
      'cart version, amount, customer) returns the same intent; a cart changed afterwards makes that intent stale (its payment ' +
      "completes nothing: check out again). On a production instance the app's mode decides the key, whatever `production` says. A " +
      'customer bearer with the encrypted id takes over a New guest order.',
  })
  @ApiCreatedResponse({ type: PaymentIntentAnswer, description: INTENT_ANSWER })
  @ApiFailureResponse(400, INTENT_FAILURES)
  @ApiFailureResponse(401, INVALID_BEARER)
  @ApiFailureResponse(404, ORDER_FAILURES)
  @ApiFailureResponse(502, 'Payment provider error: … (unreachable, timed out, failed)')
  async checkout(@Ctx() ctx: RequestContext, @Body() body: CheckoutRequest): Promise<PaymentIntentAnswer> {
    return successData(await this.payments.openPayment(ctx, this.access.refOf(ctx, body), body, body.data));
  }

  @Post('createPaymentIntent')
  @HttpCode(200)
  @ApiOperation({ summary: 'Legacy two-step flow, step 1: the card payment intent of an order (checkout without billing fields)' })
  @ApiOkResponse({ type: PaymentIntentAnswer, description: INTENT_ANSWER })
  @ApiFailureResponse(400, INTENT_FAILURES)
  @ApiFailureResponse(401, INVALID_BEARER)
  @ApiFailureResponse(404, ORDER_FAILURES)
  @ApiFailureResponse(502, 'Payment provider error: …')
  async createPaymentIntent(@Ctx() ctx: RequestContext, @Body() body: CreatePaymentIntentRequest): Promise<PaymentIntentAnswer> {
    return successData(await this.payments.openPayment(ctx, this.access.refOf(ctx, body), body, null));
  }

  @Post('paymentComplete')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Legacy two-step flow, step 2: complete the order once the provider says the intent succeeded',
    description:
      'Idempotent with the payment webhook: whichever comes second changes nothing and answers the order status. Outside production ' +
      "`production` (default false) picks the key the intent was made with; on a production instance the app's mode does. The intent " +
      "must name this app, order and cart version, be of the app's mode, and pay the order's total in its currency (checked under the " +
      "order's lock).",
  })
  @ApiOkResponse({ type: PaymentCompleteAnswer, description: STATUS_ANSWER })
  @ApiFailureResponse(
    400,
    'Payment has not succeeded / Payment intent does not belong to this order / Payment amount does not match the order total / ' +
      'Payment currency does not match the order currency / Payment mode (test or live) is not accepted for this app / Cannot complete a ' +
      'card payment of an order that is Ordered / Validation error',
  )
  @ApiFailureResponse(401, INVALID_BEARER)
  @ApiFailureResponse(409, 'The cart changed after this payment was made: check out again (the intent was made for another cart version)')
  @ApiFailureResponse(404, `${ORDER_FAILURES} / Payment intent not found`)
  @ApiFailureResponse(502, 'Payment provider error: …')
  async paymentComplete(@Ctx() ctx: RequestContext, @Body() body: PaymentCompleteRequest): Promise<PaymentCompleteAnswer> {
    return successData(await this.payments.completePayment(ctx, this.access.refOf(ctx, body), body.paymentIntentID, body.production));
  }

  @Post('submitOrder')
  @PermissionWidens('orders.complete')
  @HttpCode(200)
  @Transactional() // the order stays locked from the checks to the end of its completion
  @ApiOperation({
    summary: 'Complete an order without card payment (`Order Only` → Ordered), or re-run a completion without emails (`REDO`, app admins)',
    description:
      '`Order Only`: a New order becomes Ordered with payment_status Success and no payment reference, then the completion steps run ' +
      "(emails, tokens); an order with digital items needs an app admin's bearer. `REDO`: an app admin re-runs the steps of a Paid or " +
      'Ordered order without emails (missing tokens issued, none doubled). Other methods: 400 naming paymentMethod (card payments ' +
      'complete through checkout and the payment webhook).',
  })
  @ApiAccess('admin-bearer') // REDO, and Order Only of an order with digital items
  @ApiOkResponse({
    type: SubmitOrderAnswer,
    description: `{ status: Success, message: Order submitted | Order completion re-run, data: { orderStatus, orderStatusLabel, paymentStatus } }`,
  })
  @ApiFailureResponse(
    400,
    'Validation error (paymentMethod) / Cannot submit an order that is Paid / Cannot redo the completion of an order that is New',
  )
  @ApiFailureResponse(401, 'REDO without a bearer, or an invalid bearer')
  @ApiFailureResponse(403, 'REDO (or Order Only of an order with digital items) by someone who is not an admin of the app')
  @ApiFailureResponse(404, ORDER_FAILURES)
  @ApiFailureResponse(409, 'The order has no items to submit (Order Only of an order whose items were all removed or cancelled)')
  async submitOrder(@Ctx() ctx: RequestContext, @Body() body: SubmitOrderRequest): Promise<SubmitOrderAnswer> {
    const data = await this.checkouts.submitOrder(ctx, this.access.refOf(ctx, body), body.paymentMethod, body.notes);
    return success({ message: body.paymentMethod === 'REDO' ? 'Order completion re-run' : 'Order submitted', data });
  }
}
