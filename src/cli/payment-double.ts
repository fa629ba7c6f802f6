import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** A card decline as the provider records it on the intent (`last_payment_error`). */
export interface PeerPaymentError {
  type: 'card_error';
  code: 'card_declined';
  /** `generic_decline` (pm_card_chargeDeclined, pm_card_visa_chargeDeclined, `decline()`), `insufficient_funds` (pm_card_chargeDeclinedInsufficientFunds). */
  decline_code: string;
  message: string;
  doc_url: string;
}

/** A payment intent as the provider's API returns it (the fields the shop and the SDK use). */
export interface PeerIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  /** `requires_payment_method` (new, or declined), `succeeded` or `canceled`. */
  status: string;
  client_secret: string;
  metadata: Record<string, string>;
  allowed_payment_method_types: string[];
  payment_method_types: string[];
  capture_method: 'automatic';
  confirmation_method: 'automatic';
  /** The charge once the intent succeeded (`ch_…`); a decline makes none here. */
  latest_charge: string | null;
  /** The last decline, cleared by a successful confirmation. */
  last_payment_error: PeerPaymentError | null;
  cancellation_reason: string | null;
  canceled_at: number | null;
  livemode: boolean;
  created: number;
}

/** A refund as the provider's API returns it. */
export interface PeerRefund {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  payment_intent: string;
  /** The refunded intent's `latest_charge`. */
  charge: string;
  status: 'succeeded';
  reason: 'duplicate' | 'fraudulent' | 'requested_by_customer' | null;
  metadata: Record<string, string>;
  created: number;
}

/** One page of a list, as the provider answers one. */
export interface PeerList<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

/** The charge of a succeeded intent, as the provider's API returns it (with its refunds, newest first). */
export interface PeerCharge {
  id: string;
  object: 'charge';
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: string;
  payment_intent: string;
  /** Refunded in full. */
  refunded: boolean;
  /** The intent's metadata. */
  metadata: Record<string, string>;
  status: 'succeeded';
  paid: true;
  captured: true;
  livemode: boolean;
  created: number;
  refunds: PeerList<PeerRefund>;
}

/** One request the peer received, as the SDK sent it. */
export interface PeerRequest {
  method: string;
  /** Without the query string. */
  path: string;
  /** The query string's parameters (GET lists), parsed like the form. */
  query: Record<string, unknown>;
  /** The secret key of the `Authorization: Bearer` header, or null. */
  apiKey: string | null;
  idempotencyKey: string | null;
  body: Record<string, unknown>;
}

/** An event the double delivers to the webhook before it answers the request that caused it. */
type Delivery = { type: string; object: { id: string } };
type Answer = { status: number; body: unknown; headers?: Record<string, string>; deliver?: Delivery };

/** Where the double delivers its events (the provider's webhook endpoint). */
export interface DoubleWebhook {
  url: string;
  secret: string;
  /** Where each delivery's outcome is reported (default: stdout). */
  report?: (line: string) => void;
}

const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
const CANCELABLE = 'requires_payment_method, requires_capture, requires_confirmation, requires_action, processing';
const DECLINE_DOC = 'https://stripe.com/docs/error-codes/card-declined';
/** The provider's test payment methods that decline, by the decline they make. */
const DECLINING: Record<string, { decline_code: string; message: string }> = {
  pm_card_chargeDeclined: { decline_code: 'generic_decline', message: 'Your card was declined.' },
  pm_card_visa_chargeDeclined: { decline_code: 'generic_decline', message: 'Your card was declined.' },
  pm_card_chargeDeclinedInsufficientFunds: { decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
};
/** Currencies without minor units: amounts are whole units. */
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);

