import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { TestApp } from '../support/test-app';
import { userToken } from '../versioning/content-helpers';
import { drain, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from '../orders/checkout-helpers';

/**
 * The staff's customers (README "Staff API: customers"): POST /staff/customers (list and search, guests left
 * out), /staff/customers/get (the customer with their orders and tokens) and /staff/customers/reset-link (the
 * reset link mailed through the outbox, audited); never another app's customers, never a secret; 400 naming the
 * field; 403 naming the permission.
 */
describe('staff: customers', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let other: ShopTenant;
  let client: ShopClient;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const list = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/staff/customers', body, headers);
  const get = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/staff/customers/get', body, headers);
  const resetLink = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/staff/customers/reset-link', body, headers);
  const customer = async (appId: number, values: Record<string, unknown>): Promise<number> => {
    const columns = ['app_id', ...Object.keys(values)];
    const [{ id }] = await sql(
      `INSERT INTO core_customers (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      [appId, ...Object.values(values)],
    );
    return id;
  };
  /** A bearer of a core_users account of the shop holding exactly `roles`. */
  const staffHeaders = async (roles: string[]): Promise<Record<string, string>> => {
    const [{ id }] = await sql(
      `INSERT INTO core_users (app_id, user_email, primary_role, staff_roles) VALUES ($1, $2, 'user', $3::varchar[]) RETURNING id`,
      [shop.appId, `staff-${roles.join('-') || 'none'}-${Math.random().toString(36).slice(2)}@example.test`, roles],
    );
    return { ...shop.headers, authorization: `Bearer ${userToken(t, shop, id)}` };
  };

  beforeAll(async () => ({ peer, smtp, t, shop, other, client } = await startShopHarness()), 60_000);
  afterAll(() => stopShopHarness({ t, smtp, peer }));

  it('lists the app’s customers newest first, guests left out, and searches by id, email and name', async () => {
    const zara = await customer(shop.appId, { email: 'Zara.O_1@Example.test', firstname: 'Zara', lastname: 'Okafor' });
    const zed = await customer(shop.appId, { email: 'zarax1@example.test', firstname: 'Zed', lastname: 'Okonkwo' });
    const phoneOnly = await customer(shop.appId, { mobile: '+61400000999' });
    const guest = await customer(shop.appId, {}); // a guest order's placeholder: nothing to show
    const theirs = await customer(other.appId, { email: 'zara.o_1@example.test', firstname: 'Zara', lastname: 'Okafor' });

    const all = await list({ perPage: 100 });
    expect(all.status).toBe(200);
    const ids = all.body.data.map((c: { id: number }) => c.id);
    expect(ids.slice(0, 3)).toEqual([phoneOnly, zed, zara]);
    expect(ids).toContain(shop.customerId);
    expect(ids).not.toContain(guest);
    expect(ids).not.toContain(theirs);
    expect(all.body.paging).toEqual({ page: 1, perPage: 100, hasMore: false });
    expect(all.body.data.find((c: { id: number }) => c.id === shop.customerId)).toEqual({
      id: shop.customerId,
      email: shop.customerEmail,
      firstname: 'Cy',
      lastname: null,
      displayname: null,
      mobile: null,
      emailverified: false,
      passwordSet: true,
      created: expect.any(String),
      updated: expect.any(String),
    });
    expect(JSON.stringify(all.body)).not.toMatch(/\$2[aby]\$/); // no bcrypt hash anywhere

    const found = async (search: unknown, headers = shop.adminHeaders) => {
      const res = await list({ search, perPage: 100 }, headers);
      expect(res.status).toBe(200);
      return res.body.data.map((c: { id: number }) => c.id);
    };
    expect(await found('ZARA.O_')).toEqual([zara]); // `_` taken literally: zarax1 does not match
    expect(await found('zara')).toEqual([zed, zara]); // emails zara.o_1… and zarax1…, and the first name Zara
    expect(await found('okafor')).toEqual([zara]);
    expect(await found('oko')).toEqual([zed]);
    expect(await found('  zara   oka ')).toEqual([zara]);
    expect(await found(String(zed))).toEqual([zed]);
    expect(await found(`#${zara}`)).toEqual([zara]);
    expect(await found('afor')).toEqual([]); // a prefix, not a substring
    expect(await found(String(theirs))).toEqual([]);
    expect(await found('zara', other.adminHeaders)).toEqual([theirs]);

    const page1 = await list({ perPage: 2 });
    expect(page1.body.data.map((c: { id: number }) => c.id)).toEqual([phoneOnly, zed]);
    expect(page1.body.paging).toEqual({ page: 1, perPage: 2, hasMore: true });
    const page2 = await list({ perPage: 2, page: 2 });
    expect(page2.body.data[0].id).toBe(zara);
  });

  it('the search reads its indexes, and the list a partial index of the listed customers', async () => {
    await sql(
      `INSERT INTO core_customers (app_id, email, firstname, lastname, created)
       SELECT $1, CASE WHEN g % 2 = 0 THEN 'buyer' || g || '@example.test' END, CASE WHEN g % 2 = 0 THEN 'Ann' || g END,
              CASE WHEN g % 2 = 0 THEN 'Lee' || g END, now() - g * interval '1 second'
       FROM generate_series(1, 20000) g`,
      [other.appId],
    );
    await sql('ANALYZE core_customers');
    const listed = `(c.email IS NOT NULL OR c.mobile IS NOT NULL OR c.firstname IS NOT NULL OR c.lastname IS NOT NULL OR c.displayname IS NOT NULL)`;
    const plan = async (where: string) =>
      JSON.stringify(
        await sql(
          `EXPLAIN (FORMAT JSON) SELECT c.id FROM core_customers c WHERE c.app_id = $1 AND ${listed} ${where} ORDER BY c.created DESC, c.id DESC LIMIT 21 OFFSET 40`,
          [other.appId],
        ),
      );
    const page = await plan('');
    expect(page).toContain('core_customers_app_created_idx');
    expect(page).not.toContain('"Node Type":"Sort"');
    expect(page).not.toContain('Seq Scan');
    const search = await plan(
      `AND (c.id = 1234 OR lower(c.email) LIKE 'lee1234%' OR lower(c.lastname) LIKE 'lee1234%' OR lower(COALESCE(c.firstname, '') || ' ' || COALESCE(c.lastname, '')) LIKE 'lee1234%')`,
    );
    for (const index of [
      'core_customers_app_email_search_idx',
      'core_customers_app_last_name_search_idx',
      'core_customers_app_name_search_idx',
    ])
      expect(search).toContain(index);
    expect(search).toContain('BitmapOr');
    expect(search).not.toContain('Seq Scan');
    const res = await list({ search: 'LEE1234' }, other.adminHeaders);
    expect(res.body.data.map((c: { lastname: string }) => c.lastname).sort()).toEqual([
      'Lee1234',
      'Lee12340',
      'Lee12342',
      'Lee12344',
      'Lee12346',
      'Lee12348',
    ]);
  });

  it('shows a customer with their orders and tokens, newest first; another app’s customer is 404', async () => {
    const paid = await client.checkedOut([{ productID: shop.ebook, Qty: 2, Price: 1500 }], shop.customerHeaders);
    expect((await client.deliver(client.paid(paid.intent))).status).toBe(200);
    const fresh = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }], shop.customerHeaders);
    const [{ id: guestOrderCustomer }] = await sql('SELECT customer_id AS id FROM core_orders WHERE id = $1', [
      (await client.order([])).orderID,
    ]);

    const res = await get({ customerId: shop.customerId });
    expect(res.status).toBe(200);
    const { customer: profile, orders, tokens } = res.body.data;
    expect(profile).toMatchObject({ id: shop.customerId, email: shop.customerEmail, passwordSet: true });
    expect(profile).not.toHaveProperty('password');
    expect(orders.data.map((o: { orderID: number }) => o.orderID)).toEqual([fresh.orderID, paid.orderID]);
    expect(orders.data[1]).toMatchObject({ _id: paid._id, orderStatus: 'Paid', paymentStatus: 'Success', total: 3000, items: 1 });
    expect(orders.paging).toEqual({ page: 1, perPage: 20, hasMore: false });
    const issued = await client.tokenRows(paid.orderID);
    expect(issued).toHaveLength(2);
    expect(tokens.data.map((tk: { id: number }) => tk.id)).toEqual(issued.map((tk) => tk.id).sort((x, y) => y - x));
    expect(tokens.data[0]).toMatchObject({ customer_id: shop.customerId, order_id: paid.orderID, productID: shop.ebook, gift: false });

    const paged = await get({ customerId: shop.customerId, perPage: 1, ordersPage: 2, tokensPage: 2 });
    expect(paged.body.data.orders).toMatchObject({ data: [{ orderID: paid.orderID }], paging: { page: 2, perPage: 1, hasMore: false } });
    expect(paged.body.data.tokens.data.map((tk: { id: number }) => tk.id)).toEqual([Math.min(...issued.map((tk) => tk.id))]);

    // A guest's placeholder is not listed, but its page opens from an order.
    const guest = await get({ customerId: guestOrderCustomer });
    expect(guest.body.data.customer).toMatchObject({ id: guestOrderCustomer, email: null, passwordSet: false });

    for (const customerId of [other.customerId, 999_999_999]) {
      const missing = await get({ customerId });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ status: 'Failed', message: 'Customer not found' });
    }
  });

  it('mails a reset link through the outbox, audited; 409 without an email; another app’s customer 404', async () => {
    const before = smtp.mails.length;
    const res = await resetLink({ customerId: shop.customerId, url: `https://${shop.domain}/account/reset` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'Success',
      message: `Email with reset password instructions was sent to ${shop.customerEmail}.`,
      data: { customerId: shop.customerId, email: shop.customerEmail },
    });
    await drain(t);
    const mail = smtp.mails
      .slice(before)
      .find((m) => m.envelope.to.includes(shop.customerEmail) && m.parsed.subject?.endsWith(': reset your password'));
    expect(mail).toBeTruthy();
    const link = new URL(/(https:\/\/\S+\/account\/reset\S*)/.exec(mail!.parsed.text ?? '')![1]);
    expect(`${link.origin}${link.pathname}`).toBe(`https://${shop.domain}/account/reset`);
    // The link works: the customer sets a new password with it and logs in.
    const token = link.searchParams.get('token')!;
    const reset = await t.post(
      '/customers/reset-password',
      { token, reset_password_token: token, password: 'Fresh@12345', confirmPassword: 'Fresh@12345' },
      shop.headers,
    );
    expect(reset.status).toBe(200);

    const audit = await t.post('/staff/audit', { action: 'customer.reset_link' }, shop.adminHeaders);
    expect(audit.body.data[0]).toMatchObject({
      actor: { id: shop.adminId, table: 'core_users' },
      table: 'core_customers',
      recordId: String(shop.customerId),
      changes: { email: { before: null, after: shop.customerEmail } },
    });

    const phoneOnly = await customer(shop.appId, { mobile: '+61400000777', firstname: 'Pho' });
    const noEmail = await resetLink({ customerId: phoneOnly });
    expect(noEmail.status).toBe(409);
    expect(noEmail.body.message).toBe('The customer has no email address to send a reset link to');
    expect((await resetLink({ customerId: other.customerId })).status).toBe(404);

    for (const [body, field] of [
      [{}, 'customerId'],
      [{ customerId: 'x' }, 'customerId'],
      [{ customerId: shop.customerId, url: 'https://evil.example/reset' }, 'url'],
    ] as const) {
      const bad = await resetLink(body);
      expect({ status: bad.status, field: bad.body.errors?.[0]?.field }).toEqual({ status: 400, field });
    }
    const audited = await sql(`SELECT count(*)::int AS n FROM core_audit_log WHERE app_id = $1 AND action = 'customer.reset_link'`, [
      shop.appId,
    ]);
    expect(audited[0].n).toBe(1); // refusals write nothing
  });

  it('400 naming the field for bad input; 403 naming the permission; 401 without a bearer', async () => {
    for (const [body, field] of [
      [{ search: 'x'.repeat(201) }, 'search'],
      [{ search: 7 }, 'search'],
      [{ perPage: 0 }, 'perPage'],
      [{ page: 'two' }, 'page'],
    ] as const) {
      const bad = await list(body);
      expect({ status: bad.status, message: bad.body.message, field: bad.body.errors?.[0]?.field }).toEqual({
        status: 400,
        message: 'Validation error',
        field,
      });
    }
    for (const [body, field] of [
      [{}, 'customerId'],
      [{ customerId: 0 }, 'customerId'],
      [{ customerId: shop.customerId, perPage: 101 }, 'perPage'],
      [{ customerId: shop.customerId, ordersPage: 0 }, 'ordersPage'],
      [{ customerId: shop.customerId, tokensPage: -2 }, 'tokensPage'],
    ] as const) {
      const bad = await get(body);
      expect({ status: bad.status, field: bad.body.errors?.[0]?.field }).toEqual({ status: 400, field });
    }

    const content = await staffHeaders(['content']); // no customers.view
    for (const call of [list({}, content), get({ customerId: shop.customerId }, content)]) {
      const refused = await call;
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ status: 'Failed', message: 'Insufficient permissions', permission: 'customers.view' });
    }
    const orders = await staffHeaders(['orders']); // customers.view, not customers.invite
    expect((await list({}, orders)).status).toBe(200);
    const refused = await resetLink({ customerId: shop.customerId }, orders);
    expect(refused.status).toBe(403);
    expect(refused.body.permission).toBe('customers.invite');
    const support = await staffHeaders(['support']);
    expect((await resetLink({ customerId: 999_999_999 }, support)).status).toBe(404); // past the guard
    expect((await list({}, shop.headers)).status).toBe(401);
  });
});
