import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { apiError } from './answers';
import { addRefund, chargeOf, refundRefusal, routeChargesRefunds } from './charges-refunds';
import { deliverEvent, signedEvent } from './events';
import { header, IdempotentReplays, parseForm, readBody, secretKeyOf, send, unauthenticated } from './http';
import { Ledger } from './ledger';
import { CancellationReason, cancelIntent, declineIntent, routeIntents, succeedIntent } from './payment-intents';
import { Answer, DoubleWebhook, PeerCharge, PeerIntent, PeerRefund, PeerRequest } from './types';

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
 *
 * Each resource has its file: payment-intents.ts, charges-refunds.ts, events.ts; http.ts the provider's
 * HTTP conventions, ledger.ts what the double holds.
 */
export class PaymentPeer {
  readonly requests: PeerRequest[] = [];
  /** Milliseconds to wait before answering each request. */
  delayMs = 0;
  private readonly ledger = new Ledger();
  private readonly replays = new IdempotentReplays();
  private failure: { mode: 'http500' | 'drop'; remaining: number } | null = null;
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

  /** Every intent, by id. */
  get intents(): Map<string, PeerIntent> {
    return this.ledger.intents;
  }

  /** Every refund, by id, oldest first. */
  get refunds(): Map<string, PeerRefund> {
    return this.ledger.refunds;
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
    return succeedIntent(this.ledger, this.ledger.intent(intentId));
  }

  /** The customer's card was declined (generic_decline): the intent needs another payment method. Not for a succeeded or canceled intent. */
  decline(intentId: string, message = 'Your card was declined.'): PeerIntent {
    const intent = this.ledger.intent(intentId);
    if (intent.status === 'succeeded' || intent.status === 'canceled')
      throw new Error(`PaymentPeer: intent ${intentId} is ${intent.status}, it cannot be declined`);
    return declineIntent(intent, { decline_code: 'generic_decline', message });
  }

  /** The intent is canceled (as from the dashboard). Not for a succeeded or canceled intent. */
  cancel(intentId: string, reason: CancellationReason | null = null): PeerIntent {
    const intent = this.ledger.intent(intentId);
    if (intent.status === 'succeeded' || intent.status === 'canceled')
      throw new Error(`PaymentPeer: intent ${intentId} is ${intent.status}, it cannot be canceled`);
    return cancelIntent(intent, reason);
  }

  /**
   * A refund of a succeeded intent as the dashboard makes one (reason null, no metadata unless given):
   * `amount` defaults to what is left unrefunded. Throws the provider's refusal message otherwise.
   */
  refund(intentId: string, amount?: number, metadata: Record<string, string> = {}): PeerRefund {
    const intent = this.ledger.intent(intentId);
    const refused = refundRefusal(this.ledger, intent, amount);
    if (refused) throw new Error(`PaymentPeer: ${(refused.body as { error: { message: string } }).error.message}`);
    return addRefund(this.ledger, intent, amount ?? this.ledger.unrefunded(intent), null, metadata);
  }

  /** The charge of a succeeded intent (its `latest_charge`), with its refunds newest first. */
  chargeOf(intentId: string): PeerCharge {
    return chargeOf(this.ledger, this.ledger.intent(intentId));
  }

  /** A webhook delivery of an event about `object`, signed with `secret` (events.ts). */
  signedEvent(
    type: string,
    object: PeerIntent | PeerRefund | PeerCharge | Record<string, unknown>,
    secret: string,
    options: { id?: string; timestamp?: number; livemode?: boolean } = {},
  ): { payload: string; signature: string } {
    return signedEvent(this.ledger, type, object, secret, options);
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
    const method = req.method ?? '';
    this.requests.push({ method, path, query, apiKey, idempotencyKey, body });

    if (this.delayMs > 0) await this.sleep(this.delayMs);
    if (this.failure && this.failure.remaining > 0) {
      this.failure.remaining--;
      if (this.failure.mode === 'drop') return void req.socket.destroy();
      return send(res, { status: 500, body: apiError('api_error', 'An unknown error occurred') });
    }
    const route = () => this.route(method, path, query, apiKey!, body);
    const answer =
      unauthenticated(apiKey) ??
      (method === 'POST' && idempotencyKey ? this.replays.answer(apiKey!, idempotencyKey, path, raw, route) : route());
    const snapshot = { ...answer, body: JSON.parse(JSON.stringify(answer.body)) as unknown }; // as of now, not after the delivery
    // The webhook goes out before the request is answered, so that whoever made it finds its effect (an order
    // completed, a refund recorded) already applied (the provider itself gives no such order).
    if (answer.deliver && this.webhook) await deliverEvent(this.ledger, this.webhook, answer.deliver);
    send(res, snapshot);
  }

  private route(method: string, path: string, query: Record<string, unknown>, apiKey: string, body: Record<string, unknown>): Answer {
    return (
      routeIntents(this.ledger, method, path, apiKey, body) ??
      routeChargesRefunds(this.ledger, method, path, query, apiKey, body) ?? {
        status: 404,
        body: apiError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`),
      }
    );
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
