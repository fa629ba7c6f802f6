import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** A payment intent as the provider's API returns it (the fields the shop and the SDK use). */
export interface PeerIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  status: string;
  client_secret: string;
  metadata: Record<string, string>;
  allowed_payment_method_types: string[];
  payment_method_types: string[];
  capture_method: 'automatic';
  confirmation_method: 'automatic';
  latest_charge: string | null;
  livemode: boolean;
  created: number;
}

/** One request the peer received, as the SDK sent it. */
export interface PeerRequest {
  method: string;
  path: string;
  /** The secret key of the `Authorization: Bearer` header, or null. */
  apiKey: string | null;
  idempotencyKey: string | null;
  body: Record<string, unknown>;
}

type Answer = { status: number; body: unknown; headers?: Record<string, string>; deliver?: PeerIntent };

/** Where the double delivers `payment_intent.succeeded` when an intent is confirmed (the provider's webhook endpoint). */
export interface DoubleWebhook {
  url: string;
  secret: string;
  /** Where each delivery's outcome is reported (default: stdout). */
  report?: (line: string) => void;
}

/**
 * A local double of the payment provider's REST API for the provider's own SDK (`stripe`), on 127.0.0.1:
 * the tests' payment peer (test/support/payment-peer.ts) and, for trying the shop without the provider,
 * `npm run cli -- payment:double`. POST /v1/payment_intents (form-encoded, `metadata[...]`),
 * GET /v1/payment_intents/:id and POST /v1/payment_intents/:id/confirm (the customer paid: `succeeded`, and
 * with a webhook configured a signed `payment_intent.succeeded` is delivered, as the provider does),
 * authenticated by the secret key as a bearer (401 without one), with the provider's idempotency: the same
 * Idempotency-Key (per key) replays the first answer, the same key with other parameters is a 400
 * idempotency_error. Intents are per secret key, like per account. Faults: `delayMs` before every answer,
 * `fail('http500' | 'drop', times)`. `signedEvent` makes a webhook delivery signed by the SDK's helper.
 */
