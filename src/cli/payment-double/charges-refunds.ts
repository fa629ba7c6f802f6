import { apiError, invalidAmount, metadataOf, missing, money, now, oneOf, token } from './answers';
import { Ledger } from './ledger';
import { Answer, PeerCharge, PeerIntent, PeerList, PeerRefund } from './types';

// Charges and refunds: POST /v1/refunds, GET /v1/refunds, GET /v1/refunds/:id, GET /v1/charges/:id.

const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;

/** The answer to a request on the refunds' and charges' paths, or null for another path. */
export function routeChargesRefunds(
  ledger: Ledger,
  method: string,
  path: string,
  query: Record<string, unknown>,
  apiKey: string,
  body: Record<string, unknown>,
): Answer | null {
  if (method === 'POST' && path === '/v1/refunds') return createRefund(ledger, apiKey, body);
  if (method !== 'GET') return null;
  if (path === '/v1/refunds') return listRefunds(ledger, apiKey, query);
  const refundRoute = /^\/v1\/refunds\/([^/]+)$/.exec(path);
  if (refundRoute) {
    const id = decodeURIComponent(refundRoute[1]);
    const refund = ledger.refunds.get(id);
    if (!refund || !ledger.owned(apiKey, refund.payment_intent)) return missing('refund', id, 'id');
    return { status: 200, body: refund };
  }
  const chargeRoute = /^\/v1\/charges\/([^/]+)$/.exec(path);
  if (chargeRoute) {
    const id = decodeURIComponent(chargeRoute[1]);
    const intent = ledger.intentOfCharge(apiKey, id);
    if (!intent) return missing('charge', id, 'id');
    return { status: 200, body: chargeOf(ledger, intent) };
  }
  return null;
}

/** The charge of a succeeded intent (its `latest_charge`), with its refunds newest first. */
export function chargeOf(ledger: Ledger, intent: PeerIntent): PeerCharge {
  if (!intent.latest_charge) throw new Error(`PaymentPeer: intent ${intent.id} has no charge (${intent.status})`);
  const refunds = [...(ledger.refundsOf.get(intent.id) ?? [])].reverse();
  const amountRefunded = intent.amount - ledger.unrefunded(intent);
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
    created: ledger.charged.get(intent.latest_charge) ?? intent.created,
    refunds: { object: 'list', data: refunds, has_more: false, url: `/v1/charges/${intent.latest_charge}/refunds` },
  };
}

/** The provider's refusal of refunding `amount` (default: what is left) of `intent`, or null. */
export function refundRefusal(ledger: Ledger, intent: PeerIntent, amount: number | undefined): Answer | null {
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
  const left = ledger.unrefunded(intent);
  if (left === 0) {
    return {
      status: 400,
      body: apiError('invalid_request_error', `Charge ${intent.latest_charge} has already been refunded.`, {
        code: 'charge_already_refunded',
      }),
    };
  }
  if (amount !== undefined && amount > left) {
    const message = `Refund amount (${money(amount, intent.currency)}) is greater than unrefunded amount on charge (${money(left, intent.currency)})`;
    return { status: 400, body: apiError('invalid_request_error', message, { code: 'amount_too_large', param: 'amount' }) };
  }
  return null;
}

/** A succeeded refund of the intent's charge, recorded. */
export function addRefund(
  ledger: Ledger,
  intent: PeerIntent,
  amount: number,
  reason: PeerRefund['reason'],
  metadata: Record<string, string>,
): PeerRefund {
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
  ledger.refunds.set(refund.id, refund);
  const ofIntent = ledger.refundsOf.get(intent.id) ?? [];
  ofIntent.push(refund);
  ledger.refundsOf.set(intent.id, ofIntent);
  return refund;
}

function createRefund(ledger: Ledger, apiKey: string, body: Record<string, unknown>): Answer {
  const intentId = body.payment_intent;
  if (typeof intentId !== 'string' || intentId === '') {
    const message =
      body.charge !== undefined
        ? 'This double refunds by payment_intent only: pass payment_intent instead of charge.'
        : 'Missing required param: payment_intent.';
    return { status: 400, body: apiError('invalid_request_error', message, { code: 'parameter_missing', param: 'payment_intent' }) };
  }
  const intent = ledger.owned(apiKey, intentId);
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
  const refused = refundRefusal(ledger, intent, amount);
  if (refused) return refused;
  const refund = addRefund(
    ledger,
    intent,
    amount ?? ledger.unrefunded(intent),
    (reason as PeerRefund['reason'] | undefined) ?? null,
    metadataOf(body.metadata),
  );
  return { status: 200, body: refund, deliver: { type: 'charge.refunded', object: chargeOf(ledger, intent) } };
}

/** GET /v1/refunds: newest first, by intent or charge, in pages the SDK's auto-pagination walks. */
function listRefunds(ledger: Ledger, apiKey: string, query: Record<string, unknown>): Answer {
  let refunds = [...ledger.refunds.values()].filter((refund) => ledger.owned(apiKey, refund.payment_intent)).reverse();
  if (query.payment_intent !== undefined) {
    const id = String(query.payment_intent);
    if (!ledger.owned(apiKey, id)) return missing('payment_intent', id, 'payment_intent');
    refunds = refunds.filter((refund) => refund.payment_intent === id);
  }
  if (query.charge !== undefined) {
    const id = String(query.charge);
    if (!ledger.intentOfCharge(apiKey, id)) return missing('charge', id, 'charge');
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
