import { SessionTokensService } from '../../src/auth';
import { NotificationSenderService } from '../../src/messaging';
import { product, seedTenant, Tenant } from '../versioning/content-helpers';
import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer, PeerIntent } from '../support/payment-peer';
import { startTestApp, TestApp, TestResponse } from '../support/test-app';

/**
 * A shop tenant for the checkout, webhook and completion tests: published products of every kind, a
 * token template linked to the digital product through /addrelated, two admin users as the order-mail
 * recipients (email_cc, email_bcc) and a customer with a bearer.
 */
export interface ShopTenant extends Tenant {
  /** Master ids: book 2500 (GST 227); ebook 1500 (GST 136, digital, template: 5 activations, 30 days); tent 10000 (GST 909, bond 5000, event); voucher 4000 (GST 364, digital, sold as a gift). */
  book: number;
  ebook: number;
  tent: number;
  voucher: number;
  templateId: number;
  secret: string;
  ccEmail: string;
  bccEmail: string;
  customerId: number;
  customerEmail: string;
  customerHeaders: Record<string, string>;
  domain: string;
  emailFrom: string;
}

let shops = 0;

export async function seedShop(t: TestApp, options: { recipients?: boolean } = {}): Promise<ShopTenant> {
  const n = ++shops;
  const ccEmail = `orders${n}-${process.pid}@example.test`;
  const bccEmail = `books${n}-${process.pid}@example.test`;
  const customerEmail = `cust${n}-${process.pid}@example.test`;
  const tenant = await seedTenant(
    t,
    [
      product('Book', { price: 2500, tax: 227, meta_status: 'Published' }),
      product('E-book', { price: 1500, tax: 136, IsDigital: 1, meta_status: 'Published' }),
      product('Tent hire', { price: 10000, tax: 909, bond: 5000, IsEvent: 1, meta_status: 'Published' }),
      product('Gift voucher', { price: 4000, tax: 364, IsDigital: 1, meta_status: 'Published' }),
    ],
    {
      core_users: [
        { user_email: `admin${n}-${process.pid}@example.test`, password: 'Admin@1234', primary_role: 'admin', firstname: 'Ada' },
        { user_email: ccEmail, password: 'Admin@1234', primary_role: 'admin', firstname: 'Olly' },
        { user_email: bccEmail, password: 'Admin@1234', primary_role: 'user', firstname: 'Bea' },
      ],
      core_customers: [{ email: customerEmail, password: 'Cust@1234', firstname: 'Cy' }],
      core_token_template: [{ name: 'E-book access', expiry_days: 30, maximum_activations: 5 }],
    },
  );
  const [book, ebook, tent, voucher] = tenant.products;
  const sql = (query: string, params: unknown[]) => t.dataSource.query(query, params);
  const [site] = await sql('SELECT domain, email_from, payment_webhook_secret FROM core_sites WHERE id = $1', [tenant.appId]);
  const users: { id: number; user_email: string }[] = await sql('SELECT id, user_email FROM core_users WHERE app_id = $1', [tenant.appId]);
  const idOf = (email: string) => users.find((u) => u.user_email === email)!.id;
  if (options.recipients !== false)
    await sql('UPDATE core_sites SET email_cc = $2, email_bcc = $3 WHERE id = $1', [tenant.appId, idOf(ccEmail), idOf(bccEmail)]);
  const [{ id: templateId }] = await sql('SELECT id FROM core_token_template WHERE app_id = $1', [tenant.appId]);
  const linked = await t.post(
    '/addrelated',
    {
      appID: tenant.appId,
      check: true,
      data: { parent_table: 'core_products', parent_id: ebook, name: 'core_token_template', linked: templateId },
    },
    tenant.adminHeaders,
  );
  if (linked.status !== 200) throw new Error(`addrelated: ${JSON.stringify(linked.body)}`);
  const [{ id: customerId }] = await sql('SELECT id FROM core_customers WHERE app_id = $1', [tenant.appId]);
  const bearer = t
    .get(SessionTokensService)
    .sign({ userId: customerId, appId: tenant.appId, authTable: 'core_customers', role: null }, 'access');
  return {
    ...tenant,
    book,
    ebook,
    tent,
    voucher,
    templateId,
    secret: site.payment_webhook_secret,
    ccEmail,
    bccEmail,
    customerId,
    customerEmail,
    customerHeaders: { ...tenant.headers, authorization: `Bearer ${bearer}` },
    domain: site.domain,
    emailFrom: site.email_from,
  };
}

export interface CartLine {
  productID: number;
  Qty: number;
  Price: number;
  redeemStatus?: 'gift' | 'gift_pending';
}

/** The billing fields a shopper sends in checkout's `data`. */
export function billing(email: string): Record<string, string> {
  return { firstName: 'Ann', lastName: 'Shopper', email, address: '1 Main St', suburb: 'Carlton', postCode: '3053' };
}