export class PaymentPeer {
  /** Every intent, by id. */
  readonly intents = new Map<string, PeerIntent>();
  readonly requests: PeerRequest[] = [];
  /** Milliseconds to wait before answering each request. */
  delayMs = 0;
  private failure: { mode: 'http500' | 'drop'; remaining: number } | null = null;
  private readonly owners = new Map<string, string>(); // intent id → secret key
  private readonly replays = new Map<string, { params: string; answer: Answer }>(); // `${key} ${idempotency key}`
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    private readonly webhook: DoubleWebhook | null,
  ) {}

  /** Listens on 127.0.0.1:`port` (0: a free port); with `webhook`, confirmed intents are announced there. */
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

  /** The customer paid: the intent is `succeeded` (as after a confirmed card payment). */
  succeed(intentId: string): PeerIntent {
    const intent = this.intents.get(intentId);
    if (!intent) throw new Error(`PaymentPeer: no intent ${intentId}`);
    Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: `ch_${token(24)}` });
    return intent;
  }

  /**
   * A webhook delivery of an event about `intent`: the exact body and its `stripe-signature` header made by
   * the SDK's own test helper. `timestamp` (seconds) signs as of another time, e.g. too old.
   */
  signedEvent(type: string, intent: PeerIntent | Record<string, unknown>, secret: string, options: { id?: string; timestamp?: number } = {}): { payload: string; signature: string } {
    const payload = JSON.stringify({
      id: options.id ?? `evt_${token(24)}`,
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: Math.floor(Date.now() / 1000),
      livemode: Boolean((intent as PeerIntent).livemode),
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object: intent },
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
    const path = (req.url ?? '/').split('?')[0];
    const apiKey = secretKeyOf(req.headers.authorization);
    const idempotencyKey = header(req, 'idempotency-key');
    const body = parseForm(raw);
    this.requests.push({ method: req.method ?? '', path, apiKey, idempotencyKey, body });

    if (this.delayMs > 0) await this.sleep(this.delayMs);
    if (this.failure && this.failure.remaining > 0) {
      this.failure.remaining--;
      if (this.failure.mode === 'drop') return void req.socket.destroy();
      return send(res, { status: 500, body: apiError('api_error', 'An unknown error occurred') });
    }
    const answer = this.answer(req.method ?? '', path, apiKey, idempotencyKey, body, raw);
    // The webhook goes out before the confirmation is answered, so that whoever confirmed finds the order
    // already completed (the provider itself gives no such order).
    if (answer.deliver) await this.deliver(answer.deliver);
    send(res, answer);
  }

  /** Delivers `payment_intent.succeeded` for a confirmed intent to the configured webhook endpoint. */
  private async deliver(intent: PeerIntent): Promise<void> {
    if (!this.webhook) return;
    const { payload, signature } = this.signedEvent('payment_intent.succeeded', intent, this.webhook.secret);
    const report = this.webhook.report ?? console.log;
    try {
      const response = await fetch(this.webhook.url, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
      report(`webhook payment_intent.succeeded for ${intent.id} → ${response.status} ${await response.text()}`);
    } catch (error) {
      report(`webhook payment_intent.succeeded for ${intent.id} failed: ${(error as Error).message}`);
    }
  }

  private answer(method: string, path: string, apiKey: string | null, idempotencyKey: string | null, body: Record<string, unknown>, raw: string): Answer {
    if (!apiKey) {
      return { status: 401, body: apiError('invalid_request_error', "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').") };
    }
    if (!/^sk_(test|live)_\w+$/.test(apiKey)) {
      return { status: 401, body: apiError('invalid_request_error', `Invalid API Key provided: ${apiKey.slice(0, 8)}****${apiKey.slice(-4)}`) };
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      if (!idempotencyKey) return this.createIntent(apiKey, body);
      // The provider's idempotent requests: the first answer is replayed for the same key and parameters.
      const slot = `${apiKey} ${idempotencyKey}`;
      const saved = this.replays.get(slot);
      if (saved && saved.params !== raw) {
        return {
          status: 400,
          body: apiError('idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`),
        };
      }
      if (saved) return { ...saved.answer, headers: { 'idempotent-replayed': 'true' } };
      const answer = this.createIntent(apiKey, body);
      this.replays.set(slot, { params: raw, answer });
      return answer;
    }
    const one = /^\/v1\/payment_intents\/([^/]+)(\/confirm)?$/.exec(path);
    if (one && (method === 'GET' ? !one[2] : method === 'POST' && one[2])) {
      const id = decodeURIComponent(one[1]);
      const intent = this.intents.get(id);
      if (!intent || this.owners.get(id) !== apiKey) {
        return { status: 404, body: apiError('invalid_request_error', `No such payment_intent: '${id}'`, { code: 'resource_missing', param: 'intent' }) };
      }
      if (method === 'GET') return { status: 200, body: intent };
      if (intent.status === 'succeeded') {
        return { status: 400, body: apiError('invalid_request_error', 'This PaymentIntent has already succeeded.', { code: 'payment_intent_unexpected_state' }) };
      }
      const paid = this.succeed(id);
      return { status: 200, body: paid, deliver: paid };
    }
    return { status: 404, body: apiError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`) };
  }

  private createIntent(apiKey: string, body: Record<string, unknown>): Answer {
    if (body.amount === undefined) return { status: 400, body: apiError('invalid_request_error', 'Missing required param: amount.', { code: 'parameter_missing', param: 'amount' }) };
    const amount = Number(body.amount);
    if (!/^-?\d+$/.test(String(body.amount))) {
      return { status: 400, body: apiError('invalid_request_error', `Invalid integer: ${String(body.amount)}`, { code: 'parameter_invalid_integer', param: 'amount' }) };
    }
    if (amount < 1) return { status: 400, body: apiError('invalid_request_error', 'This value must be greater than or equal to 1.', { code: 'parameter_invalid_integer', param: 'amount' }) };
    if (typeof body.currency !== 'string' || !/^[a-z]{3}$/.test(body.currency)) {
      return { status: 400, body: apiError('invalid_request_error', `Invalid currency: ${String(body.currency ?? '')}`, { code: 'parameter_invalid_string_empty', param: 'currency' }) };
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
      metadata: { ...((body.metadata as Record<string, string>) ?? {}) },
      allowed_payment_method_types: types,
      payment_method_types: types,
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      latest_charge: null,
      livemode: apiKey.startsWith('sk_live_'),
      created: Math.floor(Date.now() / 1000),
    };
    this.intents.set(id, intent);
    this.owners.set(id, apiKey);
    return { status: 200, body: intent };
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

/** The SDK's form encoding (`a=1&metadata[appID]=7&types[0]=card`) as nested objects and arrays. */
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
