import { TestApp } from '../support/test-app';
import { backdateExpiry, issue, item, oneToken, Shop, startTwoShops } from './token-helpers';

/**
 * POST /ecommerce/listTokens (README "Digital access tokens", staff): the app's tokens newest first, by product
 * (any version of it), customer, order and status as the list shows it (a date passed is expired), paged; never
 * another app's; 400 naming the field; 403 naming orders.view.
 */
describe('listTokens (staff)', () => {
  let t: TestApp;
  let a: Shop;
  let b: Shop;

  beforeAll(async () => ({ t, a, b } = await startTwoShops()));
  afterAll(() => t.close());

  const list = (body: Record<string, unknown>, headers: Record<string, string> = a.adminHeaders) =>
    t.post('/ecommerce/listTokens', body, headers);
  const ids = async (body: Record<string, unknown>, headers: Record<string, string> = a.adminHeaders): Promise<number[]> => {
    const res = await list({ perPage: 100, ...body }, headers);
    expect(res.status).toBe(200);
    return res.body.data.map((row: { id: number }) => row.id);
  };

  it('lists by product (every version), customer, order and status, newest first, only the caller’s app', async () => {
    const [book, course, album] = a.digital;
    const t1 = await oneToken(t, a, book, a.customers[0]);
    const t2 = await oneToken(t, a, course, a.customers[0]);
    const t3 = await oneToken(t, a, book, a.customers[1]);
    const gift = await oneToken(t, a, album, null, { gift: true });
    const late = await oneToken(t, a, book, a.customers[2]);
    await backdateExpiry(t, late.id); // stored `pending`, its date passed: listed as expired
    const ended = await oneToken(t, a, course, a.customers[1]);
    expect((await t.post('/ecommerce/expireToken', { tokenId: ended.id }, a.adminHeaders)).status).toBe(200);
    // A token of the book's second version: the book's master id still finds it.
    const edited = await t.post('/content/edit', { table: 'core_products', masterId: book, data: { price: 1200 } }, a.adminHeaders);
    expect(edited.status).toBe(200);
    const version = edited.body.data.Current_ID as number;
    expect(version).not.toBe(book);
    const [second] = await issue(t, a.appId, a.customers[0], [item(book, { productVersionId: version })]);
    const theirs = await oneToken(t, b, b.digital[0], b.customers[0]);

    const all = await list({ perPage: 100 });
    expect(all.status).toBe(200);
    expect(all.body.paging).toEqual({ page: 1, perPage: 100, hasMore: false });
    expect(all.body.data.map((row: { id: number }) => row.id)).toEqual([second, ended, late, gift, t3, t2, t1].map((tk) => tk.id));
    expect(all.body.data.find((row: { id: number }) => row.id === t1.id)).toEqual({
      ...t1,
      created_date: t1.created_date.toISOString(),
      gift: false,
      productID: book,
    });
    expect(all.body.data.find((row: { id: number }) => row.id === second.id)).toMatchObject({ product_id: version, productID: book });
    expect(all.body.data.find((row: { id: number }) => row.id === gift.id)).toMatchObject({
      status: 'gift_pending',
      gift: true,
      customer_id: null,
    });
    expect(all.body.data.find((row: { id: number }) => row.id === late.id)).toMatchObject({ status: 'expired' });
    expect(all.body.data.some((row: { id: number }) => row.id === theirs.id)).toBe(false);

    expect(await ids({ productID: book })).toEqual([second.id, late.id, t3.id, t1.id]);
    expect(await ids({ productID: course })).toEqual([ended.id, t2.id]);
    expect(await ids({ customerId: a.customers[0] })).toEqual([second.id, t2.id, t1.id]);
    expect(await ids({ customerId: a.customers[0], productID: course })).toEqual([t2.id]);
    expect(await ids({ orderID: t2.order_id })).toEqual([t2.id]);
    expect(await ids({ status: 'expired' })).toEqual([ended.id, late.id]);
    expect(await ids({ status: 'pending' })).toEqual([second.id, t3.id, t2.id, t1.id]);
    expect(await ids({ status: 'gift_pending' })).toEqual([gift.id]);
    expect(await ids({ status: 'active' })).toEqual([]);
    expect(await ids({ productID: 999_999 })).toEqual([]);

    // Another app's product, customer and order find nothing here; its own list holds only its token.
    expect(await ids({ productID: b.digital[0] })).toEqual([]);
    expect(await ids({ customerId: b.customers[0] })).toEqual([]);
    expect(await ids({ orderID: theirs.order_id })).toEqual([]);
    expect(await ids({}, b.adminHeaders)).toEqual([theirs.id]);

    // Paging.
    const first = await list({ perPage: 3 });
    expect(first.body.paging).toEqual({ page: 1, perPage: 3, hasMore: true });
    const third = await list({ perPage: 3, page: 3 });
    expect(third.body.data.map((row: { id: number }) => row.id)).toEqual([t1.id]);
    expect(third.body.paging).toEqual({ page: 3, perPage: 3, hasMore: false });
  });

  it('400 naming the field for bad input', async () => {
    for (const [body, field] of [
      [{ productID: 0 }, 'productID'],
      [{ customerId: 'x' }, 'customerId'],
      [{ orderID: -1 }, 'orderID'],
      [{ status: 'used' }, 'status'],
      [{ status: 3 }, 'status'],
      [{ perPage: 101 }, 'perPage'],
      [{ page: 0 }, 'page'],
    ] as const) {
      const res = await list(body);
      expect({ body, status: res.status, message: res.body.message, field: res.body.errors?.[0]?.field }).toEqual({
        body,
        status: 400,
        message: 'Validation error',
        field,
      });
    }
  });

  it('403 naming orders.view for staff without it and for a customer; 401 without a bearer or with another app’s', async () => {
    for (const headers of [a.userHeaders, a.customerHeaders[0]]) {
      const res = await list({}, headers);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ status: 'Failed', message: 'Insufficient permissions' });
    }
    expect((await list({}, a.userHeaders)).body.permission).toBe('orders.view');
    expect((await list({}, a.headers)).status).toBe(401);
    expect((await list({}, { ...a.headers, authorization: b.adminHeaders.authorization })).status).toBe(401);
  });
});
