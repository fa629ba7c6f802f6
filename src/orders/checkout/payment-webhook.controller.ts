import { Controller, Headers, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse } from '../../common/api-responses';
import { WebhookReceived } from './checkout.dto';
import { Ctx, NoAppContext, RequestContext, RequestWithContext } from '../../common/request-context';
import { PaymentEventsFlow } from '../flows/payment-events.flow';

/**
 * POST /ecommerce/payment-webhook and the legacy /ecommerce/payment-webhook/:appID, called by the payment
 * provider. No site-id: the route resolves its tenant itself, from the signed event (NoAppContext, which
 * also leaves it out of the rate limit: the provider retries on its own schedule). PaymentEventsFlow
 * verifies, records and applies the event.
 */
@ApiTags('Shop: checkout and payment')
@Controller('ecommerce')
export class PaymentWebhookController {
  constructor(private readonly events: PaymentEventsFlow) {}

  @Post(['payment-webhook', 'payment-webhook/:appID'])
  @HttpCode(200)
  @NoAppContext()
  @ApiOperation({
    summary: 'Payment provider webhook: payment_intent.succeeded completes the order (once per app and event id)',
    description:
      "Signed by the provider (`stripe-signature` header) with the app's payment_webhook_secret; the app is the one named by the " +
      "payment intent's metadata.appID (the legacy path's :appID must be the same app). A verified event the service acts on is " +
      'recorded in the inbox (core_payment_events) before it is answered: 200 { received: true } once it is recorded (it is then ' +
      'applied once, at once or by the inbox worker with retries), 503 with Retry-After when it could not be recorded, so that the ' +
      'provider delivers it again. Other verified events: 200, nothing recorded.',
  })
  @ApiHeader({
    name: 'stripe-signature',
    required: true,
    description: "The provider's signature header (t=<timestamp>,v1=<HMAC>), checked with a 300 s tolerance, past and future",
  })
  @ApiParam({ name: 'appID', required: false, description: 'Legacy route: the app, which must be the app the event names' })
  @ApiAccess('webhook-signature')
  @ApiOkResponse({ type: WebhookReceived, description: '{ received: true }' })
  @ApiFailureResponse(
    503,
    'The payment event could not be recorded: deliver it again (Retry-After): nothing was recorded, the provider delivers the event again',
  )
  @ApiFailureResponse(
    400,
    "Invalid payment webhook signature (missing, malformed, expired or future-dated, another app's, an altered body, no app named) / " +
      'Invalid payment webhook payload / Payments are not configured for this app (payment_webhook_secret is not set)',
  )
  async receive(
    @Ctx() ctx: RequestContext,
    @Req() request: RequestWithContext & { rawBody?: Buffer },
    @Headers('stripe-signature') signature: string | undefined,
    @Param('appID') pathAppId: string | undefined,
  ) {
    await this.events.receive(ctx, request.rawBody, signature, pathAppId);
    return { received: true } satisfies WebhookReceived;
  }
}
