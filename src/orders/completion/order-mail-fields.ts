import { TenantSite } from '../../common/request-context';
import { OutboxMail, TenantMailTemplates } from '../../messaging';
import { Order, OrderItem } from '../entities';
import { counts, orderTotal } from '../order-totals';

/*
 * The order mails as an app's own templates (docs/messaging.md "Templates per tenant"): the merge fields of
 * order_confirmation, order_admin and order_refund (RESERVED_EVENTS in src/messaging, which checks a saved
 * template against them), filled from what OrderMailsService renders its default files with.
 */

type MergeData = Record<string, unknown>;

/** What a mail says: its subject and body (HTML, text or both), and for an app's own template its `from` and added BCC. */
export interface MailParts {
  subject: string;
  html?: string;
  text?: string;
  from?: string;
  bcc: string[];
}

/**
 * The parts of the mail of `event`: from the app's own enabled template of the event (in `own`, read once per
 * transaction with TenantMailTemplates.own) merged with `fields()`, else `fallback()` (the repository's file).
 */
export async function ownOrDefault(
  templates: TenantMailTemplates,
  own: Awaited<ReturnType<TenantMailTemplates['own']>>,
  event: string,
  fields: () => MergeData,
  fallback: () => Promise<Pick<OutboxMail, 'subject' | 'html' | 'text'>>,
): Promise<MailParts> {
  const template = own.get(event);
  if (!template) return { ...(await fallback()), bcc: [] };
  const mail = templates.mail(event, template, fields());
  return { subject: mail.subject, html: mail.html, text: mail.text, bcc: mail.bcc, ...(mail.from ? { from: mail.from } : {}) };
}

/** Null and undefined merge as empty text (the default files test them with {{#if}}). */
function present(context: MergeData): MergeData {
  return Object.fromEntries(Object.entries(context).map(([key, value]) => [key, value ?? '']));
}

interface ConfirmationItem {
  title: string;
  quantity: number;
  unitPrice: string;
  subtotal: string;
  tax: string;
  bond: string | null;
  giftTokens: string[];
}

/** The confirmation's handlebars context (OrderMailsService.confirmationContext) as merge fields: `items` one line per item. */
export function confirmationFields(context: MergeData): MergeData {
  const items = (context.items as ConfirmationItem[]).map(
    (item) =>
      `${item.quantity} x ${item.title} @ ${item.unitPrice} = ${item.subtotal} (GST ${item.tax})` +
      (item.bond ? `, bond ${item.bond}` : '') +
      (item.giftTokens.length ? `, gift token${item.giftTokens.length > 1 ? 's' : ''} ${item.giftTokens.join(', ')}` : ''),
  );
  return present({ ...context, items: items.join('\n') });
}

/** The refund notice's handlebars context as merge fields. */
export function refundFields(context: MergeData): MergeData {
  return present(context);
}

/** The admin mail's facts (the default's plain text lines) as merge fields. */
export function adminFields(
  site: Pick<TenantSite, 'domain'>,
  order: Order,
  items: OrderItem[],
  money: (cents: number) => string,
  orderDate: string,
): MergeData {
  const listed = items.filter(counts);
  return present({
    domain: site.domain,
    orderId: order.id,
    customerId: order.customer_id,
    status: order.orderstatuslabel,
    payment: `${order.paymentMethodRef ?? ''}${order.TrxnReference ? ` (${order.TrxnReference})` : ''}`,
    orderDate,
    billingEmail: order.BillingEmail,
    items: listed
      .map((item) => `${item.Qty} x ${item.title} @ ${money(item.Price)}${item.bond ? ` + bond ${money(item.bond)}` : ''}`)
      .join('\n'),
    total: money(orderTotal(listed)),
  });
}
