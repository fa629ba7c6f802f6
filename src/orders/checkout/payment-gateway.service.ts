import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { ApiError } from '../../common/api-error';
import { SitesService } from '../../app-context';
import { RequestContext } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ordersError } from '../orders.errors';

/** A payment intent as the shop needs it (the provider's object has far more). */
export interface PaymentIntentView {
  id: string;
  clientSecret: string;
  status: string;
  amount: number;
  currency: string;
  /** Made with a live key (true) or a test key. */
  livemode: boolean;
  metadata: Record<string, string>;
  /** Why it was cancelled, when it was. */
  cancellationReason: string | null;
  /** The last failed attempt's message (a decline), if any. */
  lastPaymentError: string | null;
}

export interface CreateIntentRequest {
  /** Smallest currency unit (cents). */
  amount: number;
  /** ISO 4217, any case (sent lower-case). */
  currency: string;
  metadata: Record<string, string>;
  /** The same key returns the same intent (the provider's idempotent requests); one per order and amount. */
  idempotencyKey: string;
}

export interface CreateRefundRequest {
  paymentIntentId: string;
  /** Cents. */
  amount: number;
  metadata: Record<string, string>;
  idempotencyKey: string;
}

/** A refund as the shop needs it. */
export interface RefundView {
  id: string;
  amount: number;
  currency: string;
  /** The provider's status: `succeeded`, `pending`, `requires_action`, `failed` or `canceled`. */
  status: string;
  paymentIntentId: string | null;
  metadata: Record<string, string>;
}

/**
 * How long one request to the provider may take, and how often the SDK retries a connection failure, a
 * 409 or a 5xx. A retry reuses the request's idempotency key, so it never creates a second intent; one
 * retry rides over a dropped keep-alive socket or a blip, more would only hold the shopper's checkout
 * open (each attempt may take the whole timeout).
 */
export const PAYMENT_NETWORK_DEFAULTS = { timeoutMs: 15_000, maxNetworkRetries: 1 };

/** Webhook timestamps older or newer than this are refused: replayed or pre-signed deliveries. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Clients kept, one per private key, least recently used dropped first. */
const MAX_CLIENTS = 256;

let sdk: typeof Stripe | undefined;

/**
 * The SDK, loaded at its first use rather than at start: its modules cost start time and heap that an
 * instance taking no payment never needs (docs/performance.md "Figures that explain code choices").
 */
function stripe(): typeof Stripe {
  return (sdk ??= require('stripe') as typeof Stripe);
}

/** What a payment intent id looks like; anything else is not sent to the provider. */
export const INTENT_ID = /^pi_[A-Za-z0-9_]{1,250}$/;

/**
 * The payment provider through its own SDK (`stripe`). Keys are per app (core_sites `payment_test_private_key` /
 * `payment_live_private_key`, chosen by the mode, app-context/payment-mode.ts), read here by the app of the
 * caller's context (SitesService.secretsOf: the request's tenant never carries them); one SDK client per key,
 * cached. PAYMENT_API_URL points every client at another host (a local double of the provider's API in
 * tests) through the SDK's host, port and protocol options; only the URL's origin is used.
 *
 * Failures become ApiErrors of the orders' table: a missing key 400 naming the column, invalid requests and
 * card errors 400, an unknown intent 404, anything else the provider or the network does 502
 * `Payment provider error: …`.
 */
