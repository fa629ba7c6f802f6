import { errorTable } from '../common/api-error';

/**
 * The shop's failures other than validation errors (those name a field: ApiError.field). An order that
 * does not exist, belongs to another app or another customer, or is named by a tampered encrypted id is
 * always ORDER_NOT_FOUND, so a caller cannot tell them apart.
 */
export const ordersError = errorTable({
  ORDER_NOT_FOUND: { status: 404, message: 'Order not found' },
  /** The order's status does not allow the action; detail: "<action> an order that is <status>". */
  ORDER_STATE: { status: 400, message: (detail) => `Cannot ${detail}` },
  /** The app has no private key for the chosen mode, or no webhook secret (detail: `<core_sites column> is not set`). */
  PAYMENT_NOT_CONFIGURED: { status: 400, message: (detail) => `Payments are not configured for this app (${detail})` },
  /** The payment provider failed or could not be reached; detail: what it said. */
  PAYMENT_PROVIDER_ERROR: { status: 502, message: (detail) => `Payment provider error: ${detail}` },
  /** The provider refused a payment request as invalid (detail: its message), e.g. an idempotency key reused with other parameters. */
  PAYMENT_REQUEST_INVALID: { status: 400, message: (detail) => `Payment request rejected by the provider: ${detail}` },
  /** A card error from the provider (detail: its message). */
  PAYMENT_DECLINED: { status: 400, message: (detail) => `Payment declined: ${detail}` },
  /** A payment intent id that is malformed, or unknown to the provider under the app's key. */
  PAYMENT_INTENT_NOT_FOUND: { status: 404, message: 'Payment intent not found' },
  /** No stripe-signature header, a malformed, wrong or too old signature, or an altered body (the reason goes to the log). */
  INVALID_WEBHOOK_SIGNATURE: { status: 400, message: 'Invalid payment webhook signature' },
  /** A correctly signed body that is not a JSON event. */
  INVALID_WEBHOOK_PAYLOAD: { status: 400, message: 'Invalid payment webhook payload' },
  PAYMENT_NOT_SUCCEEDED: { status: 400, message: 'Payment has not succeeded' },
  /** checkout or createPaymentIntent for an order without items that count (all removed or Cancelled). */
  ORDER_EMPTY: { status: 400, message: 'The order has no items to pay for' },
  /** paymentComplete: the intent's metadata names another app or order. */
  PAYMENT_NOT_FOR_ORDER: { status: 400, message: 'Payment intent does not belong to this order' },
  /** paymentComplete: the intent's amount is not the order's total (the cart changed after checkout). */
  PAYMENT_AMOUNT_MISMATCH: { status: 400, message: 'Payment amount does not match the order total' },
  /** paymentComplete: the intent's currency is not the order's. */
  PAYMENT_CURRENCY_MISMATCH: { status: 400, message: 'Payment currency does not match the order currency' },
  /** paymentComplete: a test-mode intent on a production instance (or a live one for an app marked payment_test_mode). */
  PAYMENT_MODE_MISMATCH: { status: 400, message: 'Payment mode (test or live) is not accepted for this app' },
  /** paymentComplete: the cart changed after the checkout that made the intent (same amount, other items). */
  PAYMENT_CART_CHANGED: { status: 409, message: 'The cart changed after this payment was made: check out again' },
  /** submitOrder `Order Only` of an order none of whose items counts (all removed or Cancelled). */
  NOTHING_TO_SUBMIT: { status: 409, message: 'The order has no items to submit' },
  /** cancelOrder of a New order one of whose payment intents took or is taking money (detail: the intent id). */
  PAYMENT_IN_FLIGHT: {
    status: 409,
    message: (detail) =>
      `A payment of this order is in flight (${detail}): it completes the order; cancel the order once it is Paid, which refunds it`,
  },
  /** cancelOrder found the order paid again each time it had refunded it (three turns): someone keeps paying it. */
  ORDER_BUSY: { status: 409, message: 'The order is being paid or refunded right now: try again shortly' },
  /** refundOrder: the order is not Paid by card, or nothing of its payment is left to refund. */
  ORDER_NOT_PAID: { status: 409, message: 'Order is not paid' },
  /** refundOrder: the payment is disputed (the provider refuses refunds of a disputed charge; the dispute decides the money). */
  ORDER_DISPUTED: { status: 409, message: 'The payment of this order is disputed: it cannot be refunded' },
});

export type OrdersErrorCode = keyof typeof ordersError.table;