/**
 * A local double of the payment provider's REST API for the provider's own SDK (`stripe`), on 127.0.0.1:
 * the tests' payment peer (test/support/payment-peer.ts) and, for trying the shop without the provider,
 * `npm run cli -- payment:double`. In the provider's shapes (form-encoded requests, `metadata[...]`):
 *
 * - POST /v1/payment_intents; GET /v1/payment_intents/:id (new intents: `requires_payment_method`,
 *   `last_payment_error` and `cancellation_reason` null).
 * - POST /v1/payment_intents/:id/confirm: the customer paid, `succeeded` (`amount_received`, `latest_charge`,
 *   `last_payment_error` cleared), also after a decline. With `payment_method` one of the provider's
 *   declining test methods (pm_card_chargeDeclined, pm_card_visa_chargeDeclined: generic_decline;
 *   pm_card_chargeDeclinedInsufficientFunds) it declines: the intent is `requires_payment_method` with
 *   `last_payment_error`, the answer the provider's 402 card_error (`code` card_declined, `decline_code`,
 *   `payment_intent`). A succeeded or canceled intent: 400 payment_intent_unexpected_state.
 * - POST /v1/payment_intents/:id/cancel (`cancellation_reason` optional): `canceled`; a succeeded or
 *   canceled one: 400 payment_intent_unexpected_state.
 * - POST /v1/refunds (`payment_intent`, required here; `amount`, default what is left unrefunded; `reason`;
 *   `metadata`): a `succeeded` refund of the intent's charge. Refused as the provider does: an intent
 *   without a successful charge (400 charge_not_refundable), one refunded in full (charge_already_refunded),
 *   more than is left (amount_too_large), an amount below 1.
 * - GET /v1/refunds (`payment_intent`, `charge`, `limit` 1–100 default 10, `starting_after`, `ending_before`:
 *   newest first, so the SDK's auto-pagination works); GET /v1/refunds/:id; GET /v1/charges/:id (the
 *   charge with its refunds, as `chargeOf`).
 *
 * With a webhook configured (the CLI), requests through the API deliver signed events as the provider
 * does: confirm → `payment_intent.succeeded` or `payment_intent.payment_failed` (the intent), cancel →
 * `payment_intent.canceled` (the intent), a refund → `charge.refunded` (the charge, with its refunds). Each
 * delivery is made, and its answer awaited, before the request that caused it is answered, so whoever made
 * the request finds its effect already applied (the provider itself gives no such order); a replayed
 * request delivers nothing. The test helpers (`succeed`, `decline`, `cancel`, `refund`) change state only and
 * deliver nothing: tests sign what they deliver with `signedEvent`.
 *
 * Authenticated by the secret key as a bearer or basic-auth user (401 without one). Every object belongs to
 * the key that made it, like to an account: another key gets 404 resource_missing. Every POST has the
 * provider's idempotency: the same Idempotency-Key (per secret key) replays the first answer as it was
 * (`idempotent-replayed: true`), with other parameters or on another endpoint it is a 400
 * idempotency_error. Faults: `delayMs` before every answer, `fail('http500' | 'drop', times)`.
 */
