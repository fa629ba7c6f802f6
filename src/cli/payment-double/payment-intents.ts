import { apiError, invalidAmount, metadataOf, missing, now, oneOf, token } from './answers';
import { Ledger } from './ledger';
import { Answer, PeerIntent, PeerPaymentError } from './types';

// Payment intents: POST /v1/payment_intents, GET /v1/payment_intents/:id, POST …/:id/confirm and …/:id/cancel.

const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
const CANCELABLE = 'requires_payment_method, requires_capture, requires_confirmation, requires_action, processing';
const DECLINE_DOC = 'https://stripe.com/docs/error-codes/card-declined';
/** The provider's test payment methods that decline, by the decline they make. */
const DECLINING: Record<string, { decline_code: string; message: string }> = {
  pm_card_chargeDeclined: { decline_code: 'generic_decline', message: 'Your card was declined.' },
  pm_card_visa_chargeDeclined: { decline_code: 'generic_decline', message: 'Your card was declined.' },
  pm_card_chargeDeclinedInsufficientFunds: { decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
};

export type CancellationReason = (typeof CANCELLATION_REASONS)[number];

/** The answer to a request on the intents' paths, or null for another path. */
export function routeIntents(ledger: Ledger, method: string, path: string, apiKey: string, body: Record<string, unknown>): Answer | null {
  if (method === 'POST' && path === '/v1/payment_intents') return createIntent(ledger, apiKey, body);
  const route = /^\/v1\/payment_intents\/([^/]+)(?:\/(confirm|cancel))?$/.exec(path);
  if (!route || !(method === 'GET' ? !route[2] : method === 'POST' && route[2])) return null;
  const id = decodeURIComponent(route[1]);
  const intent = ledger.owned(apiKey, id);
  if (!intent) return missing('payment_intent', id, 'intent');
  if (method === 'GET') return { status: 200, body: intent };
  return route[2] === 'confirm' ? confirm(ledger, intent, body) : cancelRequest(intent, body);
}

/** The customer paid: the intent is `succeeded` (as after a confirmed card payment); an intent that already succeeded keeps its charge. */
export function succeedIntent(ledger: Ledger, intent: PeerIntent): PeerIntent {
  const charge = intent.status === 'succeeded' && intent.latest_charge ? intent.latest_charge : `ch_${token(24)}`;
  if (!ledger.charged.has(charge)) ledger.charged.set(charge, now());
  return Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: charge, last_payment_error: null });
}

/** The card was declined: the intent needs another payment method, the decline recorded on it. */
export function declineIntent(intent: PeerIntent, decline: { decline_code: string; message: string }): PeerIntent {
  const error: PeerPaymentError = {
    type: 'card_error',
    code: 'card_declined',
    decline_code: decline.decline_code,
    message: decline.message,
    doc_url: DECLINE_DOC,
  };
  return Object.assign(intent, { status: 'requires_payment_method', last_payment_error: error });
}

export function cancelIntent(intent: PeerIntent, reason: string | null): PeerIntent {
  return Object.assign(intent, { status: 'canceled', cancellation_reason: reason, canceled_at: now() });
}

function createIntent(ledger: Ledger, apiKey: string, body: Record<string, unknown>): Answer {
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
  ledger.add(intent, apiKey);
  return { status: 200, body: intent };
}

function confirm(ledger: Ledger, intent: PeerIntent, body: Record<string, unknown>): Answer {
  if (intent.status === 'succeeded') {
    return {
      status: 400,
      body: apiError('invalid_request_error', 'This PaymentIntent has already succeeded.', { code: 'payment_intent_unexpected_state' }),
    };
  }
  if (intent.status === 'canceled') {
    const message =
      'You cannot confirm this PaymentIntent because it has a status of canceled. Only a PaymentIntent with one of the following ' +
      'statuses may be confirmed: requires_confirmation, requires_payment_method, requires_action.';
    return { status: 400, body: apiError('invalid_request_error', message, { code: 'payment_intent_unexpected_state' }) };
  }
  const decline = typeof body.payment_method === 'string' ? DECLINING[body.payment_method] : undefined;
  if (decline) {
    const declined = declineIntent(intent, decline);
    return {
      status: 402,
      body: { error: { ...declined.last_payment_error, payment_intent: declined } },
      deliver: { type: 'payment_intent.payment_failed', object: declined },
    };
  }
  const paid = succeedIntent(ledger, intent);
  return { status: 200, body: paid, deliver: { type: 'payment_intent.succeeded', object: paid } };
}

function cancelRequest(intent: PeerIntent, body: Record<string, unknown>): Answer {
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
    const message =
      `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. ` +
      `Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE}.`;
    return { status: 400, body: apiError('invalid_request_error', message, { code: 'payment_intent_unexpected_state' }) };
  }
  const canceled = cancelIntent(intent, (reason as string | undefined) ?? null);
  return { status: 200, body: canceled, deliver: { type: 'payment_intent.canceled', object: canceled } };
}
