import { UserLinkTokensService } from '../../src/auth/links/user-link-tokens.service';
import { createOpenApiDocument } from '../../src/openapi';
import { seedShop, ShopTenant } from '../orders/checkout-helpers';
import { ApiContract } from '../support/openapi-contract';
import { PaymentPeer } from '../support/payment-peer';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Every operation's documented example, sent through the service on the real database, so that the OpenAPI
 * document can be neither stricter nor looser than the service (issue 41):
 *
 * - the request is the document's own example: the `example` of each property of the JSON request body (nested
 *   objects and arrays of them included), else its `default`, else the first value of its `enum`. Values the
 *   document cannot hold because they belong to one tenant's data (encrypted ids, tokens, passwords: they have
 *   no example) come from FILL, which names the fields it fills; an operation whose example is still incomplete
 *   fails the test, unless SKIPPED says why it is not sent;
 * - the request must validate against the document's request schema (ajv), and the service must not refuse it
 *   with 400: a documented example is a request the service accepts (other refusals, such as 404 for an id of
 *   the example that names nothing in the test's tenant, are answers too);
 * - the answer must be one the document describes (TestApp.request holds every answer to the document).
 *
 * Operations without a JSON request body (GETs, the webhook, the console session's cookie routes) have no
 * request example: they are listed in the summary, not sent here (the other e2e tests send them).
 */

type Json = Record<string, any>;

/** Operations not sent, with the reason. */
const SKIPPED: Record<string, string> = {
  'POST /console/session/sign-in': 'needs the CSRF cookie and x-csrf-token of GET /console/session/csrf (test/console covers it)',
  'POST /auth/oauth/idp/start': 'needs an OpenID Connect provider (IDP_ISSUER_URL): test/idp sends it to a real one',
  'POST /auth/oauth/idp/callback': 'needs the state and code of a login at the OpenID Connect provider: test/idp',
  'POST /auth/oauth/idp/logout': 'needs an OpenID Connect provider (IDP_ISSUER_URL): test/idp',
  'POST /auth/reset-pass': 'needs the reset_password_token of a reset mail (test/auth/reset.e2e.ts reads it from the mail)',
  'POST /customers/reset-password': 'needs the token of a reset mail (test/auth/customers covers it)',
  'POST /user/app/reset-password': 'needs the token of a reset mail (test/auth/customers covers it)',
  'POST /auth/verify-sms-code': 'needs the code of the SMS user-sms-code sent',
  'POST /auth/invite-link': 'needs a core_folders row of the app (folders are legacy data no fixture of the tests makes)',
};

/**
 * 400 answers that are not a refusal of the request's form but the API's answer to the test's data, by operation:
 * the message, and why the example meets it here.
 */
const ANSWERED_400: Record<string, { message: string; why: string }> = {
  'POST /ecommerce/activateToken': {
    message: 'Token not found',
    why: 'the API answers an unknown token 400; the example value is a placeholder no token has',
  },
  'POST /ecommerce/redeemToken': {
    message: 'Token not found',
    why: 'the API answers an unknown token 400; the example value is a placeholder no token has',
  },
  'POST /content/diff': {
    message: 'Validation error',
    why: 'the record has one published version and a draft: the draft has no previous version to compare (the answer names fromCurrentId)',
  },
  'POST /ecommerce/resendOrderMail': { message: 'Cannot resend the mails of an order that is New', why: "the test's order is not paid" },
};

interface Context {
  t: TestApp;
  shop: ShopTenant;
  /** A New order of the shop's customer with one Book in its cart. */
  orderId: string;
  /** A user link token of the plain user (what the account mails carry as userId). */
  userLink: string;
  /** Another New order, for addCart and removeCart. */
  cartOrderId: string;
  /** An admin's token pair from /auth/login. */
  pair: { access_token: string; refresh_token: string };
  adminEmail: string;
  userId: number;
}

/**
 * Values the document has no example for because they are the test tenant's (ids, tokens, passwords), by
 * operation: merged over the document's example. Only fields the example lacks or cannot hold belong here.
 */
const FILL: Record<string, (c: Context) => Json> = {
  'POST /getApp/{domain}': (c) => ({ '{domain}': c.shop.domain }),
  'POST /auth/login': (c) => ({ email: c.adminEmail, password: 'Admin@1234' }),
  'POST /auth/sign-up': () => ({ password: 'Strong@1234' }),
  'POST /auth/refresh-token': (c) => ({ payload: c.pair }),
  'POST /auth/sign-out': (c) => ({ refreshToken: c.pair.refresh_token }),
  'POST /auth/request-pass': (c) => ({ email: c.adminEmail, appID: c.shop.appId }),
  'POST /auth/user-email': (c) => ({ userId: c.userLink }),
  'POST /auth/user-sms-code': (c) => ({ userId: c.userLink }),
  'POST /auth/getFolderLimits': (c) => ({ appID: c.shop.appId, userId: c.userId }),
  'POST /customers/signup': () => ({ email: 'new-customer@example.test', password: 'Strong@1234' }),
  'POST /user/app/signup': () => ({ email: 'new-app-user@example.test', password: 'Strong@1234' }),
  'POST /customers/login': (c) => ({ email: c.shop.customerEmail, password: 'Cust@1234' }),
  'POST /user/app/login': () => ({ email: 'new-app-user@example.test', password: 'Strong@1234' }),
  'POST /customers/request-reset': (c) => ({ email: c.shop.customerEmail }),
  'POST /user/app/request-reset': () => ({ email: 'new-app-user@example.test' }),
  'POST /staff/invite': () => ({ email: 'new-staff@example.test' }),
  'POST /staff/roles': (c) => ({ userId: c.userId }),
  'POST /staff/remove': (c) => ({ userId: c.userId }),
  'POST /message/sendPush': (c) => ({ customerID: String(c.shop.customerId), message: 'Your order has shipped' }),
  'POST /message/log/read': () => ({ id: 1 }),
  'POST /message/log/retry': () => ({ id: 1 }),
  'POST /message/templates/restore': () => ({ version: 1 }),
  'POST /message/templates/testSend': (c) => ({ email: c.adminEmail }),
  // The content operations name their record by _id or masterId (one of them is required: the document lists both as optional).
  'POST /content/edit': (c) => ({ masterId: c.shop.book }),
  'POST /content/stage': (c) => ({ masterId: c.shop.book }),
  'POST /content/publish': (c) => ({ masterId: c.shop.book }),
  'POST /content/promote': (c) => ({ masterId: c.shop.book }),
  'POST /content/history': (c) => ({ masterId: c.shop.book }),
  'POST /content/diff': (c) => ({ masterId: c.shop.book }),
  'POST /content/rollback': (c) => ({ masterId: c.shop.book, toCurrentId: c.shop.book }),
  'POST /content/expire': (c) => ({ masterId: c.shop.tent }),
  'POST /content/delete': (c) => ({ masterId: c.shop.tent }),
  'POST /addrelated': (c) => ({
    data: { parent_table: 'core_products', parent_id: c.shop.voucher, name: 'core_token_template', linked: c.shop.templateId },
  }),
  // The order operations name their order by _orderID or orderID (one of them is required where the document lists both as optional).
  // addCart has two shapes (sessionID, productID, quantity, price; or _orderID and items): the document lists all their fields as optional.
  'POST /ecommerce/addCart': (c) => ({ _orderID: c.cartOrderId, items: [{ productID: c.shop.voucher, Qty: 1, Price: 4000 }] }),
  'POST /ecommerce/removeCart': (c) => ({ _orderID: c.cartOrderId, productID: c.shop.voucher }),
  'POST /ecommerce/getOrder': (c) => ({ _orderID: c.orderId }),
  'POST /ecommerce/checkout': (c) => ({ _orderID: c.orderId }),
  'POST /ecommerce/createPaymentIntent': (c) => ({ _orderID: c.orderId }),
  'POST /ecommerce/paymentComplete': (c) => ({ _orderID: c.orderId }),
  'POST /ecommerce/submitOrder': (c) => ({ _orderID: c.orderId }),
  'POST /ecommerce/refundOrder': (c) => ({ _orderID: c.orderId }),
  'POST /ecommerce/cancelOrder': (c) => ({ _orderID: c.orderId }),
  'POST /ecommerce/resendOrderMail': (c) => ({ _orderID: c.orderId }),
  'POST /ecommerce/orderTimeline': (c) => ({ _orderID: c.orderId }),
  'POST /ecommerce/addOrderNote': (c) => ({ _orderID: c.orderId, text: 'Called the customer' }),
};

function operations(doc: Json): { method: string; path: string; name: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    ['get', 'put', 'post', 'delete', 'patch']
      .filter((m) => item[m])
      .map((m) => ({ method: m.toUpperCase(), path, name: `${m.toUpperCase()} ${path}`, op: item[m] as Json })),
  );
}

describe("every operation's documented example, through the service", () => {
  let peer: PaymentPeer;
  let t: TestApp;
  let doc: Json;
  let contract: ApiContract;
  let context: Context;

  function resolve(schema: Json): Json {
    let s = schema;
    for (let i = 0; i < 20 && s; i++) {
      if (s.$ref) s = doc.components.schemas[String(s.$ref).replace('#/components/schemas/', '')];
      else if (Array.isArray(s.allOf) && s.allOf.length === 1 && !s.properties)
        s = { ...s.allOf[0], ...(s.example === undefined ? {} : { example: s.example }) };
      else return s;
    }
    return s;
  }

  /** The document's example of a schema: its example, default or first enum value; an object from its properties'. */
  function exampleOf(raw: Json, missing: string[], at: string): unknown {
    if (raw.example !== undefined) return raw.example;
    const schema = resolve(raw);
    if (schema.example !== undefined) return schema.example;
    if (schema.properties) {
      const value: Json = {};
      const required = (schema.required ?? []) as string[];
      for (const [key, property] of Object.entries(schema.properties as Json)) {
        const inner: string[] = [];
        const v = exampleOf(property as Json, inner, `${at}.${key}`);
        // An optional property whose own example is incomplete is left out; a required one reports what it lacks.
        if (inner.length > 0 && !required.includes(key)) continue;
        missing.push(...inner);
        if (v !== undefined) value[key] = v;
      }
      for (const key of required) if (value[key] === undefined) missing.push(`${at}.${key}`.replace(/^\./, ''));
      return value;
    }
    if (schema.type === 'array' && schema.items) {
      const item = exampleOf(schema.items, missing, `${at}[0]`);
      return item === undefined ? undefined : [item];
    }
    if (schema.default !== undefined) return schema.default;
    if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null);
    return undefined;
  }

  function headersFor(op: Json): Record<string, string> {
    const alternatives = ((op.security ?? []) as Json[]).map((a) => Object.keys(a));
    const has = (scheme: string) => alternatives.some((a) => a.includes(scheme));
    const siteOnly = alternatives.some((a) => a.length === 1 && a[0] === 'site-id');
    if (has('admin-bearer') && !siteOnly) return context.shop.adminHeaders;
    if (has('customer-bearer') && !siteOnly) return context.shop.customerHeaders;
    if (has('bearer') && !siteOnly) return context.shop.adminHeaders;
    return context.shop.headers;
  }

  beforeAll(async () => {
    peer = await PaymentPeer.start();
    t = await startTestApp({ PAYMENT_API_URL: peer.url, NOTIFY_SENDER_ENABLED: 'false' });
    const shop = await seedShop(t);
    doc = createOpenApiDocument(t.app, t.config) as unknown as Json;
    contract = ApiContract.of(t.app, t.config);
    const order = await t.post('/ecommerce/createOrder', {}, shop.customerHeaders);
    if (order.status !== 201 && order.status !== 200) throw new Error(`createOrder: ${JSON.stringify(order.body)}`);
    await t.post(
      '/ecommerce/addCart',
      { _orderID: order.body.data._id, items: [{ productID: shop.book, Qty: 1, Price: 2500 }] },
      shop.customerHeaders,
    );
    const [admin] = await t.dataSource.query(
      `SELECT id, user_email FROM core_users WHERE app_id = $1 AND primary_role = 'admin' ORDER BY id LIMIT 1`,
      [shop.appId],
    );
    const [user] = await t.dataSource.query(`SELECT id FROM core_users WHERE app_id = $1 AND primary_role <> 'admin' ORDER BY id LIMIT 1`, [
      shop.appId,
    ]);
    const login = await t.post('/auth/login', { email: admin.user_email, password: 'Admin@1234' }, shop.headers);
    const { access_token, refresh_token } = login.body.token;
    const cart = await t.post('/ecommerce/createOrder', {}, shop.customerHeaders);
    await t.dataSource.query(`UPDATE core_users SET mobile = '+61400000009' WHERE id = $1`, [user.id]);
    context = {
      t,
      shop,
      orderId: order.body.data._id,
      cartOrderId: cart.body.data._id,
      userLink: t.get(UserLinkTokensService).issue({ userId: user.id, appId: shop.appId, expires: new Date(Date.now() + 3_600_000) }),
      pair: { access_token, refresh_token },
      adminEmail: admin.user_email,
      userId: user.id,
    };
  });

  afterAll(async () => {
    await t?.close();
    await peer?.stop();
  });

  it('accepts every example the document gives, and answers as the document describes', async () => {
    const problems: string[] = [];
    const sent: string[] = [];
    const withoutBody: string[] = [];
    const statuses: Record<string, number> = {};
    for (const { method, path, name, op } of operations(doc)) {
      const schema = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
      if (!schema) {
        withoutBody.push(name);
        continue;
      }
      if (SKIPPED[name]) continue;
      const missing: string[] = [];
      const fill = FILL[name]?.(context) ?? {};
      const example = { ...(exampleOf(schema, missing, '') as Json), ...fill };
      const unfilled = missing.filter((field) => !(field.split(/[.[]/)[0] in fill));
      if (unfilled.length > 0) {
        problems.push(`${name}: the document gives no example of ${unfilled.join(', ')} (add one to the DTO, or a fill-in or skip here)`);
        continue;
      }
      let url = path;
      for (const key of Object.keys(example).filter((k) => k.startsWith('{'))) {
        url = url.replace(key, encodeURIComponent(String(example[key])));
        delete example[key];
      }
      problems.push(...contract.checkRequest(method, path, example));
      if (url.includes('{')) {
        problems.push(`${name}: no value for the path parameter of ${url}`);
        continue;
      }
      let answer;
      try {
        answer = await t.request(method, url, example, headersFor(op));
      } catch (error) {
        problems.push(`${name}: ${(error as Error).message}`);
        continue;
      }
      sent.push(name);
      statuses[name] = answer.status;
      if (answer.status === 400 && ANSWERED_400[name]?.message !== answer.body?.message)
        problems.push(
          `${name}: the service refused the documented example ${JSON.stringify(example)} with 400: ${JSON.stringify(answer.body)}`,
        );
      if (answer.status >= 500) problems.push(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    console.log(
      `examples: ${sent.length} operations sent (${Object.keys(ANSWERED_400).length} answered 400 by the API's rule for the test's data), ${Object.keys(SKIPPED).length} skipped, ${withoutBody.length} without a request body; ` +
        `statuses ${JSON.stringify(Object.entries(statuses).reduce<Record<number, number>>((n, [, s]) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {}))}`,
    );
    const names = new Set(operations(doc).map(({ name }) => name));
    for (const name of [...Object.keys(SKIPPED), ...Object.keys(FILL), ...Object.keys(ANSWERED_400)])
      if (!names.has(name)) problems.push(`${name} is listed here but is no operation of the document`);
    expect(problems).toEqual([]);
  });
});
