import { StateMachine, Transition } from '../common/state-machine';

/** The values of core_tokens.status. */
export const TOKEN_STATUSES = ['pending', 'gift_pending', 'active', 'expired'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

/**
 * Why a token expired (core_tokens.expired_reason): `expiry` its own expiry date (reachExpiry), `admin`
 * expireToken, `cancel` cancelOrder, `refund` a refund in full of its order, `dispute` a dispute of its
 * order's payment lost. Only `refund` is ever undone (`restore`: that refund failed at the provider); the
 * others are final, and expiring an order's tokens again for one of them makes a `refund` expiry final too.
 */
export const TOKEN_EXPIRY_REASONS = ['expiry', 'admin', 'cancel', 'refund', 'dispute'] as const;
export type TokenExpiryReason = (typeof TOKEN_EXPIRY_REASONS)[number];
/** The one expiry a later event may undo. */
export const RESTORABLE_EXPIRY: TokenExpiryReason = 'refund';
/** The reasons an order's tokens expire for together (TokenIssuerService.expireOrderTokens). */
export type OrderExpiryReason = Extract<TokenExpiryReason, 'cancel' | 'refund' | 'dispute'>;

/** One row of the token status table: the statuses a trigger applies to (empty for issuance: the token does not exist yet) and the status it leaves. */
export interface TokenTransition extends Transition<TokenStatus> {
  /**
   * true: the row applies only to an unredeemed gift (a token issued as a gift, `gift`, that has no owner
   * yet); false: only to any other token; absent: to both.
   */
  unredeemedGift?: boolean;
  to: TokenStatus;
  /** What else happens (documentation, and what the service writes in the same statement). */
  also: string;
}

/**
 * The token status table, one entry per trigger. Services read `from` and
 * `unredeemedGift` for the WHERE of their conditional UPDATE and `to` for its SET, so a status change is
 * decided here only.
 */
export const TOKEN_TRANSITIONS = {
  /** Order completion, an IsDigital item that is not a gift. A linked template's status_default (pending or active) replaces `to`. */
  issue: {
    from: [],
    to: 'pending',
    also: 'activations 0; expiry from the template; linked to the purchaser (core_related core_customers → core_tokens)',
  },
  /** Order completion, an item whose RedeemStatus is gift or gift_pending. */
  issueGift: {
    from: [],
    to: 'gift_pending',
    also: 'no customer and no ownership link; the value goes to the confirmation mail and orderStatus',
  },
  /** activateToken on a valid token (not expired by date, activations below the maximum). */
  activate: { from: ['pending', 'active'], to: 'active', also: 'activations + 1; last_activated now' },
  /** validateToken or activateToken find expiry_date passed. */
  reachExpiry: { from: ['pending', 'active'], to: 'expired', also: "validation fails with 'Token has expired'" },
  /** expireToken (admin): always. */
  expire: { from: TOKEN_STATUSES, to: 'expired', also: 'nothing else' },
  /**
   * extendToken (admin): an expired token becomes active; every other status keeps its status and only gets the new
   * expiry. A redeemed gift (it has an owner) is such a token.
   */
  extend: { from: ['expired'], unredeemedGift: false, to: 'active', also: 'expiry_date = the later of now and expiry_date, plus days' },
  /** extendToken on an expired gift nobody redeemed: it stays a gift, so it can still be redeemed (and validate and activate still refuse it). */
  extendGift: { from: ['expired'], unredeemedGift: true, to: 'gift_pending', also: 'expiry_date as for extend; no owner' },
  /**
   * A refund in full that expired its order's tokens failed at the provider: each token that refund expired
   * (expired_reason `refund`, and only those) gets back the status it had, status_before_expiry, which
   * replaces `to`. A restored token whose expiry date passed meanwhile reaches its expiry at its next check.
   */
  restore: {
    from: ['expired'],
    to: 'active',
    also: 'status = status_before_expiry; expired_reason, expired_at and status_before_expiry cleared',
  },
  /** redeemToken by an authenticated customer, on a token not expired by date and below its maximum. */
  redeem: {
    from: ['gift_pending'],
    to: 'active',
    also: 'customer_id = the caller, activations 1, last_activated now, ownership link to the caller',
  },
} as const satisfies Record<string, TokenTransition>;

export type TokenTrigger = keyof typeof TOKEN_TRANSITIONS;

export const tokenMachine = new StateMachine<TokenStatus, TokenTrigger, TokenTransition>('token', TOKEN_TRANSITIONS);

export function isTokenStatus(value: unknown): value is TokenStatus {
  return (TOKEN_STATUSES as readonly unknown[]).includes(value);
}

/** The status `trigger` leaves a token of `status` in (an unredeemed gift or not), or null when the trigger does not apply to it. */
export function statusAfter(trigger: TokenTrigger, status: TokenStatus, unredeemedGift: boolean): TokenStatus | null {
  const transition: TokenTransition = TOKEN_TRANSITIONS[trigger];
  if (transition.unredeemedGift !== undefined && transition.unredeemedGift !== unredeemedGift) return null;
  return tokenMachine.next(trigger, status);
}

/** `trigger`'s from-statuses, for the `status IN (:...from)` of its conditional UPDATE. */
export function fromStatuses(trigger: TokenTrigger): TokenStatus[] {
  return tokenMachine.from(trigger);
}
