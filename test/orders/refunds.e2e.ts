import { SmtpPeer } from '../messaging/support/smtp-peer';
import { PaymentPeer } from '../support/payment-peer';
import { TestApp } from '../support/test-app';
import { PaymentGatewayService } from '../../src/orders/checkout/payment-gateway.service';
import { drain, mailsTo, seedShop, ShopClient, ShopTenant, startShopHarness, stopShopHarness } from './checkout-helpers';

/**
 * Refunds (full, partial, from the provider's dashboard), declined and cancelled payments, cancellation
 * and the admin's order list, against the real database and the payment double through the provider's SDK.
 */
describe('refunds, failed payments, cancellation and the order list', () => {
  let peer: PaymentPeer;
  let smtp: SmtpPeer;
  let t: TestApp;
  let shop: ShopTenant;
  let other: ShopTenant;
  let client: ShopClient;

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const refundOrder = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/ecommerce/refundOrder', body, headers);
  const cancelOrder = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/ecommerce/cancelOrder', body, headers);
  const listOrders = (body: Record<string, unknown>, headers = shop.adminHeaders) => t.post('/ecommerce/listOrders', body, headers);
  const orderStatus = (_id: string) => t.request('GET', `/ecommerce/orderStatus/${encodeURIComponent(_id)}`, undefined, shop.headers);
  const refundRows = (orderID: number) =>
    sql('SELECT refund_id, amount, status, source FROM core_refunds WHERE order_id = $1 ORDER BY id', [orderID]);
  const providerRefunded = (intentId: string) =>
    [...peer.refunds.values()].filter((r) => r.payment_intent === intentId).reduce((sum, r) => sum + r.amount, 0);

  /** A Paid order: checked out, paid, its webhook delivered. */
  async function paidOrder(
    lines = [
      { productID: shop.ebook, Qty: 2, Price: 1500 },
      { productID: shop.book, Qty: 1, Price: 2500 },
    ],
  ) {
    const order = await client.checkedOut(lines);
    expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
    expect((await client.orderRow(order.orderID)).orderstatus).toBe('Paid');
    return order;
  }

  beforeAll(async () => ({ peer, smtp, t, shop, other, client } = await startShopHarness()));
  afterAll(() => stopShopHarness({ t, smtp, peer }));
  beforeEach(async () => {
    peer.heal();
    await drain(t);
    smtp.mails.length = 0;
  });

  describe('refundOrder', () => {
    it('refunds part, then the rest: Partially Refunded, then Refunded with the tokens expired and a mail each time', async () => {
      const order = await paidOrder(); // 5500
      const first = await refundOrder({ _orderID: order._id, amount: 1500, reason: 'One e-book returned' });
      expect(first).toMatchObject({
        status: 200,
        body: {
          status: 'Success',
          data: {
            refundID: expect.stringMatching(/^re_/),
            amount: 1500,
            currency: 'aud',
            refundedTotal: 1500,
            paymentStatus: 'Partially Refunded',
          },
        },
      });
      expect(peer.refunds.get(first.body.data.refundID)).toMatchObject({ amount: 1500, payment_intent: order.intent.id });
      expect((await client.tokenRows(order.orderID)).map((tk) => tk.status)).toEqual(['pending', 'pending']);
      expect((await orderStatus(order._id)).body.data).toMatchObject({
        orderStatus: 'Paid',
        paymentStatus: 'Partially Refunded',
        refundedTotal: 1500,
      });

      const rest = await refundOrder({ _orderID: order._id });
      expect(rest.body.data).toMatchObject({ amount: 4000, refundedTotal: 5500, paymentStatus: 'Refunded' });
      expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', payment_status: 'Refunded', refunded_total: 5500 });
      expect((await client.tokenRows(order.orderID)).map((tk) => tk.status)).toEqual(['expired', 'expired']);
      expect(await refundRows(order.orderID)).toEqual([
        { refund_id: first.body.data.refundID, amount: 1500, status: 'succeeded', source: 'api' },
        { refund_id: rest.body.data.refundID, amount: 4000, status: 'succeeded', source: 'api' },
      ]);
      expect(await refundOrder({ _orderID: order._id, amount: 1 })).toMatchObject({
        status: 409,
        body: { status: 'Failed', message: 'Order is not paid' },
      });

      await drain(t);
      const mails = mailsTo(smtp, `${shop.domain} - Refund for order #${order.orderID}`);
      expect(mails).toHaveLength(2);
      expect(mails[0].parsed.html).toContain('One e-book returned');
      expect(mails[0].parsed.html).toMatch(/class="remaining-total">\$40\.00/);
      expect(mails[1].parsed.html).toMatch(/class="remaining-total">\$0\.00/);
    });

    it('refuses bad amounts naming amount, an unpaid order with 409, a foreign order with 404, and non-admins', async () => {
      const order = await paidOrder();
      for (const amount of [0, -5, 1.5, '100', 5501]) {
        const res = await refundOrder({ _orderID: order._id, amount });
        expect(res).toMatchObject({ status: 400, body: { status: 'Failed', errors: [{ field: 'amount' }] } });
      }
      const unpaid = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      expect(await refundOrder({ _orderID: unpaid._id })).toMatchObject({ status: 409, body: { message: 'Order is not paid' } });
      const foreign = await paidOrderOf(other);
      expect(await refundOrder({ _orderID: foreign })).toMatchObject({ status: 404, body: { message: 'Order not found' } });
      expect((await refundOrder({ _orderID: order._id }, shop.headers)).status).toBe(401);
      expect((await refundOrder({ _orderID: order._id }, shop.customerHeaders)).status).toBe(403);
      expect(await refundRows(order.orderID)).toEqual([]);
      expect(providerRefunded(order.intent.id)).toBe(0);
    });

    it('ten concurrent partial refunds never refund more than was paid; the provider holds what is recorded', async () => {
      const order = await paidOrder(); // 5500
      const amounts = Array.from({ length: 10 }, (_, i) => 1000 + i);
      const answers = await Promise.all(amounts.map((amount) => refundOrder({ _orderID: order._id, amount })));
      const ok = answers.filter((a) => a.status === 200);
      expect(ok).toHaveLength(5); // five of about 1000 fit in 5500, whichever came first
      expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 400 && a.body.errors[0].field === 'amount')).toBe(true);
      const refunded = ok.reduce((sum, a) => sum + a.body.data.amount, 0);
      expect(refunded).toBeLessThanOrEqual(5500);
      expect((await client.orderRow(order.orderID)).refunded_total).toBe(refunded);
      expect(providerRefunded(order.intent.id)).toBe(refunded);
      expect((await refundRows(order.orderID)).reduce((sum, r) => sum + r.amount, 0)).toBe(refunded);
    });

    it('an Idempotency-Key names one refund: its retry answers the same refund, another key makes another', async () => {
      const order = await paidOrder();
      const withKey = (key: string, amount = 600) =>
        refundOrder({ _orderID: order._id, amount }, { ...shop.adminHeaders, 'idempotency-key': key });
      const [a, b] = await Promise.all([withKey('key-a'), withKey('key-b')]);
      expect(a.body.data.refundID).not.toBe(b.body.data.refundID);
      const again = await withKey('key-a');
      expect(again.body.data).toMatchObject({ refundID: a.body.data.refundID, amount: 600, refundedTotal: 1200 });
      expect(providerRefunded(order.intent.id)).toBe(1200);
      expect(await withKey('key-a', 700)).toMatchObject({ status: 400, body: { errors: [{ field: 'amount' }] } });
      expect(await withKey('')).toMatchObject({ status: 400, body: { errors: [{ field: 'Idempotency-Key' }] } });
    });

    it('a double submit (the same amount while the first is in flight) is one refund', async () => {
      const order = await paidOrder();
      // The provider answers slowly, so the first refund is still in flight when the other two arrive
      // (once it is settled, the same amount again is a new refund).
      peer.delayMs = 400;
      const answers = await Promise.all([1, 2, 3].map(() => refundOrder({ _orderID: order._id, amount: 700 })));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(new Set(answers.map((a) => a.body.data.refundID)).size).toBe(1);
      expect(providerRefunded(order.intent.id)).toBe(700);
      expect((await client.orderRow(order.orderID)).refunded_total).toBe(700);
    });

    it('a refund the provider refuses records nothing (502); one whose answer is lost is made once by its retry', async () => {
      const order = await paidOrder();
      // The provider already refunded it all in its dashboard, unknown to us: our request is refused.
      peer.refund(order.intent.id);
      const refused = await refundOrder({ _orderID: order._id, amount: 1000 });
      expect(refused).toMatchObject({
        status: 502,
        body: { status: 'Failed', message: expect.stringMatching(/^Payment provider error: /) },
      });
      expect(await refundRows(order.orderID)).toEqual([]);

      const second = await paidOrder();
      const gateway = t.get(PaymentGatewayService);
      const timeout = gateway.network.timeoutMs;
      gateway.network.timeoutMs = 300;
      peer.delayMs = 1000; // the provider refunds, but the answer comes too late (twice: the SDK's own retry too)
      try {
        expect((await refundOrder({ _orderID: second._id, amount: 2000 })).status).toBe(502);
      } finally {
        gateway.network.timeoutMs = timeout;
        peer.heal();
      }
      expect(await refundRows(second.orderID)).toEqual([{ refund_id: null, amount: 2000, status: 'unknown', source: 'api' }]);
      const retried = await refundOrder({ _orderID: second._id, amount: 2000 });
      expect(retried.body.data).toMatchObject({ amount: 2000, refundedTotal: 2000, paymentStatus: 'Partially Refunded' });
      expect(providerRefunded(second.intent.id)).toBe(2000); // one refund at the provider, not two
      expect(await refundRows(second.orderID)).toEqual([
        { refund_id: retried.body.data.refundID, amount: 2000, status: 'succeeded', source: 'api' },
      ]);
    });
    it('an explicit "amount": null is refused with 400 naming amount and refunds nothing; a missing amount is the whole rest', async () => {
      const order = await paidOrder(); // 5500
      const refused = await refundOrder({ _orderID: order._id, amount: null });
      expect(refused).toMatchObject({ status: 400, body: { status: 'Failed', errors: [{ field: 'amount' }] } });
      expect(await refundRows(order.orderID)).toEqual([]);
      expect(providerRefunded(order.intent.id)).toBe(0);
      expect((await client.orderRow(order.orderID)).refunded_total).toBe(0);
      const whole = await refundOrder({ _orderID: order._id });
      expect(whole).toMatchObject({ status: 200, body: { data: { amount: 5500, refundedTotal: 5500, paymentStatus: 'Refunded' } } });
    });
  });

  describe("the provider's refund events", () => {
    it('a dashboard refund (charge.refunded) is recorded once, however often it is delivered', async () => {
      const order = await paidOrder();
      const refund = peer.refund(order.intent.id, 2500);
      const delivery = peer.signedEvent('charge.refunded', peer.chargeOf(order.intent.id), shop.secret, { id: 'evt_dashboard_refund' });
      const again = peer.signedEvent('refund.updated', refund, shop.secret, { id: 'evt_dashboard_refund_updated' });
      const answers = await Promise.all([client.deliver(delivery), client.deliver(delivery), client.deliver(again)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(await refundRows(order.orderID)).toEqual([{ refund_id: refund.id, amount: 2500, status: 'succeeded', source: 'provider' }]);
      expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Partially Refunded', refunded_total: 2500 });

      // The rest from the dashboard: Refunded, tokens expired.
      peer.refund(order.intent.id);
      expect((await client.deliver(peer.signedEvent('charge.refunded', peer.chargeOf(order.intent.id), shop.secret))).status).toBe(200);
      expect(await client.orderRow(order.orderID)).toMatchObject({ payment_status: 'Refunded', refunded_total: 5500 });
      expect((await client.tokenRows(order.orderID)).every((tk) => tk.status === 'expired')).toBe(true);
    });

    it('a refund made here and announced by the provider at the same time is recorded once', async () => {
      for (let i = 0; i < 5; i++) {
        const order = await paidOrder();
        // The provider announces the refund as soon as it is made, racing our own recording of its answer.
        const [answer] = await Promise.all([
          refundOrder({ _orderID: order._id, amount: 1000 }),
          (async () => {
            for (let tries = 0; tries < 200 && providerRefunded(order.intent.id) === 0; tries++) await new Promise((r) => setTimeout(r, 2));
            return client.deliver(peer.signedEvent('charge.refunded', peer.chargeOf(order.intent.id), shop.secret));
          })(),
        ]);
        expect(answer.status).toBe(200);
        expect(await refundRows(order.orderID)).toEqual([
          { refund_id: answer.body.data.refundID, amount: 1000, status: 'succeeded', source: 'api' },
        ]);
        expect((await client.orderRow(order.orderID)).refunded_total).toBe(1000);
      }
    });
  });

  describe('failed and cancelled payments', () => {
    it("a declined card marks the order Failed with the provider's message; a later payment still completes it", async () => {
      const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const declined = peer.decline(order.intent.id);
      expect((await client.deliver(peer.signedEvent('payment_intent.payment_failed', declined, shop.secret))).status).toBe(200);
      expect(await client.orderRow(order.orderID)).toMatchObject({
        orderstatus: 'New',
        payment_status: 'Failed',
        payment_error: 'Your card was declined.',
      });
      expect((await orderStatus(order._id)).body.data).toMatchObject({
        orderStatus: 'New',
        paymentStatus: 'Failed',
        paymentError: 'Your card was declined.',
        refundedTotal: 0,
      });

      expect((await client.deliver(client.paid(order.intent))).status).toBe(200);
      expect(await client.orderRow(order.orderID)).toMatchObject({ orderstatus: 'Paid', payment_status: 'Success', payment_error: null });
      expect((await orderStatus(order._id)).body.data.paymentError).toBeUndefined();
    });

    it('a cancelled intent marks the order Failed with the reason; events for a paid order change nothing', async () => {
      const order = await client.checkedOut([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      expect(
        (await client.deliver(peer.signedEvent('payment_intent.canceled', peer.cancel(order.intent.id, 'abandoned'), shop.secret))).status,
      ).toBe(200);
      expect(await client.orderRow(order.orderID)).toMatchObject({
        orderstatus: 'New',
        payment_status: 'Failed',
        payment_error: 'Payment canceled (abandoned)',
      });

      const paid = await paidOrder();
      expect(
        (
          await client.deliver(
            peer.signedEvent('payment_intent.payment_failed', { ...paid.intent, status: 'requires_payment_method' }, shop.secret),
          )
        ).status,
      ).toBe(200);
      expect(await client.orderRow(paid.orderID)).toMatchObject({ orderstatus: 'Paid', payment_status: 'Success' });
      // Any other event type: 200, nothing changes.
      expect(
        await client.deliver(
          peer.signedEvent('customer.created', { id: 'cus_1', object: 'customer', metadata: { appID: String(shop.appId) } }, shop.secret),
        ),
      ).toMatchObject({ status: 200, body: { received: true } });
    });
  });

  describe('cancelOrder', () => {
    it('a New order: items Cancelled, total 0, still New; an Ordered order: cancelled, tokens expired, no refund', async () => {
      const fresh = await client.order([{ productID: shop.book, Qty: 2, Price: 2500 }]);
      expect(await cancelOrder({ _orderID: fresh._id })).toMatchObject({
        status: 200,
        body: { data: { orderStatus: 'New', paymentStatus: '', cancelledItems: 1 } },
      });
      expect(await client.orderRow(fresh.orderID)).toMatchObject({ orderstatus: 'New', total: 0 });
      expect((await client.itemRows(fresh.orderID)).map((i) => i.ItemStatus)).toEqual(['Cancelled']);

      const ordered = await client.order([{ productID: shop.ebook, Qty: 1, Price: 1500 }]);
      expect(
        (await t.post('/ecommerce/submitOrder', { _orderID: ordered._id, paymentMethod: 'Order Only' }, shop.adminHeaders)).status,
      ).toBe(200);
      const res = await cancelOrder({ _orderID: ordered._id });
      expect(res.body.data).toEqual({ orderStatus: 'Ordered', paymentStatus: 'Success', cancelledItems: 1 });
      expect((await client.tokenRows(ordered.orderID)).map((tk) => tk.status)).toEqual(['expired']);
      expect(peer.refunds.size === 0 || providerRefunded(ordered.orderID.toString()) === 0).toBe(true);
    });

    it('a Paid order is refunded in full first, then cancelled', async () => {
      const order = await paidOrder();
      await refundOrder({ _orderID: order._id, amount: 500 });
      const res = await cancelOrder({ _orderID: order._id, reason: 'Event called off' });
      expect(res).toMatchObject({
        status: 200,
        body: { data: { orderStatus: 'Paid', paymentStatus: 'Refunded', cancelledItems: 2, refundID: expect.stringMatching(/^re_/) } },
      });
      expect(providerRefunded(order.intent.id)).toBe(5500);
      expect(await client.orderRow(order.orderID)).toMatchObject({ refunded_total: 5500, total: 5500 });
      expect((await client.itemRows(order.orderID)).every((i) => i.ItemStatus === 'Cancelled')).toBe(true);
      expect((await client.tokenRows(order.orderID)).every((tk) => tk.status === 'expired')).toBe(true);
    });
  });

  describe('listOrders', () => {
    it("pages the app's orders newest first with filters, and only the caller's app", async () => {
      const paid = await paidOrder([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const fresh = await client.order([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const first = await listOrders({ perPage: 2 });
      expect(first.status).toBe(200);
      expect(first.body.paging).toEqual({ page: 1, perPage: 2, hasMore: true });
      expect(first.body.data.map((o: { orderID: number }) => o.orderID)).toEqual([fresh.orderID, paid.orderID]);
      expect(first.body.data[1]).toMatchObject({
        _id: paid._id,
        orderStatus: 'Paid',
        paymentStatus: 'Success',
        total: 2500,
        refundedTotal: 0,
        currency: 'aud',
        billingEmail: shop.customerEmail,
        items: 1,
      });

      const byStatus = await listOrders({ status: 'Paid', perPage: 100 });
      expect(byStatus.body.data.every((o: { orderStatus: string }) => o.orderStatus === 'Paid')).toBe(true);
      const byEmail = await listOrders({ email: shop.customerEmail, perPage: 100 });
      expect(byEmail.body.data.length).toBeGreaterThan(0);
      expect(byEmail.body.data.every((o: { billingEmail: string }) => o.billingEmail === shop.customerEmail)).toBe(true);
      const future = await listOrders({ from: new Date(Date.now() + 3600_000).toISOString() });
      expect(future.body).toMatchObject({ data: [], paging: { page: 1, perPage: 20, hasMore: false } });
      const theirs = await listOrders({ perPage: 100 }, other.adminHeaders);
      expect(theirs.body.data.some((o: { orderID: number }) => o.orderID === paid.orderID)).toBe(false);

      for (const [body, field] of [
        [{ perPage: 101 }, 'perPage'],
        [{ page: 0 }, 'page'],
        [{ status: 'Lost' }, 'status'],
        [{ from: 'yesterday' }, 'from'],
        [{ paymentStatus: 1 }, 'paymentStatus'],
      ] as const) {
        expect(await listOrders(body)).toMatchObject({ status: 400, body: { errors: [{ field }] } });
      }
      expect((await listOrders({}, shop.customerHeaders)).status).toBe(403);
    });

    it("searches by order number, billing email and name, without regard to case, only in the caller's app", async () => {
      const mine = await paidOrder([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const lookalike = await paidOrder([{ productID: shop.book, Qty: 1, Price: 2500 }]);
      const theirs = await paidOrderOf(other);
      const [{ id: theirID }] = await sql('SELECT id FROM core_orders WHERE app_id = $1 ORDER BY id DESC LIMIT 1', [other.appId]);
      const bill = (id: number, first: string, last: string, email: string) =>
        sql(`UPDATE core_orders SET "BillingFirstName" = $2, "BillingLastName" = $3, "BillingEmail" = $4 WHERE id = $1`, [
          id,
          first,
          last,
          email,
        ]);
      await bill(mine.orderID, 'Zoe', 'Quistorp', 'Zed_Search@Example.test');
      await bill(lookalike.orderID, 'Zoey', 'Quist', 'zedxsearch@example.test'); // `_` is not a wildcard
      await bill(theirID, 'Zoe', 'Quistorp', 'zed_search@example.test'); // the same customer in another app
      const found = async (search: string, headers = shop.adminHeaders) => {
        const res = await listOrders({ search, perPage: 100 }, headers);
        expect(res.status).toBe(200);
        return res.body.data.map((o: { orderID: number }) => o.orderID);
      };
      const number = String(mine.orderID).padStart(8, '0');
      expect(await found(number)).toEqual([mine.orderID]);
      expect(await found(`#${mine.orderID}`)).toEqual([mine.orderID]);
      expect(await found(`  ${mine.orderID} `)).toEqual([mine.orderID]);
      expect(await found('ZED_SEARCH')).toEqual([mine.orderID]);
      expect(await found('zed')).toEqual([lookalike.orderID, mine.orderID]);
      expect(await found('quistorp')).toEqual([mine.orderID]);
      expect(await found('QUIST')).toEqual([lookalike.orderID, mine.orderID]);
      expect(await found('zoe   quistorp')).toEqual([mine.orderID]);
      expect(await found('zoe')).toEqual([lookalike.orderID, mine.orderID]);
      expect(await found('%')).toEqual([]);
      expect(await found('search')).toEqual([]); // a prefix, not a substring
      // Combined with the other filters.
      expect((await listOrders({ search: 'zoe', status: 'New' })).body.data).toEqual([]);
      expect((await listOrders({ search: 'zoe', paymentStatus: 'Success', perPage: 100 })).body.data).toHaveLength(2);
      // Another app sees its own order only, never ours, and ours never theirs.
      expect(await found('zed_search', other.adminHeaders)).toEqual([theirID]);
      expect(await found(number, other.adminHeaders)).toEqual([]);
      expect(await found(String(theirID))).toEqual([]);
      expect(theirs).toBeTruthy();

      for (const [body, field] of [
        [{ search: 'x'.repeat(201) }, 'search'],
        [{ search: 42 }, 'search'],
      ] as const) {
        expect(await listOrders(body)).toMatchObject({ status: 400, body: { message: 'Validation error', errors: [{ field }] } });
      }
      expect((await listOrders({ search: '   ' })).status).toBe(200); // blank: no search
    });

    it("reads a page through an index, without sorting the app's orders, whatever their number", async () => {
      const big = await seedShop(t);
      await sql(
        `INSERT INTO core_orders (app_id, orderstatus, orderstatuslabel, payment_status, "BillingEmail", "BillingFirstName", "BillingLastName", created)
         SELECT $1, CASE WHEN g % 3 = 0 THEN 'Paid' ELSE 'New' END, 'New', NULL, 'buyer' || (g % 500) || '@example.test',
                'Ann' || (g % 5000), 'Lee' || g, now() - g * interval '1 second'
         FROM generate_series(1, 20000) g`,
        [big.appId],
      );
      await sql('ANALYZE core_orders');
      const shapes = [
        { where: '', index: 'core_orders_app_created_idx' },
        { where: `AND o.orderstatus = 'Paid'`, index: 'core_orders_app_(status|created)_idx' },
        { where: `AND o."BillingEmail" = 'buyer7@example.test'`, index: 'core_orders_app_email_idx' },
      ];
      for (const shape of shapes) {
        const plan = JSON.stringify(
          await sql(
            `EXPLAIN (FORMAT JSON) SELECT o.* FROM core_orders o WHERE o.app_id = $1 ${shape.where} ORDER BY o.created DESC, o.id DESC LIMIT 21 OFFSET 40`,
            [big.appId],
          ),
        );
        expect(plan).toMatch(new RegExp(shape.index));
        expect(plan).not.toContain('"Node Type":"Sort"');
        expect(plan).not.toContain('Seq Scan');
      }
      const page = await listOrders({ page: 3, perPage: 20, status: 'Paid' }, big.adminHeaders);
      expect(page.body.data).toHaveLength(20);
      expect(page.body.paging.hasMore).toBe(true);

      // The search: one BitmapOr over its three indexes (and the primary key for a number), never a scan of the
      // app's orders; the top-N sort is over the orders it matched.
      const searchWhere = (term: string, id?: number) =>
        `AND (${id ? `o.id = ${id} OR ` : ''}lower(o."BillingEmail") LIKE '${term}%' OR lower(o."BillingLastName") LIKE '${term}%' OR ` +
        `lower(COALESCE(o."BillingFirstName", '') || ' ' || COALESCE(o."BillingLastName", '')) LIKE '${term}%')`;
      for (const where of [searchWhere('lee12345'), searchWhere('buyer499@'), searchWhere('12345', 12345)]) {
        const plan = JSON.stringify(
          await sql(
            `EXPLAIN (FORMAT JSON) SELECT o.* FROM core_orders o WHERE o.app_id = $1 ${where} ORDER BY o.created DESC, o.id DESC LIMIT 21`,
            [big.appId],
          ),
        );
        for (const index of ['core_orders_app_email_search_idx', 'core_orders_app_last_name_search_idx', 'core_orders_app_name_search_idx'])
          expect(plan).toContain(index);
        expect(plan).toContain('BitmapOr');
        expect(plan).not.toContain('Seq Scan');
        if (where.includes('o.id =')) expect(plan).toContain('core_orders_pkey');
      }
      const byName = await listOrders({ search: 'LEE12345' }, big.adminHeaders);
      expect(byName.body.data).toHaveLength(1);
      const byFirst = await listOrders({ search: 'ann4999 ' }, big.adminHeaders);
      expect(byFirst.body.data).toHaveLength(4); // g = 4999, 9999, 14999, 19999
      const byEmail = await listOrders({ search: 'Buyer499@', perPage: 100 }, big.adminHeaders);
      expect(byEmail.body.data).toHaveLength(40);
      expect(byEmail.body.data.every((o: { billingEmail: string }) => o.billingEmail === 'buyer499@example.test')).toBe(true);
    });
  });

  async function paidOrderOf(tenant: ShopTenant): Promise<string> {
    const c = new ShopClient(t, peer, tenant);
    const order = await c.checkedOut([{ productID: tenant.book, Qty: 1, Price: 2500 }]);
    await c.deliver(c.paid(order.intent));
    return order._id;
  }
});
