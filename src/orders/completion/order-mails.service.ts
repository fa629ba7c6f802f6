import { Inject, Injectable, Logger } from '@nestjs/common';
import { AccountsService } from '../../auth';
import { RequestContext, TenantSite } from '../../common/request-context';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { MailOutboxService, OutboxMail, TenantMailTemplates } from '../../messaging';
import { TokenRow } from '../../tokens';
import { isGift, Order, OrderItem } from '../entities';
import { adminFields, confirmationFields, ownOrDefault, refundFields } from './order-mail-fields';
import { qrImageUrl } from './order-qr';
import { counts, orderTotal } from '../order-totals';

/** core_notification_log.event of the two completion mails. */
export const ADMIN_MAIL_EVENT = 'order_admin';
export const CONFIRMATION_MAIL_EVENT = 'order_confirmation';
export const CONFIRMATION_TEMPLATE = 'confirmation.html';
export const REFUND_MAIL_EVENT = 'order_refund';
export const REFUND_TEMPLATE = 'refund.html';

/** `<domain> - Order#:<orderID> Submitted`: the admin mail of order completion. */
export function adminSubject(site: Pick<TenantSite, 'domain'>, orderId: number): string {
  return `${site.domain} - Order#:${orderId} Submitted`;
}

export function confirmationSubject(site: Pick<TenantSite, 'domain'>, orderId: number): string {
  return `${site.domain} - Order confirmation #${orderId}`;
}

export function refundSubject(site: Pick<TenantSite, 'domain'>, orderId: number): string {
  return `${site.domain} - Refund for order #${orderId}`;
}

/** What one refund mail says. */
export interface RefundNotice {
  /** Cents of this refund. */
  amount: number;
  reason: string | null;
}

/**
 * The app's administrator recipients. `visible`: the core_users account named by core_sites.email_cc (To
 * of the admin mail, CC of the confirmation); `hidden`: the one named by email_bcc (BCC of both, so a
 * customer never sees it). With neither set, the app's own sender address (core_sites.email_from) stands in.
 */
export interface AdminRecipients {
  visible: string[];
  hidden: string[];
}

/**
 * The two emails of order completion, written to the mail
 * outbox (core_notification_log) in the completion's transaction and sent by the background sender once
 * it committed, so a crash between commit and send still sends each exactly once.
 *
 *   1. admin: plain text, subject `<domain> - Order#:<orderID> Submitted`, order id and customer id, to the
 *      administrator recipients;
 *   2. confirmation: templates/confirmation.html (handlebars, strict, escaped) to the order's BillingEmail,
 *      administrators in CC, subject `<domain> - Order confirmation #<orderID>`.
 *
 * From: core_sites.email_from, else no-reply@<domain>. An app with disable_email set gets neither (the
 * app sends its own). An order without BillingEmail gets no confirmation (logged).
 */
@Injectable()
export class OrderMailsService {
  private readonly logger = new Logger(OrderMailsService.name);