@Injectable()
export class PaymentGatewayService {
  private readonly logger = new Logger(PaymentGatewayService.name);
  private readonly clients = new Map<string, Stripe>();
  private readonly endpoint: Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'>;
  /** Per-request network settings (PAYMENT_NETWORK_DEFAULTS); a fault test may shorten the timeout. */
  readonly network = { ...PAYMENT_NETWORK_DEFAULTS };

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sites: SitesService,
  ) {
    this.endpoint = config.paymentApiUrl ? endpointOf(config.paymentApiUrl) : {};
  }

  async createIntent(ctx: RequestContext, live: boolean, request: CreateIntentRequest): Promise<PaymentIntentView> {
    const client = await this.client(ctx, live);
    try {
      const intent = await client.paymentIntents.create(
        {
          amount: request.amount,
          currency: request.currency.toLowerCase(),
          metadata: request.metadata,
          // Card payments only (this API version's name for the old payment_method_types): the client
          // confirms with the card details it sends to the provider itself.
          allowed_payment_method_types: ['card'],
        },
        { idempotencyKey: request.idempotencyKey, ...this.requestOptions() },
      );
      return viewOf(intent);
    } catch (error) {
      throw this.failure(error, ctx, live, 'create payment intent');
    }
  }

  /**
   * A refund of (part of) a succeeded intent. The idempotency key makes a retried request (by the SDK after
   * a timeout, or by a caller resuming a reservation) one refund at the provider.
   */
  async createRefund(ctx: RequestContext, live: boolean, request: CreateRefundRequest): Promise<RefundView> {
    const client = await this.client(ctx, live);
    try {
      const refund = await client.refunds.create(
        { payment_intent: request.paymentIntentId, amount: request.amount, metadata: request.metadata },
        { idempotencyKey: request.idempotencyKey, ...this.requestOptions() },
      );
      return refundViewOf(refund);
    } catch (error) {
      const answer = this.failure(error, ctx, live, 'create refund');
      const refused = refusedForSure(error);
      // The provider's own refusal text, else what failed (no answer, a timeout, a 5xx).
      throw new RefundRequestFailed(
        refused ? oneLine((error as Error).message) : answer.message.replace(/^Payment provider error: /, ''),
        refused,
      );
    }
  }

  /** Every refund of an intent, as the provider holds them (a charge.refunded event that does not list them). */
  async listRefunds(ctx: RequestContext, live: boolean, paymentIntentId: string): Promise<RefundView[]> {
    const client = await this.client(ctx, live);
    try {
      const refunds: RefundView[] = [];
      for await (const refund of client.refunds.list({ payment_intent: paymentIntentId, limit: 100 }, this.requestOptions()))
        refunds.push(refundViewOf(refund));
      return refunds;
    } catch (error) {
      throw this.failure(error, ctx, live, 'list refunds');
    }
  }

  /** 400 naming the key column when the app has no private key for the mode: a caller checks it before it writes. */
  async requireConfigured(ctx: RequestContext, live: boolean): Promise<void> {
    await this.client(ctx, live);
  }

  async retrieveIntent(ctx: RequestContext, live: boolean, intentId: string): Promise<PaymentIntentView> {
    const client = await this.client(ctx, live);
    if (typeof intentId !== 'string' || !INTENT_ID.test(intentId)) throw ordersError('PAYMENT_INTENT_NOT_FOUND');
    try {
      return viewOf(await client.paymentIntents.retrieve(intentId, undefined, this.requestOptions()));
    } catch (error) {
      throw this.failure(error, ctx, live, 'retrieve payment intent');
    }
  }

  /**
   * Cancels an intent so that nothing can be paid with it any more; the intent as it is then. An intent the
   * provider will not cancel because it is no longer open (it succeeded, is processing a payment, or was
   * cancelled already) is answered as it is: the caller decides what its status means.
   */
  async cancelIntent(ctx: RequestContext, live: boolean, intentId: string): Promise<PaymentIntentView> {
    const client = await this.client(ctx, live);
    if (!INTENT_ID.test(intentId)) throw ordersError('PAYMENT_INTENT_NOT_FOUND');
    try {
      // Naturally idempotent: a second cancel finds the intent cancelled and is answered as it is.
      return viewOf(await client.paymentIntents.cancel(intentId, {}, this.requestOptions()));
    } catch (error) {
      const { errors } = stripe();
      if (error instanceof errors.StripeInvalidRequestError && error.code === 'payment_intent_unexpected_state')
        return this.retrieveIntent(ctx, live, intentId);
      throw this.failure(error, ctx, live, 'cancel payment intent');
    }
  }

  /**
   * The event the provider signed, checked on the exact bytes received (`stripe-signature` header, the
   * app's payment_webhook_secret, 300 s tolerance). No client and no network: the SDK's webhooks helper.
   */
  verifyEvent(rawBody: Buffer, signature: string | undefined, webhookSecret: string | null): Stripe.Event {
    if (typeof webhookSecret !== 'string' || webhookSecret.trim() === '')
      throw ordersError('PAYMENT_NOT_CONFIGURED', { detail: 'payment_webhook_secret is not set' });
    if (typeof signature !== 'string' || signature.trim() === '') throw this.refused('no stripe-signature header');
    if (!Buffer.isBuffer(rawBody)) throw this.refused('no raw request body');
    let event: Stripe.Event;
    try {
      event = stripe().webhooks.constructEvent(rawBody, signature, webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
    } catch (error) {
      if (error instanceof stripe().errors.StripeSignatureVerificationError) throw this.refused(signatureFailure(error.message));
      throw ordersError('INVALID_WEBHOOK_PAYLOAD'); // signed, but not JSON
    }
    // The SDK refuses only timestamps too far in the past; one too far in the future is refused here (its
    // signature is valid, so the timestamp is the signer's), as the provider's other libraries do.
    if (signedAt(signature) - Date.now() / 1000 > WEBHOOK_TOLERANCE_SECONDS)
      throw this.refused(`timestamp more than ${WEBHOOK_TOLERANCE_SECONDS} s in the future`);
    if (!event || typeof event !== 'object' || typeof event.id !== 'string' || typeof event.type !== 'string')
      throw ordersError('INVALID_WEBHOOK_PAYLOAD');
    return event;
  }

  /** A refused webhook: one answer for every reason (the reason goes to the log, for whoever set the secret up). */
  private refused(reason: string): ApiError {
    this.logger.warn({ reason }, 'payment webhook refused');
    return ordersError('INVALID_WEBHOOK_SIGNATURE');
  }

  private requestOptions(): Stripe.RequestOptions {
    return { timeout: this.network.timeoutMs, maxNetworkRetries: this.network.maxNetworkRetries };
  }

  /**
   * The cached client of the mode's key of the context's app (in the context's transaction when it has one);
   * 400 naming the column when the app has none.
   */
  private async client(ctx: RequestContext, live: boolean): Promise<Stripe> {
    const column = keyColumn(live);
    const key = (await this.sites.secretsOf(ctx, ctx.appId))?.[column];
    if (typeof key !== 'string' || key.trim() === '') throw ordersError('PAYMENT_NOT_CONFIGURED', { detail: `${column} is not set` });
    let client = this.clients.get(key);
    if (client) {
      this.clients.delete(key); // most recently used goes last
    } else {
      const Sdk = stripe();
      client = new Sdk(key, {
        ...this.endpoint,
        timeout: PAYMENT_NETWORK_DEFAULTS.timeoutMs,
        maxNetworkRetries: PAYMENT_NETWORK_DEFAULTS.maxNetworkRetries,
        telemetry: false,
      });
      if (this.clients.size >= MAX_CLIENTS) this.clients.delete(this.clients.keys().next().value as string);
    }
    this.clients.set(key, client);
    return client;
  }

  /** A provider or network failure as the ApiError to answer with; logged with the app and the provider's request id. */
  private failure(error: unknown, ctx: RequestContext, live: boolean, operation: string): ApiError {
    if (error instanceof ApiError) return error;
    const { errors } = stripe();
    if (!(error instanceof errors.StripeError)) {
      this.logger.error({ appId: ctx.appId, err: (error as Error)?.message }, `${operation} failed`);
      return ordersError('PAYMENT_PROVIDER_ERROR', { detail: 'unexpected failure' });
    }
    this.logger.warn(
      {
        appId: ctx.appId,
        type: error.type,
        statusCode: error.statusCode,
        code: error.code,
        requestId: error.requestId,
        err: oneLine(error.message),
      },
      `${operation} failed at the payment provider`,
    );
    if (error instanceof errors.StripeCardError) return ordersError('PAYMENT_DECLINED', { detail: oneLine(error.message) });
    if (error instanceof errors.StripeInvalidRequestError || error instanceof errors.StripeIdempotencyError) {
      if (error.statusCode === 404) return ordersError('PAYMENT_INTENT_NOT_FOUND'); // the only object we name is the intent
      return ordersError('PAYMENT_REQUEST_INVALID', { detail: oneLine(error.message) });
    }
    if (error instanceof errors.StripeAuthenticationError || error instanceof errors.StripePermissionError) {
      // The provider's message quotes part of the key: not for the shopper.
      return ordersError('PAYMENT_PROVIDER_ERROR', {
        detail: `the provider refused the app's ${keyColumn(live)} (HTTP ${error.statusCode ?? 401})`,
      });
    }
    if (error instanceof errors.StripeConnectionError) {
      const timedOut = /timeout/i.test(error.message);
      return ordersError('PAYMENT_PROVIDER_ERROR', {
        detail: timedOut ? `no answer within ${this.network.timeoutMs / 1000} s` : 'could not connect to the provider',
      });
    }
    const status = error.statusCode ? ` (HTTP ${error.statusCode})` : '';
    return ordersError('PAYMENT_PROVIDER_ERROR', { detail: `${oneLine(error.message)}${status}` });
  }
}

