import { Controller, Headers, HttpCode, Logger, Param, Post, Req } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { WebhookReceived } from './checkout.dto';
import { Ctx, NoAppContext, RequestContext, RequestWithContext } from '../common/request-context';
import { isDatabaseUnavailable } from '../database/connection-errors';
import { TransactionalConnection } from '../database/transactional-connection';
import { PaymentWebhookService } from './payment-webhook.service';

/**
 * POST /ecommerce/payment-webhook and the legacy /ecommerce/payment-webhook/:appID, called by the payment
 * provider. No site-id: the route resolves its tenant itself, from the signed event (NoAppContext, which
 * also leaves it out of the rate limit: the provider retries on its own schedule).
 */
@ApiTags('Shop: checkout and payment')
@Controller('ecommerce')
export class PaymentWebhookController {
  private readonly logger = new Logger(PaymentWebhookController.name);

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly webhooks: PaymentWebhookService,
  ) {}

  @Post(['payment-webhook', 'payment-webhook/:appID'])
  @HttpCode(200)
  @NoAppContext()
  @ApiOperation({
    summary: 'Payment provider webhook: payment_intent.succeeded completes the order (once per event id)',
    description:
      "Signed by the provider (`stripe-signature` header) with the app's payment_webhook_secret; the app is the one named by the payment intent's metadata.appID " +
      "(the legacy path's :appID must be the same app). After a valid signature the answer is always 200 { received: true }: errors go to the server log, " +
      'except a database that cannot be reached: 503, so that the provider delivers the event again (it is processed once).',
  })
  @ApiHeader({
    name: 'stripe-signature',
    required: true,
    description: "The provider's signature header (t=<timestamp>,v1=<HMAC>), checked with a 300 s tolerance, past and future",
  })
  @ApiParam({ name: 'appID', required: false, description: 'Legacy route: the app, which must be the app the event names' })
  @ApiAccess('webhook-signature')
  @ApiOkResponse({ type: WebhookReceived, description: '{ received: true }' })
  @ApiFailureResponse(503, 'Database unavailable (Retry-After): nothing was recorded, the provider delivers the event again')
  @ApiFailureResponse(
    400,
    "Invalid payment webhook signature (missing, malformed, expired or future-dated, another app's, an altered body, no app named) / Invalid payment webhook payload / Payments are not configured for this app (payment_webhook_secret is not set)",
  )
  async receive(
    @Ctx() ctx: RequestContext,
    @Req() request: RequestWithContext & { rawBody?: Buffer },
    @Headers('stripe-signature') signature: string | undefined,
    @Param('appID') pathAppId: string | undefined,
  ) {
    const { site, event } = await this.webhooks.verify(ctx, request.rawBody, signature, pathAppId);
    ctx.site = site;
    try {
      const action = await this.webhooks.prepare(ctx, event); // outside the transaction: it may ask the provider
      if (action) {
        // The delivery's one transaction: the event's row and its effects commit together, or neither does
        // (a failed handler rolls both back, so a redelivery acts again).
        const outcome = await this.connection.inTransaction(ctx, () => this.webhooks.act(ctx, action));
        this.webhooks.report(ctx, action, outcome);
      }
    } catch (error) {
      // Nothing was recorded (the event's transaction did not commit): 503, so the provider delivers it again
      // rather than a 200 that would leave a paid order unpaid.
      if (isDatabaseUnavailable(error)) throw error;
      // The signature was valid: the provider gets 200 so it does not redeliver (SPEC); the failure is logged.
      this.logger.error(
        { appId: site.id, eventId: event.id, type: event.type, err: (error as Error)?.message, stack: (error as Error)?.stack },
        'payment webhook processing failed',
      );
    }
    return { received: true } satisfies WebhookReceived;
  }
}
