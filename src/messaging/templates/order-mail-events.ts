/*
 * The events of the service's own mails that a tenant may take over with a template of its own
 * (docs/messaging.md "Templates per tenant"): the order mails that src/orders/completion/order-mails.service.ts writes
 * (their core_notification_log events). Without an enabled template of the app for the event, the mail is
 * rendered from the repository's file as before. A template for one of these events may use only the merge
 * fields listed here (checked when it is saved), which order-mails.service.ts fills.
 */

export interface ReservedEvent {
  /** What the mail is. */
  description: string;
  /** Merge fields, each with what it holds. */
  fields: Record<string, string>;
  /** Values the preview uses when it is given no data. */
  sample: Record<string, string>;
}

const COMMON_FIELDS = {
  domain: "The app's domain",
  siteName: "The app's name (its domain when it has none)",
  logoUrl: "Absolute URL of the app's logo (empty without one)",
  orderId: 'The order id',
  billingName: 'Billing first and last name (empty without one)',
};

const COMMON_SAMPLE = {
  domain: 'shop.example.test',
  siteName: 'Sample Shop',
  logoUrl: 'https://shop.example.test/img/logo.png',
  orderId: '1001',
  billingName: 'Ann Shopper',
};

export const RESERVED_EVENTS: Record<string, ReservedEvent> = {
  order_confirmation: {
    description: "The order confirmation to the order's billing email (default: templates/confirmation.html)",
    fields: {
      ...COMMON_FIELDS,
      orderDate: 'Server time of the completion, e.g. 23 Nov 2026, 10:05 UTC',
      items:
        'The items not cancelled, one line each: quantity x title, unit price, subtotal, GST, bond and gift token values where they apply',
      totalTax: 'The GST included in the total (2 decimals, in the order currency)',
      total: 'The order total, items plus bonds (2 decimals, in the order currency)',
      qrCodeUrl: "The order's QR code image (GET /ecommerce/genCode/<orderId>)",
      closing: "'Thank you for your booking.' when an item is an event, else 'Thank you for your order.'",
    },
    sample: {
      ...COMMON_SAMPLE,
      orderDate: '23 Nov 2026, 10:05 UTC',
      items: '2 x Book @ $25.00 = $50.00 (GST $4.54)\n1 x Tent hire @ $100.00 = $100.00 (GST $9.09), bond $50.00',
      totalTax: '$13.63',
      total: '$200.00',
      qrCodeUrl: 'https://shop.example.test/ecommerce/genCode/1001',
      closing: 'Thank you for your booking.',
    },
  },
  order_admin: {
    description: "The notice of a completed order to the app's administrators (default: a plain-text mail)",
    fields: {
      domain: "The app's domain",
      orderId: 'The order id',
      customerId: "The order's customer id (empty without one)",
      status: "The order's status label",
      payment: 'The payment method and its reference',
      orderDate: 'Server time of the completion',
      billingEmail: "The order's billing email",
      items: 'The items not cancelled, one line each: quantity x title @ unit price (+ bond)',
      total: 'The order total (inc GST)',
    },
    sample: {
      domain: 'shop.example.test',
      orderId: '1001',
      customerId: '42',
      status: 'Paid',
      payment: 'card (pi_123)',
      orderDate: '23 Nov 2026, 10:05 UTC',
      billingEmail: 'ann@example.test',
      items: '2 x Book @ $25.00\n1 x Tent hire @ $100.00 + bond $50.00',
      total: '$200.00',
    },
  },
  order_refund: {
    description: "The refund notice to the order's billing email (default: templates/refund.html)",
    fields: {
      ...COMMON_FIELDS,
      amount: 'The amount of this refund (2 decimals, in the order currency)',
      refundedTotal: 'Everything refunded on the order so far, this refund included',
      remaining: 'What the order still stands paid for',
      reason: 'The reason given with the refund (empty without one)',
    },
    sample: { ...COMMON_SAMPLE, amount: '$25.00', refundedTotal: '$25.00', remaining: '$175.00', reason: 'Out of stock' },
  },
};

export function reservedEvent(event: string): ReservedEvent | undefined {
  return Object.hasOwn(RESERVED_EVENTS, event) ? RESERVED_EVENTS[event] : undefined;
}
