import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import jwt from 'jsonwebtoken';
import Stripe from 'stripe';
import { SessionTokensService } from '../../src/auth';
import { UserLinkTokensService } from '../../src/auth/links/user-link-tokens.service';
import { CONFIDENTIAL, RELAY_URI, ssoEnv } from '../idp/support/sso-helpers';
import { OidcPeer } from '../idp/support/oidc-peer';
import { seedShop, ShopTenant } from '../orders/checkout-helpers';
import { PaymentPeer } from '../support/payment-peer';
import { ApiContract } from '../support/openapi-contract';
import { startTestApp, TestApp } from '../support/test-app';
import { FuzzRequest, Identity, Known, RequestArbitraries } from './support/arbitraries';
import { OpenApi, Operation } from './support/openapi';
import { Answer, answerProblems, RowFingerprint } from './support/oracle';

/**
 * Every operation of the service's OpenAPI document (so a new endpoint is fuzzed without editing this file),
 * with bodies generated from its DTO's schema and then broken (wrong types, missing and extra fields, huge and
 * deep values, `__proto__` keys, NUL bytes, invalid UTF-8, odd numbers, other content types), garbage path
 * parameters, query strings and headers; anonymous, with an admin bearer and with a customer bearer. Each
 * answer: never a 500 (nor another 5xx the operation does not document), the failure envelope for 4xx, no
 * stack trace or SQL; and a request answered 4xx wrote no row.
 *
 * FUZZ_RUNS (default 30) is the number of requests per operation and identity. A failure's report prints
 * fast-check's seed and path: FUZZ_ONLY='<METHOD /path>' FUZZ_SEED=<seed> FUZZ_PATH=<path> with `-t <identity>`
 * replays it (FUZZ_ONLY keeps the operations whose `METHOD /path` contains it). FUZZ_STATS=1 prints the statuses
 * each operation answered, FUZZ_TRACE=1 every answer.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PATH = process.env.FUZZ_PATH;
const SIGNED = '<signed with the app webhook secret>';
const ONLY = process.env.FUZZ_ONLY;

/**
 * Writes a refused request makes on purpose, by `METHOD /path` and status: the table it may change, and why.
 * Anything else a 4xx writes is a failure.
 */
const WRITES_ON_REFUSAL: Record<string, { status: number; table: string; why: string }[]> = {
  'POST /auth/verify-sms-code': [{ status: 400, table: 'core_sms_codes', why: 'a wrong code counts against the code’s attempts' }],
};

