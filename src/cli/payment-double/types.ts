// The provider's objects as its API returns them (the fields the shop and the SDK use), and the double's own shapes.

/** A card decline as the provider records it on the intent (`last_payment_error`). */
export interface PeerPaymentError {
  type: 'card_error';
  code: 'card_declined';
  /** `generic_decline` (pm_card_chargeDeclined, pm_card_visa_chargeDeclined, `decline()`),
   * `insufficient_funds` (pm_card_chargeDeclinedInsufficientFunds). */
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

/** Where the double delivers its events (the provider's webhook endpoint). */
export interface DoubleWebhook {
  url: string;
  secret: string;
  /** Where each delivery's outcome is reported (default: stdout). */
  report?: (line: string) => void;
}

/** An event the double delivers to the webhook before it answers the request that caused it. */
export type Delivery = { type: string; object: { id: string } };
/** The double's answer to one request, and the event it delivers first. */
export type Answer = { status: number; body: unknown; headers?: Record<string, string>; deliver?: Delivery };