  constructor(
    private readonly outbox: MailOutboxService,
    private readonly accounts: AccountsService,
    private readonly templates: TenantMailTemplates,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Writes the admin mail, then the confirmation, in the context's transaction (one statement); how many were
   * written. `only` writes one of them (a staff member's resend).
   */
  async write(
    ctx: RequestContext,
    order: Order,
    items: OrderItem[],
    tokens: TokenRow[],
    only?: typeof ADMIN_MAIL_EVENT | typeof CONFIRMATION_MAIL_EVENT,
  ): Promise<number> {
    const site = ctx.app;
    if (site.disable_email) {
      this.logger.log({ appId: site.id, orderId: order.id }, 'order emails not written: disable_email is set for the app');
      return 0;
    }
    const admins = await this.adminRecipients(ctx);
    const from = site.email_from?.trim() || `no-reply@${site.domain}`;
    const mails: OutboxMail[] = [];
    // The app's own templates of the two mails, if it saved any (docs/messaging.md "Templates per tenant"); else the defaults.
    const own = await this.templates.own(ctx, [ADMIN_MAIL_EVENT, CONFIRMATION_MAIL_EVENT]);

    // Step 4: the admin email (unless only the confirmation is resent).
    if (only === CONFIRMATION_MAIL_EVENT) {
      this.logger.log({ appId: site.id, orderId: order.id }, 'order confirmation resent');
    } else if (admins.visible.length + admins.hidden.length === 0) {
      this.logger.warn(
        { appId: site.id, orderId: order.id },
        'admin order email not written: the app has no email_cc, email_bcc or email_from',
      );
    } else {
      const parts = await ownOrDefault(
        this.templates,
        own,
        ADMIN_MAIL_EVENT,
        () => adminFields(site, order, items, moneyFormat(order.currency), formatDate(order.order_date ?? new Date())),
        async () => ({ subject: adminSubject(site, order.id), text: adminText(site, order, items) }),
      );
      mails.push({
        event: ADMIN_MAIL_EVENT,
        from,
        to: admins.visible[0] ?? null,
        cc: admins.visible.slice(1),
        ...parts,
        bcc: [...admins.hidden, ...parts.bcc],
        linkedTable: 'core_orders',
        masterId: order.id,
      });
    }

    // Step 5: the customer email (unless only the admin mail is resent).
    const to = order.BillingEmail?.trim();
    if (only === ADMIN_MAIL_EVENT) {
      this.logger.log({ appId: site.id, orderId: order.id }, 'admin order email resent');
    } else if (!to) {
      this.logger.warn({ appId: site.id, orderId: order.id }, 'order confirmation not written: the order has no BillingEmail');
    } else {
      const context = this.confirmationContext(ctx, order, items, tokens);
      const parts = await ownOrDefault(
        this.templates,
        own,
        CONFIRMATION_MAIL_EVENT,
        () => confirmationFields(context),
        async () => ({ subject: confirmationSubject(site, order.id), html: await this.outbox.render(CONFIRMATION_TEMPLATE, context) }),
      );
      mails.push({
        event: CONFIRMATION_MAIL_EVENT,
        from,
        to,
        cc: admins.visible.filter((address) => address.toLowerCase() !== to.toLowerCase()),
        ...parts,
        bcc: [...admins.hidden, ...parts.bcc].filter((address) => address.toLowerCase() !== to.toLowerCase()),
        linkedTable: 'core_orders',
        masterId: order.id,
      });
    }
    await this.outbox.enqueueAll(ctx, mails);
    return mails.length;
  }

  /**
   * The refund notice (templates/refund.html) to the order's BillingEmail, in the context's transaction:
   * `order` as the refund left it (refunded_total included). None for an app with disable_email, an order
   * completed by REDO, or one without BillingEmail. Whether one was written.
   */
  async writeRefund(ctx: RequestContext, order: Order, refund: RefundNotice): Promise<boolean> {
    const site = ctx.app;
    const to = order.BillingEmail?.trim();
    if (site.disable_email || order.paymentMethodRef === 'REDO' || !to) {
      this.logger.log(
        { appId: site.id, orderId: order.id, disabled: site.disable_email, hasEmail: Boolean(to) },
        'refund email not written',
      );
      return false;
    }
    const money = moneyFormat(order.currency);
    const context = {
      domain: site.domain,
      siteName: site.name ?? site.domain,
      logoUrl: absoluteUrl(site, site.logo),
      orderId: order.id,
      billingName: [order.BillingFirstName, order.BillingLastName].filter((part) => part?.trim()).join(' ') || null,
      amount: money(refund.amount),
      refundedTotal: money(order.refunded_total),
      remaining: money(Math.max(0, order.total - order.refunded_total)),
      reason: refund.reason,
    };
    const parts = await ownOrDefault(
      this.templates,
      await this.templates.own(ctx, [REFUND_MAIL_EVENT]),
      REFUND_MAIL_EVENT,
      () => refundFields(context),
      async () => ({ subject: refundSubject(site, order.id), html: await this.outbox.render(REFUND_TEMPLATE, context) }),
    );
    await this.outbox.enqueue(ctx, {
      event: REFUND_MAIL_EVENT,
      from: site.email_from?.trim() || `no-reply@${site.domain}`,
      to,
      cc: [],
      ...parts,
      linkedTable: 'core_orders',
      masterId: order.id,
    });
    return true;
  }

  /** email_cc and email_bcc of the app as core_users addresses (one read), else email_from. */
  async adminRecipients(ctx: RequestContext): Promise<AdminRecipients> {
    const site = ctx.app;
    const ids = [site.email_cc, site.email_bcc].filter((id): id is number => typeof id === 'number');
    const emails = await this.accounts.userEmails(ctx, ids);
    const visible = site.email_cc !== null ? [emails.get(site.email_cc)].filter(isAddress) : [];
    const hidden = site.email_bcc !== null ? [emails.get(site.email_bcc)].filter(isAddress).filter((a) => !visible.includes(a)) : [];
    if (visible.length + hidden.length === 0 && site.email_from?.trim()) visible.push(site.email_from.trim());
    return { visible, hidden };
  }

  /** The fields templates/confirmation.html uses (strict: every one present, null where it does not apply). */
  confirmationContext(ctx: RequestContext, order: Order, items: OrderItem[], tokens: TokenRow[]): Record<string, unknown> {
    const site = ctx.app;
    const money = moneyFormat(order.currency);
    const listed = items.filter(counts);
    const giftValues = (item: OrderItem) =>
      isGift(item) ? tokens.filter((t) => t.order_item_id === item.id).map((t) => t.token_value) : [];
    return {
      domain: site.domain,
      siteName: site.name ?? site.domain,
      logoUrl: absoluteUrl(site, site.logo),
      orderId: order.id,
      orderDate: formatDate(order.order_date ?? new Date()),
      billingName: [order.BillingFirstName, order.BillingLastName].filter((part) => part?.trim()).join(' ') || null,
      items: listed.map((item) => ({
        title: item.title,
        quantity: item.Qty,
        unitPrice: money(item.Price),
        subtotal: money(item.Qty * item.Price),
        tax: money(item.Qty * item.tax),
        bond: item.bond !== 0 ? money(item.Qty * item.bond) : null,
        giftTokens: giftValues(item),
      })),
      totalTax: money(listed.reduce((sum, item) => sum + item.Qty * item.tax, 0)),
      total: money(orderTotal(listed)),
      qrCodeUrl: qrImageUrl(site, this.config.basePath, order.id),
      closing: listed.some((item) => item.IsEvent === 1) ? 'Thank you for your booking.' : 'Thank you for your order.',
    };
  }
}

function adminText(site: TenantSite, order: Order, items: OrderItem[]): string {
  const money = moneyFormat(order.currency);
  const listed = items.filter(counts);
  return [
    `Order#:${order.id} was submitted on ${site.domain}.`,
    '',
    `Order ID: ${order.id}`,
    `Customer ID: ${order.customer_id ?? ''}`,
    `Status: ${order.orderstatuslabel}`,
    `Payment: ${order.paymentMethodRef ?? ''}${order.TrxnReference ? ` (${order.TrxnReference})` : ''}`,
    `Order date: ${formatDate(order.order_date ?? new Date())}`,
    `Billing email: ${order.BillingEmail ?? ''}`,
    '',
    ...listed.map((item) => `${item.Qty} x ${item.title} @ ${money(item.Price)}${item.bond ? ` + bond ${money(item.bond)}` : ''}`),
    '',
    `Total (inc GST): ${money(orderTotal(listed))}`,
    '',
  ].join('\n');
}

function isAddress(value: string | undefined): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

const MONEY_FORMATS = new Map<string, Intl.NumberFormat | null>();

/** Cents as an amount with 2 decimals in the order's currency (`$25.00` for aud). Formatters are cached: building one costs far more than using it. */
export function moneyFormat(currency: string): (cents: number) => string {
  const code = currency.toUpperCase();
  let format = MONEY_FORMATS.get(code);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat('en-AU', { style: 'currency', currency: code, minimumFractionDigits: 2, maximumFractionDigits: 2 });
    } catch {
      format = null; // not a currency Intl knows: the plain amount and the code
    }
    if (MONEY_FORMATS.size < 200) MONEY_FORMATS.set(code, format);
  }
  return (cents) => (format ? format.format(cents / 100) : `${(cents / 100).toFixed(2)} ${code}`);
}

const DATE_FORMAT = new Intl.DateTimeFormat('en-AU', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: 'UTC',
});

/** `23 Nov 2026, 10:05 UTC`: the server records UTC, and the app has no time zone of its own. */
function formatDate(date: Date): string {
  const parts = DATE_FORMAT.formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('day')} ${part('month')} ${part('year')}, ${part('hour')}:${part('minute')} UTC`;
}

/** The app's logo as an absolute URL (a path is on the app's domain); null without one. */
function absoluteUrl(site: Pick<TenantSite, 'domain'>, path: string | null): string | null {
  const value = path?.trim();
  if (!value) return null;
  if (/^https?:\/\//i.test(value)) return value;
  return `https://${site.domain}${value.startsWith('/') ? '' : '/'}${value}`;
}