/** Drives the shop over HTTP the way a front end and the payment provider do. */
export class ShopClient {
  constructor(
    readonly t: TestApp,
    readonly peer: PaymentPeer,
    readonly shop: ShopTenant,
  ) {}

  async order(lines: CartLine[], headers = this.shop.headers): Promise<{ _id: string; orderID: number }> {
    const created = await this.t.post('/ecommerce/createOrder', { appID: this.shop.appId }, headers);
    if (created.status !== 201) throw new Error(`createOrder: ${JSON.stringify(created.body)}`);
    const { _id, orderID } = created.body.data;
    if (lines.length) {
      const added = await this.t.post('/ecommerce/addCart', { appID: this.shop.appId, _orderID: _id, items: lines }, headers);
      if (added.status >= 300) throw new Error(`addCart: ${JSON.stringify(added.body)}`);
    }
    return { _id, orderID };
  }

  checkout(_orderID: string, amount: number, extra: Record<string, unknown> = {}, headers = this.shop.headers): Promise<TestResponse> {
    return this.t.post(
      '/ecommerce/checkout',
      { appID: this.shop.appId, _orderID, amount, data: billing(this.shop.customerEmail), ...extra },
      headers,
    );
  }

  /** createOrder → addCart → checkout; the intent as the provider holds it. */
  async checkedOut(
    lines: CartLine[],
    headers = this.shop.headers,
  ): Promise<{ _id: string; orderID: number; intent: PeerIntent; total: number }> {
    const order = await this.order(lines, headers);
    const total = Number((await this.orderRow(order.orderID)).total);
    const res = await this.checkout(order._id, total, {}, headers);
    if (res.status !== 201) throw new Error(`checkout: ${JSON.stringify(res.body)}`);
    return { ...order, intent: this.peer.intents.get(res.body.data.paymentIntentID)!, total };
  }

  /** The customer paid: the intent succeeded at the provider, and the signed payment_intent.succeeded event. */
  paid(intent: PeerIntent, options: { id?: string; timestamp?: number; secret?: string } = {}): { payload: string; signature: string } {
    return this.peer.signedEvent('payment_intent.succeeded', this.peer.succeed(intent.id), options.secret ?? this.shop.secret, options);
  }

  deliver(delivery: { payload: string; signature?: string }, path = '/ecommerce/payment-webhook'): Promise<TestResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (delivery.signature !== undefined) headers['stripe-signature'] = delivery.signature;
    return this.t.request('POST', path, delivery.payload, headers);
  }

  async orderRow(orderID: number): Promise<Record<string, any>> {
    return (await this.t.dataSource.query('SELECT * FROM core_orders WHERE id = $1', [orderID]))[0];
  }

  itemRows(orderID: number): Promise<Record<string, any>[]> {
    return this.t.dataSource.query('SELECT * FROM core_order_items WHERE "Order_ID" = $1 ORDER BY id', [orderID]);
  }

  tokenRows(orderID: number): Promise<Record<string, any>[]> {
    return this.t.dataSource.query('SELECT * FROM core_tokens WHERE order_id = $1 ORDER BY order_item_id, id', [orderID]);
  }

  mailRows(orderID: number): Promise<Record<string, any>[]> {
    return this.t.dataSource.query(
      `SELECT * FROM core_notification_log WHERE linked_table = 'core_orders' AND master_id = $1 ORDER BY id`,
      [orderID],
    );
  }

  eventRows(orderID: number): Promise<Record<string, any>[]> {
    return this.t.dataSource.query(
      'SELECT event_id, app_id, type, order_id, payment_intent_id, status, outcome, received FROM core_payment_events WHERE order_id = $1 ORDER BY received',
      [orderID],
    );
  }
}

/** Sends what the outbox holds now (the background sender is off in these tests). */
export function drain(t: TestApp) {
  return t.get(NotificationSenderService).drain();
}

export function mailsTo(smtp: SmtpPeer, subject: string) {
  return smtp.mails.filter((mail) => mail.parsed.subject === subject);
}

/** The peers, app and two shops the completion and webhook tests run against (the sender off: tests drain). */
export interface ShopHarness {
  peer: PaymentPeer;
  smtp: SmtpPeer;
  t: TestApp;
  shop: ShopTenant;
  other: ShopTenant;
  client: ShopClient;
}

/** The shop's app with the payment double and the SMTP peer; `env` adds to (or overrides) its environment. */
export async function startShopHarness(env: Record<string, string> = {}): Promise<ShopHarness> {
  const peer = await PaymentPeer.start();
  const smtp = await SmtpPeer.start();
  const t = await startTestApp({ PAYMENT_API_URL: peer.url, SMTP_URL: smtp.url, NOTIFY_SENDER_ENABLED: 'false', ...env });
  const shop = await seedShop(t);
  return { peer, smtp, t, shop, other: await seedShop(t), client: new ShopClient(t, peer, shop) };
}

export async function stopShopHarness(h: Partial<ShopHarness>): Promise<void> {
  await h.t?.close();
  await h.smtp?.stop();
  await h.peer?.stop();
}