export class PaymentPeer {
  /** Every intent, by id. */
  readonly intents = new Map<string, PeerIntent>();
  /** Every refund, by id, oldest first. */
  readonly refunds = new Map<string, PeerRefund>();
  readonly requests: PeerRequest[] = [];
  /** Milliseconds to wait before answering each request. */
  delayMs = 0;
  private failure: { mode: 'http500' | 'drop'; remaining: number } | null = null;
  private readonly owners = new Map<string, string>(); // intent id → secret key
  private readonly refunded = new Map<string, PeerRefund[]>(); // intent id → its refunds, oldest first
  private readonly charged = new Map<string, number>(); // charge id → when it was made (seconds)
  private readonly replays = new Map<string, { endpoint: string; params: string; status: number; body: string }>(); // `${key} ${idempotency key}`
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    private readonly webhook: DoubleWebhook | null,
  ) {}

  /** Listens on 127.0.0.1:`port` (0: a free port); with `webhook`, events are delivered there. */
  static async start(options: { port?: number; host?: string; webhook?: DoubleWebhook } = {}): Promise<PaymentPeer> {
    const server = createServer();
    const peer = new PaymentPeer(server, options.webhook ?? null);
    server.on('request', (req, res) => void peer.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    return peer;
  }

  /** PAYMENT_API_URL for the app under test. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `times` requests fail: `http500` answers 500 api_error, `drop` closes the connection unanswered. */
  fail(mode: 'http500' | 'drop', times = Infinity): void {
    this.failure = { mode, remaining: times };
  }

  /** Back to normal: no failures, no delay. */
  heal(): void {
    this.failure = null;
    this.delayMs = 0;
  }

  /** The customer paid: the intent is `succeeded` (as after a confirmed card payment); an intent that already succeeded keeps its charge. */
  succeed(intentId: string): PeerIntent {
    const intent = this.intent(intentId);
    const charge = intent.status === 'succeeded' && intent.latest_charge ? intent.latest_charge : `ch_${token(24)}`;
    if (!this.charged.has(charge)) this.charged.set(charge, now());
    Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: charge, last_payment_error: null });
    return intent;
  }

  /** The customer's card was declined (generic_decline): the intent needs another payment method. Not for a succeeded or canceled intent. */
  decline(intentId: string, message = 'Your card was declined.'): PeerIntent {
    const intent = this.intent(intentId);
    if (intent.status === 'succeeded' || intent.status === 'canceled')
      throw new Error(`PaymentPeer: intent ${intentId} is ${intent.status}, it cannot be declined`);
    return this.declined(intent, { decline_code: 'generic_decline', message });
  }

  /** The intent is canceled (as from the dashboard). Not for a succeeded or canceled intent. */
  cancel(intentId: string, reason: 'duplicate' | 'fraudulent' | 'requested_by_customer' | 'abandoned' | null = null): PeerIntent {
    const intent = this.intent(intentId);
    if (intent.status === 'succeeded' || intent.status === 'canceled')
      throw new Error(`PaymentPeer: intent ${intentId} is ${intent.status}, it cannot be canceled`);
    return this.canceled(intent, reason);
  }

  /**
   * A refund of a succeeded intent as the dashboard makes one (reason null, no metadata unless given):
   * `amount` defaults to what is left unrefunded. Throws the provider's refusal message otherwise.
   */
  refund(intentId: string, amount?: number, metadata: Record<string, string> = {}): PeerRefund {
    const intent = this.intent(intentId);
    const refused = this.refusal(intent, amount);
    if (refused) throw new Error(`PaymentPeer: ${(refused.body as { error: { message: string } }).error.message}`);
    return this.addRefund(intent, amount ?? this.unrefunded(intent), null, metadata);
  }

  /** The charge of a succeeded intent (its `latest_charge`), with its refunds newest first. */
  chargeOf(intentId: string): PeerCharge {
    const intent = this.intent(intentId);
    if (!intent.latest_charge) throw new Error(`PaymentPeer: intent ${intentId} has no charge (${intent.status})`);
    const refunds = [...(this.refunded.get(intent.id) ?? [])].reverse();
    const amountRefunded = intent.amount - this.unrefunded(intent);
    return {
      id: intent.latest_charge,
      object: 'charge',
      amount: intent.amount,
      amount_captured: intent.amount_received,
      amount_refunded: amountRefunded,
      currency: intent.currency,
      payment_intent: intent.id,
      refunded: amountRefunded === intent.amount,
      metadata: { ...intent.metadata },
      status: 'succeeded',
      paid: true,
      captured: true,
      livemode: intent.livemode,
      created: this.charged.get(intent.latest_charge) ?? intent.created,
      refunds: { object: 'list', data: refunds, has_more: false, url: `/v1/charges/${intent.latest_charge}/refunds` },
    };
  }

  /**
   * A webhook delivery of an event about `object` (an intent, a charge, a refund…): the exact body and its
   * `stripe-signature` header made by the SDK's own test helper. The event's `livemode` is `options.livemode`,
   * else the object's, else that of the intent it names (`payment_intent`). `timestamp` (seconds) signs as of
   * another time, e.g. too old.
   */
  signedEvent(
    type: string,
    object: PeerIntent | PeerRefund | PeerCharge | Record<string, unknown>,
    secret: string,
    options: { id?: string; timestamp?: number; livemode?: boolean } = {},
  ): { payload: string; signature: string } {
    const fields = object as { livemode?: unknown; payment_intent?: unknown };
    const livemode =
      options.livemode ??
      (typeof fields.livemode === 'boolean'
        ? fields.livemode
        : typeof fields.payment_intent === 'string'
          ? Boolean(this.intents.get(fields.payment_intent)?.livemode)
          : false);
    const payload = JSON.stringify({
      id: options.id ?? `evt_${token(24)}`,
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: now(),
      livemode,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object },
    });
    return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: options.timestamp }) };
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const [path, search = ''] = (req.url ?? '/').split('?');
    const query = parseForm(search);
    const apiKey = secretKeyOf(req.headers.authorization);
    const idempotencyKey = header(req, 'idempotency-key');
    const body = parseForm(raw);
    this.requests.push({ method: req.method ?? '', path, query, apiKey, idempotencyKey, body });

    if (this.delayMs > 0) await this.sleep(this.delayMs);
    if (this.failure && this.failure.remaining > 0) {
      this.failure.remaining--;
      if (this.failure.mode === 'drop') return void req.socket.destroy();
      return send(res, { status: 500, body: apiError('api_error', 'An unknown error occurred') });
    }
    const answer = this.answer(req.method ?? '', path, query, apiKey, idempotencyKey, body, raw);
    const snapshot = { ...answer, body: JSON.parse(JSON.stringify(answer.body)) as unknown }; // as of now, not after the delivery
    // The webhook goes out before the request is answered, so that whoever made it finds its effect (an order
    // completed, a refund recorded) already applied (the provider itself gives no such order).
    if (answer.deliver) await this.deliver(answer.deliver);
    send(res, snapshot);
  }

  /** Delivers a signed event to the configured webhook endpoint. */
  private async deliver({ type, object }: Delivery): Promise<void> {
    if (!this.webhook) return;
    const { payload, signature } = this.signedEvent(type, object, this.webhook.secret);
    const report = this.webhook.report ?? console.log;
    try {
      const response = await fetch(this.webhook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      });
      report(`webhook ${type} for ${object.id} → ${response.status} ${await response.text()}`);
    } catch (error) {
      report(`webhook ${type} for ${object.id} failed: ${(error as Error).message}`);
    }
  }

  private answer(
    method: string,
    path: string,
    query: Record<string, unknown>,
    apiKey: string | null,
    idempotencyKey: string | null,
    body: Record<string, unknown>,
    raw: string,
  ): Answer {
    if (!apiKey) {
      return {
        status: 401,
        body: apiError(
          'invalid_request_error',
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        ),
      };
    }
    if (!/^sk_(test|live)_\w+$/.test(apiKey)) {
      return {
        status: 401,
        body: apiError('invalid_request_error', `Invalid API Key provided: ${apiKey.slice(0, 8)}****${apiKey.slice(-4)}`),
      };
    }
    if (method !== 'POST' || !idempotencyKey) return this.route(method, path, query, apiKey, body);
    // The provider's idempotent requests: the first answer, as it was then, is replayed for the same key,
    // endpoint and parameters; a replay changes nothing and delivers nothing.
    const slot = `${apiKey} ${idempotencyKey}`;
    const saved = this.replays.get(slot);
    if (saved && saved.endpoint !== path) {
      return {
        status: 400,
        body: apiError(
          'idempotency_error',
          `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${saved.endpoint}' vs '${path}'). Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
        ),
      };
    }
    if (saved && saved.params !== raw) {
      return {
        status: 400,
        body: apiError(
          'idempotency_error',
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
        ),
      };
    }
    if (saved) return { status: saved.status, body: JSON.parse(saved.body), headers: { 'idempotent-replayed': 'true' } };
    const answer = this.route(method, path, query, apiKey, body);
    this.replays.set(slot, { endpoint: path, params: raw, status: answer.status, body: JSON.stringify(answer.body) });
    return answer;
  }

  private route(method: string, path: string, query: Record<string, unknown>, apiKey: string, body: Record<string, unknown>): Answer {
    if (method === 'POST' && path === '/v1/payment_intents') return this.createIntent(apiKey, body);
    if (method === 'POST' && path === '/v1/refunds') return this.createRefund(apiKey, body);
    if (method === 'GET' && path === '/v1/refunds') return this.listRefunds(apiKey, query);
    const intentRoute = /^\/v1\/payment_intents\/([^/]+)(?:\/(confirm|cancel))?$/.exec(path);
    if (intentRoute && (method === 'GET' ? !intentRoute[2] : method === 'POST' && intentRoute[2])) {
      const id = decodeURIComponent(intentRoute[1]);
      const intent = this.owned(apiKey, id);
      if (!intent) return missing('payment_intent', id, 'intent');
      if (method === 'GET') return { status: 200, body: intent };
      return intentRoute[2] === 'confirm' ? this.confirm(intent, body) : this.cancelRequest(intent, body);
    }
    const refundRoute = method === 'GET' && /^\/v1\/refunds\/([^/]+)$/.exec(path);
    if (refundRoute) {
      const id = decodeURIComponent(refundRoute[1]);
      const refund = this.refunds.get(id);
      if (!refund || !this.owned(apiKey, refund.payment_intent)) return missing('refund', id, 'id');
      return { status: 200, body: refund };
    }
    const chargeRoute = method === 'GET' && /^\/v1\/charges\/([^/]+)$/.exec(path);
    if (chargeRoute) {
      const id = decodeURIComponent(chargeRoute[1]);
      const intent = this.intentOfCharge(apiKey, id);
      if (!intent) return missing('charge', id, 'id');
      return { status: 200, body: this.chargeOf(intent.id) };
    }
    return { status: 404, body: apiError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`) };
  }

  private createIntent(apiKey: string, body: Record<string, unknown>): Answer {
    if (body.amount === undefined)
      return {
        status: 400,
        body: apiError('invalid_request_error', 'Missing required param: amount.', { code: 'parameter_missing', param: 'amount' }),
      };
    const invalid = invalidAmount(body.amount);
    if (invalid) return invalid;
    const amount = Number(body.amount);
    if (typeof body.currency !== 'string' || !/^[a-z]{3}$/.test(body.currency)) {
      return {
        status: 400,
        body: apiError('invalid_request_error', `Invalid currency: ${String(body.currency ?? '')}`, {
          code: 'parameter_invalid_string_empty',
          param: 'currency',
        }),
      };
    }
    const id = `pi_${token(24)}`;
    const types = Array.isArray(body.allowed_payment_method_types) ? (body.allowed_payment_method_types as string[]) : ['card'];
    const intent: PeerIntent = {
      id,
      object: 'payment_intent',
      amount,
      amount_received: 0,
      currency: body.currency,
      status: 'requires_payment_method',
      client_secret: `${id}_secret_${token(25)}`,
      metadata: metadataOf(body.metadata),
      allowed_payment_method_types: types,
      payment_method_types: types,
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      latest_charge: null,
      last_payment_error: null,
      cancellation_reason: null,
      canceled_at: null,
      livemode: apiKey.startsWith('sk_live_'),
      created: now(),
    };
    this.intents.set(id, intent);
    this.owners.set(id, apiKey);
    return { status: 200, body: intent };
  }

  private confirm(intent: PeerIntent, body: Record<string, unknown>): Answer {
    if (intent.status === 'succeeded') {
      return {
        status: 400,
        body: apiError('invalid_request_error', 'This PaymentIntent has already succeeded.', { code: 'payment_intent_unexpected_state' }),
      };
    }
    if (intent.status === 'canceled') {
      return {
        status: 400,
        body: apiError(
          'invalid_request_error',
          'You cannot confirm this PaymentIntent because it has a status of canceled. Only a PaymentIntent with one of the following statuses may be confirmed: requires_confirmation, requires_payment_method, requires_action.',
          {
            code: 'payment_intent_unexpected_state',
          },
        ),
      };
    }
    const decline = typeof body.payment_method === 'string' ? DECLINING[body.payment_method] : undefined;
    if (decline) {
      const declined = this.declined(intent, decline);
      return {
        status: 402,
        body: { error: { ...declined.last_payment_error, payment_intent: declined } },
        deliver: { type: 'payment_intent.payment_failed', object: declined },
      };
    }
    const paid = this.succeed(intent.id);
    return { status: 200, body: paid, deliver: { type: 'payment_intent.succeeded', object: paid } };
  }

  private cancelRequest(intent: PeerIntent, body: Record<string, unknown>): Answer {
    const reason = body.cancellation_reason;
    if (reason !== undefined && !(CANCELLATION_REASONS as readonly unknown[]).includes(reason)) {
      return {
        status: 400,
        body: apiError('invalid_request_error', `Invalid cancellation_reason: must be one of ${oneOf(CANCELLATION_REASONS)}`, {
          param: 'cancellation_reason',
        }),
      };
    }
    if (intent.status === 'succeeded' || intent.status === 'canceled') {
      return {
        status: 400,
        body: apiError(
          'invalid_request_error',
          `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE}.`,
          {
            code: 'payment_intent_unexpected_state',
          },
        ),
      };
    }
    const canceled = this.canceled(intent, (reason as string | undefined) ?? null);
    return { status: 200, body: canceled, deliver: { type: 'payment_intent.canceled', object: canceled } };
  }

  private createRefund(apiKey: string, body: Record<string, unknown>): Answer {
    const intentId = body.payment_intent;
    if (typeof intentId !== 'string' || intentId === '') {
      const message =
        body.charge !== undefined
          ? 'This double refunds by payment_intent only: pass payment_intent instead of charge.'
          : 'Missing required param: payment_intent.';
      return { status: 400, body: apiError('invalid_request_error', message, { code: 'parameter_missing', param: 'payment_intent' }) };
    }
    const intent = this.owned(apiKey, intentId);
    if (!intent) return missing('payment_intent', intentId, 'payment_intent');
    if (body.amount !== undefined) {
      const invalid = invalidAmount(body.amount);
      if (invalid) return invalid;
    }
    const amount = body.amount === undefined ? undefined : Number(body.amount);
    const reason = body.reason;
    if (reason !== undefined && !(REFUND_REASONS as readonly unknown[]).includes(reason)) {
      return {
        status: 400,
        body: apiError('invalid_request_error', `Invalid reason: must be one of ${oneOf(REFUND_REASONS)}`, { param: 'reason' }),
      };
    }
    const refused = this.refusal(intent, amount);
    if (refused) return refused;
    const refund = this.addRefund(
      intent,
      amount ?? this.unrefunded(intent),
      (reason as PeerRefund['reason'] | undefined) ?? null,
      metadataOf(body.metadata),
    );
    return { status: 200, body: refund, deliver: { type: 'charge.refunded', object: this.chargeOf(intent.id) } };
  }

  private listRefunds(apiKey: string, query: Record<string, unknown>): Answer {
    let refunds = [...this.refunds.values()].filter((refund) => this.owned(apiKey, refund.payment_intent)).reverse();
    if (query.payment_intent !== undefined) {
      const id = String(query.payment_intent);
      if (!this.owned(apiKey, id)) return missing('payment_intent', id, 'payment_intent');
      refunds = refunds.filter((refund) => refund.payment_intent === id);
    }
    if (query.charge !== undefined) {
      const id = String(query.charge);
      if (!this.intentOfCharge(apiKey, id)) return missing('charge', id, 'charge');
      refunds = refunds.filter((refund) => refund.charge === id);
    }
    const limit = query.limit === undefined ? 10 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return {
        status: 400,
        body: apiError('invalid_request_error', 'This value must be greater than or equal to 1 and less than or equal to 100.', {
          code: 'parameter_invalid_integer',
          param: 'limit',
        }),
      };
    }
    let page: PeerRefund[];
    let hasMore: boolean;
    const cursor = (query.starting_after ?? query.ending_before) as string | undefined;
    const at = cursor === undefined ? -1 : refunds.findIndex((refund) => refund.id === cursor);
    if (cursor !== undefined && at < 0)
      return missing('refund', cursor, query.starting_after !== undefined ? 'starting_after' : 'ending_before', 400);
    if (query.starting_after !== undefined) {
      const rest = refunds.slice(at + 1);
      [page, hasMore] = [rest.slice(0, limit), rest.length > limit];
    } else if (query.ending_before !== undefined) {
      const before = refunds.slice(0, at);
      [page, hasMore] = [before.slice(-limit), before.length > limit];
    } else {
      [page, hasMore] = [refunds.slice(0, limit), refunds.length > limit];
    }
    const list: PeerList<PeerRefund> = { object: 'list', data: page, has_more: hasMore, url: '/v1/refunds' };
    return { status: 200, body: list };
  }

  /** The provider's refusal of refunding `amount` (default: what is left) of `intent`, or null. */
  private refusal(intent: PeerIntent, amount: number | undefined): Answer | null {
    if (amount !== undefined && !(Number.isInteger(amount) && amount >= 1)) {
      return {
        status: 400,
        body: apiError('invalid_request_error', 'This value must be greater than or equal to 1.', {
          code: 'parameter_invalid_integer',
          param: 'amount',
        }),
      };
    }
    if (intent.status !== 'succeeded' || !intent.latest_charge) {
      return {
        status: 400,
        body: apiError('invalid_request_error', 'This PaymentIntent does not have a successful charge to refund.', {
          code: 'charge_not_refundable',
          param: 'payment_intent',
        }),
      };
    }
    const left = this.unrefunded(intent);
    if (left === 0) {
      return {
        status: 400,
        body: apiError('invalid_request_error', `Charge ${intent.latest_charge} has already been refunded.`, {
          code: 'charge_already_refunded',
        }),
      };
    }
    if (amount !== undefined && amount > left) {
      return {
        status: 400,
        body: apiError(
          'invalid_request_error',
          `Refund amount (${money(amount, intent.currency)}) is greater than unrefunded amount on charge (${money(left, intent.currency)})`,
          { code: 'amount_too_large', param: 'amount' },
        ),
      };
    }
    return null;
  }

  private addRefund(intent: PeerIntent, amount: number, reason: PeerRefund['reason'], metadata: Record<string, string>): PeerRefund {
    const refund: PeerRefund = {
      id: `re_${token(24)}`,
      object: 'refund',
      amount,
      currency: intent.currency,
      payment_intent: intent.id,
      charge: intent.latest_charge!,
      status: 'succeeded',
      reason,
      metadata: { ...metadata },
      created: now(),
    };
    this.refunds.set(refund.id, refund);
    const ofIntent = this.refunded.get(intent.id) ?? [];
    ofIntent.push(refund);
    this.refunded.set(intent.id, ofIntent);
    return refund;
  }

  /** What is left to refund of a succeeded intent (its amount less its refunds). */
  private unrefunded(intent: PeerIntent): number {
    return intent.amount_received - (this.refunded.get(intent.id) ?? []).reduce((sum, refund) => sum + refund.amount, 0);
  }

  private declined(intent: PeerIntent, decline: { decline_code: string; message: string }): PeerIntent {
    const error: PeerPaymentError = {
      type: 'card_error',
      code: 'card_declined',
      decline_code: decline.decline_code,
      message: decline.message,
      doc_url: DECLINE_DOC,
    };
    return Object.assign(intent, { status: 'requires_payment_method', last_payment_error: error });
  }

  private canceled(intent: PeerIntent, reason: string | null): PeerIntent {
    return Object.assign(intent, { status: 'canceled', cancellation_reason: reason, canceled_at: now() });
  }

  private intent(intentId: string): PeerIntent {
    const intent = this.intents.get(intentId);
    if (!intent) throw new Error(`PaymentPeer: no intent ${intentId}`);
    return intent;
  }

  /** The intent if it exists and belongs to `apiKey`. */
  private owned(apiKey: string, intentId: string): PeerIntent | undefined {
    return this.owners.get(intentId) === apiKey ? this.intents.get(intentId) : undefined;
  }

  private intentOfCharge(apiKey: string, chargeId: string): PeerIntent | undefined {
    return [...this.intents.values()].find((intent) => intent.latest_charge === chargeId && this.owners.get(intent.id) === apiKey);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

function apiError(type: string, message: string, extra: { code?: string; param?: string } = {}): { error: Record<string, string> } {
  return { error: { type, message, ...extra } };
}

/** The provider's 404 for an object that does not exist for this key (400 for a list cursor naming one). */
function missing(kind: string, id: string, param: string, status = 404): Answer {
  return { status, body: apiError('invalid_request_error', `No such ${kind}: '${id}'`, { code: 'resource_missing', param }) };
}

/** The provider's 400 for an amount that is no integer, or below 1; null for a good one. */
function invalidAmount(value: unknown): Answer | null {
  if (!/^-?\d+$/.test(String(value))) {
    return {
      status: 400,
      body: apiError('invalid_request_error', `Invalid integer: ${String(value)}`, { code: 'parameter_invalid_integer', param: 'amount' }),
    };
  }
  if (Number(value) < 1)
    return {
      status: 400,
      body: apiError('invalid_request_error', 'This value must be greater than or equal to 1.', {
        code: 'parameter_invalid_integer',
        param: 'amount',
      }),
    };
  return null;
}

function metadataOf(value: unknown): Record<string, string> {
  return value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, string>) } : {};
}