describe('fuzzed requests to every operation of the OpenAPI document', () => {
  let t: TestApp;
  let peer: PaymentPeer;
  let idp: OidcPeer;
  let fingerprint: RowFingerprint;
  let api: OpenApi;
  let contract: ApiContract;
  let arbitraries: RequestArbitraries;
  let shop: ShopTenant;
  let identities: Record<'anonymous' | 'admin' | 'customer', Identity>;
  const dataDir = mkdtempSync(join(tmpdir(), 'fuzz-'));
  const covered = new Map<string, number>();
  const statuses: Record<string, Record<string, number>> = {};

  beforeAll(async () => {
    // The real peers the service talks to (payment provider, OpenID Connect provider), so requests get past "not configured".
    peer = await PaymentPeer.start();
    idp = await OidcPeer.start({ clients: [CONFIDENTIAL] });
    idp.trustInProcess();
    t = await startTestApp({
      ...ssoEnv(idp),
      PAYMENT_API_URL: peer.url,
      // Background work writes rows no request did: off, so that each row written is the request's.
      NOTIFY_SENDER_ENABLED: 'false',
      CONTENT_EXPIRY_TICK_MS: '0',
      PAYMENT_EVENTS_POLL_MS: '0',
      PAYMENT_RECONCILE_TICK_MS: '0',
      DATA_DIR: dataDir,
    });
    shop = await seedShop(t);
    const other = await seedShop(t);
    const tokens = t.get(SessionTokensService);
    const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);

    // Real ids and tokens, so that generated requests also get past lookups and reach deeper checks.
    const [admin] = await sql(`SELECT id, user_email FROM core_users WHERE app_id = $1 AND primary_role = 'admin' ORDER BY id LIMIT 1`, [
      shop.appId,
    ]);
    await sql(`UPDATE core_users SET mobile = '+61400000001' WHERE id = $1`, [admin.id]); // for /auth/user-sms-code
    const sso = await t.post('/auth/oauth/idp/start', {}, shop.headers);
    if (sso.status !== 200) throw new Error(`idp start: ${JSON.stringify(sso.body)}`);
    const ssoState = new URL(sso.body.authorizationUrl).searchParams.get('state')!;
    const adminLogin = await t.post('/auth/login', { email: admin.user_email, password: 'Admin@1234' }, shop.headers);
    const customerLogin = await t.post(
      '/auth/login',
      { email: shop.customerEmail, password: 'Cust@1234', authTable: 'core_customers' },
      shop.headers,
    );
    if (adminLogin.status !== 200 || customerLogin.status !== 200)
      throw new Error(`login: ${JSON.stringify([adminLogin.body, customerLogin.body])}`);
    const order = await t.post(
      '/ecommerce/createOrder',
      { items: [{ productID: shop.ebook, quantity: 1, price: 1500 }] },
      shop.customerHeaders,
    );
    const paidOrder = await t.post(
      '/ecommerce/createOrder',
      { items: [{ productID: shop.ebook, quantity: 1, price: 1500 }] },
      shop.customerHeaders,
    );
    await t.post('/ecommerce/submitOrder', { _orderID: paidOrder.body.data._id, paymentMethod: 'Order Only' }, shop.customerHeaders);
    const tokenRows = await sql<{ id: number; token_value: string }>('SELECT id, token_value FROM core_tokens WHERE app_id = $1', [
      shop.appId,
    ]);
    const rows = await t.post('/getDataRows', { table: 'core_products', fields: 'title' }, shop.headers);
    const productIds: string[] = (rows.body.data ?? []).map((r: { _id: string }) => r._id);
    const links = t.get(UserLinkTokensService);
    const userId = [
      links.issue({ userId: admin.id, appId: shop.appId, expires: new Date(Date.now() + 3_600_000) }),
      links.issue({ userId: admin.id, appId: shop.appId, expires: new Date(Date.now() - 1000) }),
    ];
    const refresh = tokens.sign({ userId: admin.id, appId: shop.appId, authTable: 'core_users', role: 'admin' }, 'refresh');

    const known: Known = {
      appID: [shop.appId, other.appId, String(shop.appId), 0, -1, 2 ** 31],
      productID: [shop.book, shop.ebook, shop.tent, shop.voucher, other.book],
      productId: [shop.book, shop.ebook, other.ebook],
      parent_id: [shop.ebook, shop.book],
      linked: [shop.templateId],
      _orderID: [order.body.data._id, paidOrder.body.data._id],
      sessionID: [order.body.data._id],
      orderID: [order.body.data._id, order.body.data.orderID, paidOrder.body.data.orderID],
      id: [order.body.data._id, String(order.body.data.orderID), String(shop.book), ...productIds],
      _id: productIds,
      masterId: [shop.book, shop.ebook],
      tokenValue: tokenRows.map((r) => r.token_value),
      tokenId: tokenRows.map((r) => r.id),
      userId: [...userId, admin.id],
      user: [admin.id],
      email: [admin.user_email, shop.customerEmail, 'nobody@example.test', 'NONE'],
      password: ['Admin@1234', 'Cust@1234', 'Fuzz@12345'],
      confirmPassword: ['Admin@1234', 'Fuzz@12345'],
      table: [
        'core_products',
        'core_token_template',
        'core_orders',
        'core_customers',
        'core_users',
        'core_sites',
        'core_folders',
        'typeorm_migrations',
        'pg_user',
      ],
      parent_table: ['core_products', 'core_orders'],
      name: ['core_token_template', 'core_products'],
      fields: ['title,price', '*', 'password', 'title,password', 'meta_status', 'id,_id'],
      field: ['title', 'price', 'password', 'meta_status', 'created'],
      orderBy: ['price DESC', 'title ASC, price DESC', 'password', 'price; DROP TABLE core_users', 'random()'],
      event: ['welcome', 'order_confirmation', 'nope'],
      SQL: [
        'SELECT 1 AS x',
        'SELECT firstname, email FROM core_customers',
        'SELECT * FROM pg_user',
        'DELETE FROM core_orders',
        'SELECT pg_sleep(10)',
        'SELECT',
      ],
      payload: [
        adminLogin.body.token,
        customerLogin.body.token,
        { access_token: adminLogin.body.token.access_token, refresh_token: refresh },
      ],
      refreshToken: [adminLogin.body.token.refresh_token, refresh],
      customerID: productIds,
      domain: [`t${shop.appId}.example.test`, shop.domain],
      paymentIntentID: ['pi_1', 'pi_missing'],
      state: [ssoState, 'x', 'a'.repeat(43)],
      code: ['123456', 'not-a-code'],
      redirectUri: [RELAY_URI, 'https://evil.test/cb'],
      authTable: ['core_customers', 'core_users', 'core_app_users', 'core_sites'],
      codeChallenge: ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'],
      codeVerifier: ['dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'],
      days: [1, 30, 36500, 36501, 0],
      page: [1, 2, 0, -1],
      perPage: [1, 100, 101, 0],
      quantity: [1, 1000, 1001, 0],
      Qty: [1, 1000, 1001, 0],
      price: [1500, 2500, 0],
      Price: [1500, 2500, 0],
      amount: [1500, 1, 0, -1],
      // listOrders and refundOrder / cancelOrder
      status: ['New', 'Paid', 'Ordered', 'Lost'],
      paymentStatus: ['Success', 'Refunded', 'Partially Refunded', 'Failed', 'x'],
      from: ['2026-01-01', '2026-01-01T00:00:00Z', 'yesterday'],
      to: ['2099-01-01T00:00:00.000Z', '2026-13-40'],
      reason: ['Returned', 'x'.repeat(501)],
      toCurrentId: [shop.book],
      // Replaced by a signature over the request's body with the app's webhook secret (see send()).
      'stripe-signature': [SIGNED, 't=1,v1=00'],
      data: [{ title: 'Fuzz', price: 100, tax: 10 }, { price: 2700 }, { firstname: 'Cy' }, { email: shop.customerEmail, firstName: 'Ann' }],
      operator: ['equals', 'in', 'contains', 'is_null', 'AND', 'OR'],
      value: ['Book', 2500, ['Book', 'E-book'], null],
    };
    const bearer = (token: string) => `Bearer ${token}`;
    const forged = jwt.sign(
      { sub: String(admin.id), app: shop.appId, tbl: 'core_users', role: 'admin', typ: 'access' },
      'not-the-secret-not-the-secret-not-the-secret',
      { algorithm: 'HS256' },
    );
    const unsigned = jwt.sign({ sub: String(admin.id), app: shop.appId, tbl: 'core_users', role: 'admin', typ: 'access' }, '', {
      algorithm: 'none',
    });
    const expired = jwt.sign(
      { sub: String(admin.id), app: shop.appId, tbl: 'core_users', role: 'admin', typ: 'access', exp: Math.floor(Date.now() / 1000) - 60 },
      t.config.jwt.accessSecret!,
      { algorithm: 'HS256' },
    );
    const adminToken = adminLogin.body.token.access_token as string;
    const authorizations = [
      shop.adminHeaders.authorization,
      shop.customerHeaders.authorization,
      other.adminHeaders.authorization,
      other.customerHeaders.authorization,
      bearer(refresh),
      bearer(forged),
      bearer(unsigned),
      bearer(expired),
      bearer(`${adminToken.slice(0, -2)}xx`),
      bearer(adminToken.split('.').slice(0, 2).join('.')),
      `bearer ${adminToken}`,
      `Bearer  ${adminToken}`,
      `Bearer ${adminToken} extra`,
      'Bearer',
      'Bearer ',
      'Basic YWRtaW46YWRtaW4=',
      bearer('null'),
      bearer('a.b.c'),
    ];
    const siteIds = [
      String(other.appId),
      '0',
      '-1',
      '1e3',
      ` ${shop.appId} `,
      `${shop.appId}.0`,
      `0${shop.appId}`,
      '99999999999999999999',
      '2147483648',
      'NaN',
      '',
      `${shop.appId},${other.appId}`,
    ];
    identities = {
      anonymous: { headers: shop.headers, siteIds, authorizations },
      admin: { headers: { ...shop.headers, authorization: bearer(adminToken) }, siteIds, authorizations },
      customer: { headers: { ...shop.headers, authorization: bearer(customerLogin.body.token.access_token) }, siteIds, authorizations },
    };

    const document = await t.request('GET', '/docs/openapi.json');
    api = new OpenApi(document.body);
    contract = ApiContract.of(t.app, t.config);
    arbitraries = new RequestArbitraries(api, known);
    fingerprint = await RowFingerprint.open(t.database.url);
  }, 60_000);

  afterAll(async () => {
    // FUZZ_STATS=1: how often each operation answered each status (a route that only ever says 400 is not fuzzed deeply).
    if (process.env.FUZZ_STATS)
      console.log(
        Object.entries(statuses)
          .map(([op, counts]) => `${op.padEnd(48)} ${JSON.stringify(counts)}`)
          .join('\n'),
      );
    await fingerprint?.close();
    await t?.close();
    await peer?.stop();
    await idp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const operations = (): Operation[] => api.operations.filter((op) => !ONLY || op.name.includes(ONLY));

  /** The answer, or status 0 when none came within 10 s (a hang is a failure too). */
  async function send(request: FuzzRequest): Promise<Answer> {
    const headers = { ...request.headers };
    if (headers['stripe-signature'] === SIGNED)
      headers['stripe-signature'] = Stripe.webhooks.generateTestHeaderString({
        payload: request.payload?.toString('utf8') ?? '',
        secret: shop.secret,
      });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Answer>(
      (resolve) => (timer = setTimeout(() => resolve({ status: 0, headers: {}, body: 'no answer within 10 s' }), 10_000)),
    );
    const answer = t.app
      .inject({ method: request.method as 'POST', url: request.url, headers, payload: request.payload })
      .then((response) => ({ status: response.statusCode, headers: response.headers, body: response.body }));
    try {
      return await Promise.race([answer, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs `RUNS` requests of every operation as `identity`; answers the failures (with fast-check's seed and shrunk request). */
  async function fuzz(identity: Identity, label: string): Promise<string[]> {
    const failures: string[] = [];
    for (const op of operations()) {
      const details = await fc.check(
        fc.asyncProperty(arbitraries.requests(op, identity).map(printable), async (request) => {
          const before = await fingerprint.take();
          const answer = await send(request);
          const problems = answerProblems(op, request, answer);
          // And the answer the OpenAPI document describes for it (status, media type, body schema), as for every e2e request.
          if (answer.status !== 0) {
            const headers = Object.fromEntries(
              Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), [value].flat()[0]]),
            );
            problems.push(...contract.check({ method: request.method, url: request.url, headers }, answer));
          }
          const counts = (statuses[op.name] ??= {});
          counts[answer.status] = (counts[answer.status] ?? 0) + 1;
          if (process.env.FUZZ_TRACE)
            console.log(`${op.name} ${answer.status} ${answer.body.slice(0, 250)} <= ${request.what.join('; ').slice(0, 200)}`);
          if (answer.status >= 400 && answer.status < 500) {
            const allowed = (WRITES_ON_REFUSAL[op.name] ?? []).filter((w) => w.status === answer.status).map((w) => w.table);
            const changed = RowFingerprint.changed(before, await fingerprint.take());
            const written = changed.filter((change) => !allowed.includes(change.split(' ')[0]));
            if (written.length) problems.push(`a ${answer.status} answer wrote rows: ${written.join(', ')}`);
            if (changed.length > written.length)
              statuses[op.name][`${answer.status} wrote (allowed)`] = (statuses[op.name][`${answer.status} wrote (allowed)`] ?? 0) + 1;
          }
          covered.set(op.name, (covered.get(op.name) ?? 0) + 1);
          if (problems.length) {
            throw new Error(`${problems.join('; ')}\n  answer ${answer.status}: ${answer.body.slice(0, 600)}`);
          }
        }),
        { numRuns: RUNS, seed: SEED, path: PATH, plugins: [fc.interruptAfterTimeLimit(30_000)] },
      );
      if (details.failed)
        failures.push(
          `${label} ${op.name}: ${String((details.errorInstance as Error)?.message ?? details.errorInstance)}\n${fc.defaultReportMessage(details) ?? ''}`,
        );
    }
    return failures;
  }

  it('reads the operations from the document', () => {
    expect(api.operations.length).toBeGreaterThan(50);
    expect(api.operations.filter((op) => op.body !== null).length).toBeGreaterThan(40);
  });

  it('sees a committed insert, update and delete in the fingerprint, and not a rolled-back one', async () => {
    const sql = (query: string) => t.dataSource.query(query);
    const changedBy = async (work: () => Promise<unknown>) => {
      const before = await fingerprint.take();
      await work();
      return RowFingerprint.changed(before, await fingerprint.take()).map((change) => change.split(' ')[0]);
    };
    expect(await changedBy(() => sql(`UPDATE core_sites SET name = name WHERE id = ${shop.appId}`))).toEqual(['core_sites']);
    expect(await changedBy(() => sql(`INSERT INTO core_folders (app_id, name) VALUES (${shop.appId}, 'fuzz')`))).toEqual(['core_folders']);
    expect(await changedBy(() => sql(`DELETE FROM core_folders WHERE name = 'fuzz'`))).toEqual(['core_folders']);
    const rolledBack = () =>
      t.dataSource.transaction(async (em) => {
        await em.query(`UPDATE core_sites SET name = 'x' WHERE id = ${shop.appId}`);
        throw new Error('roll back');
      });
    expect(await changedBy(() => rolledBack().catch(() => undefined))).toEqual([]);
    expect(fingerprint.tables).toEqual(
      expect.arrayContaining([
        'core_orders',
        'core_order_items',
        'core_customers',
        'core_users',
        'core_tokens',
        'core_data',
        'core_notification_log',
      ]),
    );
  });

  it.each(['anonymous', 'admin', 'customer'] as const)(
    '%s: no 500, no leak, no row written by a refused request',
    async (who) => {
      const failures = await fuzz(identities[who], who);
      expect(failures).toEqual([]);
    },
    600_000,
  );

  it('sent requests to every operation', () => {
    expect(
      operations()
        .filter((op) => !covered.has(op.name))
        .map((op) => op.name),
    ).toEqual([]);
  });
});

/** The request as fast-check prints it in a failure report: method, URL, headers, what was done, and the body (bytes escaped, long ones cut). */
function printable(request: FuzzRequest): FuzzRequest {
  return Object.assign(request, {
    [fc.toStringMethod]: () => {
      const body = request.payload === undefined ? '' : escapeBytes(request.payload);
      return `${request.method} ${request.url.length > 300 ? `${request.url.slice(0, 300)}…` : request.url}\n    headers ${JSON.stringify(request.headers).slice(0, 600)}\n    ${request.what.join('; ')}\n    body (${request.payload?.length ?? 0} bytes) ${body}`;
    },
  });
}

function escapeBytes(buffer: Buffer): string {
  const text = buffer
    .subarray(0, 600)
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return buffer.length > 600 ? `${text}… (${buffer.length} bytes)` : text;
}