function keyColumn(live: boolean): 'payment_live_private_key' | 'payment_test_private_key' {
  return live ? 'payment_live_private_key' : 'payment_test_private_key';
}

function viewOf(intent: Stripe.PaymentIntent): PaymentIntentView {
  return {
    id: intent.id,
    clientSecret: intent.client_secret ?? '',
    status: intent.status,
    amount: intent.amount,
    currency: intent.currency,
    livemode: intent.livemode === true,
    metadata: { ...(intent.metadata ?? {}) },
    cancellationReason: intent.cancellation_reason ?? null,
    lastPaymentError: intent.last_payment_error?.message ?? null,
  };
}

/**
 * A refund request that failed; the message says why. `refused`: the provider answered and refused it
 * (nothing was refunded); otherwise the outcome is unknown (no answer, a timeout, a 5xx): it may have.
 */
export class RefundRequestFailed extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

/** The provider answered with a refusal (a 4xx of its own), so the request certainly did nothing. */
function refusedForSure(error: unknown): boolean {
  const { errors } = stripe();
  return (
    error instanceof errors.StripeError &&
    !(error instanceof errors.StripeConnectionError) &&
    typeof error.statusCode === 'number' &&
    error.statusCode < 500
  );
}

export function refundViewOf(refund: Stripe.Refund): RefundView {
  const intent = refund.payment_intent;
  return {
    id: refund.id,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status ?? 'pending',
    paymentIntentId: typeof intent === 'string' ? intent : (intent?.id ?? null),
    metadata: { ...(refund.metadata ?? {}) },
  };
}

/** PAYMENT_API_URL as the SDK's host, port and protocol options. */
function endpointOf(url: string): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  const parsed = new URL(url);
  const protocol = parsed.protocol === 'http:' ? 'http' : 'https';
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), // an IPv6 literal without its brackets
    port: parsed.port || (protocol === 'http' ? 80 : 443),
    protocol,
  };
}

/** The `t=` timestamp of a verified stripe-signature header (seconds). */
function signedAt(signature: string): number {
  const match = /(?:^|,)\s*t=(\d+)/.exec(signature);
  return match ? Number(match[1]) : Number.POSITIVE_INFINITY;
}

/** The SDK's verification failures, shortened for the answer. */
function signatureFailure(message: string): string {
  if (message.startsWith('Unable to extract timestamp and signatures')) return 'malformed stripe-signature header';
  if (message.startsWith('Timestamp outside the tolerance zone')) return `timestamp outside the ${WEBHOOK_TOLERANCE_SECONDS} s tolerance`;
  if (message.startsWith('No signatures found matching')) return 'signature does not match the payload';
  return oneLine(message);
}

/** A provider message on one line, never longer than 200 characters. */
function oneLine(message: string): string {
  const line = (message ?? '').replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line || 'unknown error';
}