/** `$25.00` (`$2500` for a currency without minor units), as the provider's refund messages write amounts. */
function money(amount: number, currency: string): string {
  return ZERO_DECIMAL.has(currency) ? `$${amount}` : `$${(amount / 100).toFixed(2)}`;
}

/** `a, b, or c`, as the provider lists an enum's values. */
function oneOf(values: readonly string[]): string {
  return `${values.slice(0, -1).join(', ')}, or ${values.at(-1)}`;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function send(res: ServerResponse, answer: Answer): void {
  if (res.destroyed) return;
  res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': `req_${token(14)}`, ...answer.headers });
  res.end(JSON.stringify(answer.body));
}

/** The secret key of `Authorization: Bearer <key>`, or of basic auth with the key as user name (`curl -u sk_test_…:`), as the provider takes it. */
function secretKeyOf(authorization: string | undefined): string | null {
  const [scheme, value] = (authorization ?? '').split(' ');
  if (scheme === 'Bearer' && value) return value;
  if (scheme === 'Basic' && value) return Buffer.from(value, 'base64').toString('utf8').split(':')[0] || null;
  return null;
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The SDK's form encoding (`a=1&metadata[appID]=7&types[0]=card`) as nested objects and arrays; also a query string. */
export function parseForm(raw: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const [head, ...rest] = name.split('[');
    const path = [head, ...rest.map((part) => part.replace(/]$/, ''))];
    let node: Record<string, unknown> = result;
    path.forEach((key, i) => {
      if (i === path.length - 1) node[key] = value;
      else node = (node[key] ??= /^\d+$/.test(path[i + 1]) ? [] : {}) as Record<string, unknown>;
    });
  }
  return result;
}

function token(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');
}
