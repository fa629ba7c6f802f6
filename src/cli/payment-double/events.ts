import Stripe from 'stripe';
import { now, token } from './answers';
import { Ledger } from './ledger';
import { Delivery, DoubleWebhook, PeerCharge, PeerIntent, PeerRefund } from './types';

// Events: signed as the provider signs its webhook deliveries, and delivered to the configured endpoint.

/**
 * A webhook delivery of an event about `object` (an intent, a charge, a refund…): the exact body and its
 * `stripe-signature` header made by the SDK's own test helper. The event's `livemode` is `options.livemode`,
 * else the object's, else that of the intent it names (`payment_intent`). `timestamp` (seconds) signs as of
 * another time, e.g. too old.
 */
export function signedEvent(
  ledger: Ledger,
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
        ? Boolean(ledger.intents.get(fields.payment_intent)?.livemode)
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

/** Delivers a signed event to the webhook endpoint and reports its answer (or why there is none). */
export async function deliverEvent(ledger: Ledger, webhook: DoubleWebhook, { type, object }: Delivery): Promise<void> {
  const { payload, signature } = signedEvent(ledger, type, object, webhook.secret);
  const report = webhook.report ?? console.log;
  try {
    const response = await fetch(webhook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    });
    report(`webhook ${type} for ${object.id} → ${response.status} ${await response.text()}`);
  } catch (error) {
    report(`webhook ${type} for ${object.id} failed: ${(error as Error).message}`);
  }
}
