import { SessionTokensService } from '../../src/auth';
import { IdCipherService } from '../../src/common/id-cipher.service';
import { product, seedTenant, Tenant } from '../versioning/content-helpers';
import { startTestApp, TestApp, TestResponse } from '../support/test-app';

/**
 * createOrder, addCart (shapes A and B), removeCart and getOrder over HTTP on the real database
 * published products only, the price is the product's, totals with bond and
 * without Cancelled items, placeholder customers taken over by a customer bearer, and order ids that are
 * unknown, tampered or another app's all answering alike.
 */
describe('orders and cart', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let book: number; // 2500, tax 227
  let tent: number; // 10000, tax 909, bond 5000, event
  let ebook: number; // 1500, digital
  let draft: number; // not published
  let expired: number; // published, expiry passed
  let otherAppProduct: number;
  let customer1: string;
  let customer2: string;
  let customer1Id: number;
  let customer2Id: number;

  const NOT_FOUND = { status: 'Failed', message: 'Order not found' };

  const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.dataSource.query(query, params);
  const bearer = (token: string) => ({ ...a.headers, authorization: `Bearer ${token}` });
  const createOrder = (body: Record<string, unknown> = {}, headers = a.headers) => t.post('/ecommerce/createOrder', body, headers);
  const addCart = (body: Record<string, unknown>, headers = a.headers) => t.post('/ecommerce/addCart', body, headers);
  const removeCart = (body: Record<string, unknown>, headers = a.headers) => t.post('/ecommerce/removeCart', body, headers);
  const getOrder = (body: Record<string, unknown>, headers = a.headers) => t.post('/ecommerce/getOrder', body, headers);
  const newOrder = async (headers = a.headers) =>
    (await createOrder({}, headers)).body.data as { _id: string; orderID: number; total: number };
  const fieldsOf = (res: TestResponse) => (res.body.errors ?? []).map((e: { field: string }) => e.field);
  const orderRow = async (id: number) => (await sql('SELECT * FROM core_orders WHERE id = $1', [id]))[0];

  beforeAll(async () => {
    t = await startTestApp();
    a = await seedTenant(
      t,
      [
        product('Book', { price: 2500, tax: 227, meta_status: 'Published' }),
        product('Tent hire', { price: 10000, tax: 909, bond: 5000, IsEvent: 1, meta_status: 'Published' }),
        product('E-book', { price: 1500, tax: 136, IsDigital: 1, meta_status: 'Published' }),
        product('Draft', { price: 100 }),
        product('Expired', { price: 700, meta_status: 'Published' }),
      ],
      {
        core_customers: [
          { email: 'c1@example.test', password: 'Cust@1234' },
          { email: 'c2@example.test', password: 'Cust@1234' },
        ],
      },
    );
    [book, tent, ebook, draft, expired] = a.products;
    b = await seedTenant(t, [product('Foreign', { price: 2500, meta_status: 'Published' })]);
    otherAppProduct = b.products[0];
    await sql(
      `UPDATE core_data SET "Publish_Expire_Date" = now() - interval '1 minute' WHERE "Shop_ID" = $1 AND "Master_ID" = $2 AND "Source_Table" = 'core_products'`,
      [a.appId, expired],
    );
    const ids = await sql<{ id: number; email: string }>(`SELECT id, email FROM core_customers WHERE app_id = $1 ORDER BY email`, [
      a.appId,
    ]);
    [customer1Id, customer2Id] = ids.map((r) => r.id);
    const tokens = t.get(SessionTokensService);
    customer1 = tokens.sign({ userId: customer1Id, appId: a.appId, authTable: 'core_customers', role: 'customer' }, 'access');
    customer2 = tokens.sign({ userId: customer2Id, appId: a.appId, authTable: 'core_customers', role: 'customer' }, 'access');
  });
  afterAll(() => t.close());

  describe('createOrder', () => {
    it('answers 201 with the encrypted _id, orderID, orderNumber, total and status New; without a customer JWT the customer is a new placeholder that cannot log in', async () => {
      const res = await createOrder({ customerID: customer1Id });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('Success');
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(['_id', 'orderID', 'orderNumber', 'status', 'total']);
      expect(data).toMatchObject({ total: 0, status: 'New', orderNumber: String(data.orderID).padStart(8, '0') });
      expect(t.get(IdCipherService).decryptId(a.appId, data._id)).toBe(data.orderID);

      const row = await orderRow(data.orderID);
      expect(row).toMatchObject({
        app_id: a.appId,
        customer_is_placeholder: true,
        orderstatus: 'New',
        orderstatuslabel: 'New',
        payment_status: null,
        total: 0,
      });
      expect(row.customer_id).not.toBe(customer1Id); // the body's customerID is ignored
      const [placeholder] = await sql('SELECT app_id, email, password FROM core_customers WHERE id = $1', [row.customer_id]);
      expect(placeholder).toEqual({ app_id: a.appId, email: null, password: null });
    });

    it('links the order to the customer of a customer JWT, whatever customerID the body names', async () => {
      const res = await createOrder({ customerID: customer2Id, appID: a.appId }, bearer(customer1));
      expect(res.status).toBe(201);
      expect(await orderRow(res.body.data.orderID)).toMatchObject({ customer_id: customer1Id, customer_is_placeholder: false });
    });

    it('reads the app from body appID outside production, and saves the addresses', async () => {
      const address = { street: '1 Main St', city: 'Hobart', state: 'TAS', zip: '7000', country: 'AU' };
      const res = await createOrder({ appID: a.appId, shippingAddress: address, billingAddress: { city: 'Perth' } }, {});
      expect(res.status).toBe(201);
      expect(await orderRow(res.body.data.orderID)).toMatchObject({
        app_id: a.appId,
        shipping_address: address,
        billing_address: { city: 'Perth' },
      });
    });

    it('takes first items, checked like addCart, and answers their total', async () => {
      const res = await createOrder({
        items: [
          { productID: book, quantity: 2, price: 2500 },
          { productID: tent, quantity: 1, price: 10000 },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body.data.total).toBe(2 * 2500 + 10000 + 5000);

      const tampered = await createOrder({
        items: [
          { productID: book, quantity: 1, price: 2500 },
          { productID: tent, quantity: 1, price: 1 },
        ],
      });
      expect(tampered.status).toBe(400);
      expect(tampered.body.message).toBe('Validation error');
      expect(fieldsOf(tampered)).toEqual(['items[1].price']);
      const unknown = await createOrder({ items: [{ productID: draft, quantity: 1, price: 100 }] });
      expect(fieldsOf(unknown)).toEqual(['items[0].productID']);
    });

    it('refuses bad bodies with 400 naming the field, never 500', async () => {
      const cases: [unknown, string][] = [
        [{ items: 'x' }, 'items'],
        [{ items: [5] }, 'items[0]'],
        // An array in place of an item (its elements were validated as items, and the product check answered `Product undefined …`).
        [{ items: [[]] }, 'items[0]'],
        [{ items: [{ productID: book, quantity: 1, price: 2500 }, [{ productID: book, quantity: 1, price: 2500 }]] }, 'items[1]'],
        [{ items: [{ productID: book, quantity: 0, price: 2500 }] }, 'items[0].quantity'],
        [{ items: [{ productID: '1', quantity: 1, price: 2500 }] }, 'items[0].productID'],
        [{ shippingAddress: 'Main St' }, 'shippingAddress'],
        [{ shippingAddress: { street: 'x'.repeat(201) } }, 'shippingAddress.street'],
        [{ billingAddress: { zip: 7000 } }, 'billingAddress.zip'],
      ];
      for (const [body, field] of cases) {
        const res = await createOrder(body as Record<string, unknown>);
        expect([res.status, fieldsOf(res)[0]]).toEqual([400, field]);
      }
      expect((await t.post('/ecommerce/createOrder', '[1,2]', a.headers)).status).toBe(400);
    });

    it('refuses an invalid bearer with 401', async () => {
      expect((await createOrder({}, { ...a.headers, authorization: 'Bearer nope' })).status).toBe(401);
    });
  });

  describe('addCart', () => {
    it('shape A adds one product by sessionID and answers the order with its items', async () => {
      const order = await newOrder();
      const res = await addCart({ sessionID: order._id, productID: book, quantity: 2, price: 2500 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'Success', message: 'Added to cart' });
      const data = res.body.data;
      expect(data).toMatchObject({
        _id: order._id,
        orderID: order.orderID,
        status: 'New',
        orderStatusLabel: 'New',
        paymentStatus: null,
        total: 5000,
        currency: 'aud',
      });
      expect(data.items).toEqual([
        expect.objectContaining({
          product_mid: book,
          title: 'Book',
          Qty: 2,
          Price: 2500,
          tax: 227,
          bond: 0,
          subtotal: 5000,
          ItemStatus: 'Pending',
          IsDigital: 0,
          IsEvent: 0,
          RedeemStatus: null,
        }),
      ]);
      expect(data).not.toHaveProperty('customer_id');
      const [item] = await sql('SELECT * FROM core_order_items WHERE "Order_ID" = $1', [order.orderID]);
      const [version] = await sql(
        `SELECT "Current_ID" FROM core_data WHERE "Source_Table" = 'core_products' AND "Master_ID" = $1 AND "Published" = 1`,
        [book],
      );
      expect(item).toMatchObject({ app_id: a.appId, product_ID: version.Current_ID, product_mid: book, ItemStatus: 'Pending' });
      expect((await orderRow(order.orderID)).total).toBe(5000);
    });

    it('shape B adds items by _orderID (or an encrypted orderID string); the same product raises its line, a gift is a line of its own', async () => {
      const order = await newOrder();
      const first = await addCart({
        appID: a.appId,
        _orderID: order._id,
        items: [
          { productID: ebook, Qty: 1, Price: 1500 },
          { productID: tent, Qty: 1, Price: 10000 },
        ],
      });
      expect(first.status).toBe(200);
      const second = await addCart({
        appID: a.appId,
        orderID: order._id,
        items: [
          { productID: ebook, Qty: 2, Price: 1500 },
          { productID: ebook, Qty: 1, Price: 1500, redeemStatus: 'gift' },
        ],
      });
      expect(second.status).toBe(200);
      const items = second.body.data.items;
      expect(items.map((i: any) => [i.product_mid, i.Qty, i.RedeemStatus, i.IsDigital, i.IsEvent])).toEqual([
        [ebook, 3, null, 1, 0],
        [tent, 1, null, 0, 1],
        [ebook, 1, 'gift', 1, 0],
      ]);
      expect(second.body.data.total).toBe(3 * 1500 + (10000 + 5000) + 1500);
      expect(
        (await addCart({ _orderID: order._id, items: [{ productID: ebook, Qty: 1, Price: 1500, redeemStatus: 'gift_pending' }] })).body.data
          .items,
      ).toHaveLength(4);
    });

    it("refuses a price that is not the product's current published price, naming the item, and adds nothing", async () => {
      const order = await newOrder();
      const res = await addCart({
        _orderID: order._id,
        items: [
          { productID: book, Qty: 1, Price: 2500 },
          { productID: tent, Qty: 1, Price: 1 },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Validation error');
      expect(fieldsOf(res)).toEqual(['items[1].Price']);
      const shapeA = await addCart({ sessionID: order._id, productID: book, quantity: 1, price: 0 });
      expect([shapeA.status, fieldsOf(shapeA)]).toEqual([400, ['price']]);
      expect(await sql('SELECT id FROM core_order_items WHERE "Order_ID" = $1', [order.orderID])).toEqual([]);
      expect((await orderRow(order.orderID)).total).toBe(0);
    });

    it("refuses unpublished, expired, unknown and another app's products with 400 naming the item", async () => {
      const order = await newOrder();
      for (const productID of [draft, expired, otherAppProduct, 999999]) {
        const res = await addCart({
          _orderID: order._id,
          items: [
            { productID: book, Qty: 1, Price: 2500 },
            { productID, Qty: 1, Price: 2500 },
          ],
        });
        expect([res.status, fieldsOf(res)]).toEqual([400, ['items[1].productID']]);
      }
      const shapeA = await addCart({ sessionID: order._id, productID: otherAppProduct, quantity: 1, price: 2500 });
      expect([shapeA.status, fieldsOf(shapeA)]).toEqual([400, ['productID']]);
    });

    it("takes a new published version's price only, and adds it as its own line", async () => {
      const order = await newOrder();
      await addCart({ sessionID: order._id, productID: book, quantity: 1, price: 2500 });
      const republish = async (price: number) => {
        expect((await t.post('/content/edit', { table: 'core_products', masterId: book, data: { price } }, a.adminHeaders)).status).toBe(
          200,
        );
        expect((await t.post('/content/publish', { table: 'core_products', masterId: book }, a.adminHeaders)).status).toBe(200);
      };
      await republish(2700);
      try {
        const old = await addCart({ sessionID: order._id, productID: book, quantity: 1, price: 2500 });
        expect([old.status, fieldsOf(old)]).toEqual([400, ['price']]);
        const res = await addCart({ sessionID: order._id, productID: book, quantity: 1, price: 2700 });
        expect(res.body.data.items.map((i: any) => [i.Price, i.Qty])).toEqual([
          [2500, 1],
          [2700, 1],
        ]);
        expect(res.body.data.total).toBe(5200);
      } finally {
        await republish(2500);
      }
    });

    it('validates quantities and shapes with 400 naming the field', async () => {
      const order = await newOrder();
      const item = (extra: Record<string, unknown>) => ({
        _orderID: order._id,
        items: [{ productID: book, Qty: 1, Price: 2500, ...extra }],
      });
      const cases: [Record<string, unknown>, string][] = [
        [item({ Qty: 0 }), 'items[0].Qty'],
        [item({ Qty: -1 }), 'items[0].Qty'],
        [item({ Qty: 1.5 }), 'items[0].Qty'],
        [item({ Qty: '2' }), 'items[0].Qty'],
        [item({ Qty: 1001 }), 'items[0].Qty'],
        [item({ Qty: 1e300 }), 'items[0].Qty'],
        [item({ Qty: undefined }), 'items[0].Qty'],
        [item({ Price: -5 }), 'items[0].Price'],
        [item({ redeemStatus: 'free' }), 'items[0].redeemStatus'],
        [item({ productID: 0 }), 'items[0].productID'],
        [{ _orderID: order._id, items: [] }, 'items'],
        [{ _orderID: order._id, items: [null] }, 'items[0]'],
        [{ _orderID: order._id, items: [[{ productID: book, Qty: 1, Price: 2500 }]] }, 'items[0]'],
        [{ _orderID: order._id, items: Array.from({ length: 51 }, () => ({ productID: book, Qty: 1, Price: 2500 })) }, 'items'],
        [{ items: [{ productID: book, Qty: 1, Price: 2500 }] }, 'orderID'],
        [{ _orderID: order._id, orderID: { x: 1 }, items: [{ productID: book, Qty: 1, Price: 2500 }] }, 'orderID'],
        [{ sessionID: order._id, productID: book, price: 2500 }, 'quantity'],
        [{ sessionID: order._id, productID: book, quantity: 0, price: 2500 }, 'quantity'],
        [{ sessionID: 42, productID: book, quantity: 1, price: 2500 }, 'sessionID'],
        [{ productID: book, quantity: 1, price: 2500 }, 'sessionID'],
        [{}, 'sessionID'],
      ];
      for (const [body, field] of cases) {
        const res = await addCart(body);
        expect([JSON.stringify(body).slice(0, 80), res.status, fieldsOf(res)[0]]).toEqual([JSON.stringify(body).slice(0, 80), 400, field]);
      }
      // Repeated adds cannot push one line past the maximum.
      expect((await addCart(item({ Qty: 1000 }))).status).toBe(200);
      const over = await addCart(item({ Qty: 1 }));
      expect([over.status, fieldsOf(over)]).toEqual([400, ['items[0].Qty']]);
      expect((await getOrder({ _orderID: order._id })).body.data.items[0].Qty).toBe(1000);
    });

    it('keeps the total at Σ Qty × (Price + bond) over the items that are not Cancelled', async () => {
      const order = await newOrder();
      await addCart({
        _orderID: order._id,
        items: [
          { productID: tent, Qty: 2, Price: 10000 },
          { productID: book, Qty: 3, Price: 2500 },
        ],
      });
      expect((await orderRow(order.orderID)).total).toBe(2 * 15000 + 3 * 2500);
      await sql(`UPDATE core_order_items SET "ItemStatus" = 'Cancelled' WHERE "Order_ID" = $1 AND product_mid = $2`, [order.orderID, tent]);
      const res = await addCart({ sessionID: order._id, productID: ebook, quantity: 1, price: 1500 });
      expect(res.body.data.total).toBe(3 * 2500 + 1500);
      expect(res.body.data.items.find((i: any) => i.product_mid === tent)).toMatchObject({ ItemStatus: 'Cancelled', subtotal: 30000 });
      expect((await orderRow(order.orderID)).total).toBe(9000);
    });

    it('refuses a cart whose total would pass the maximum charge', async () => {
      const order = await newOrder();
      const [{ id }] = await sql(`INSERT INTO core_products (app_id, title, price) VALUES ($1, 'Yacht', 99999999) RETURNING id`, [a.appId]);
      await sql(
        `INSERT INTO core_data ("Shop_ID", "Source_Table", "Current_ID", "Master_ID", "Status", "Published", "Staged", "Publish_Set_Date") VALUES ($1, 'core_products', $2, $2, 'Published', 1, 1, now())`,
        [a.appId, id],
      );
      expect((await addCart({ sessionID: order._id, productID: id, quantity: 1, price: 99999999 })).status).toBe(200);
      const over = await addCart({ sessionID: order._id, productID: book, quantity: 1, price: 2500 });
      expect([over.status, fieldsOf(over)]).toEqual([400, ['quantity']]);
      expect((await orderRow(order.orderID)).total).toBe(99999999);
    });

    it('refuses to change the cart of a paid order', async () => {
      const order = await newOrder();
      await addCart({ sessionID: order._id, productID: book, quantity: 1, price: 2500 });
      await sql(`UPDATE core_orders SET orderstatus = 'Paid', orderstatuslabel = 'Paid', payment_status = 'Success' WHERE id = $1`, [
        order.orderID,
      ]);
      const add = await addCart({ sessionID: order._id, productID: book, quantity: 1, price: 2500 });
      expect([add.status, add.body.message]).toEqual([400, 'Cannot change the cart of an order that is Paid']);
      const remove = await removeCart({ sessionID: order._id, productID: book });
      expect([remove.status, remove.body.message]).toEqual([400, 'Cannot change the cart of an order that is Paid']);
      expect((await getOrder({ _orderID: order._id })).body.data).toMatchObject({
        status: 'Paid',
        total: 2500,
        items: [expect.objectContaining({ Qty: 1 })],
      });
    });

    it('gives a placeholder order to the first customer who adds with a bearer; another customer can then no longer use it', async () => {
      const order = await newOrder();
      const reconciled = await addCart({ sessionID: order._id, productID: book, quantity: 1, price: 2500 }, bearer(customer1));
      expect(reconciled.status).toBe(200);
      expect(await orderRow(order.orderID)).toMatchObject({ customer_id: customer1Id, customer_is_placeholder: false });

      const stolen = await addCart({ sessionID: order._id, productID: book, quantity: 1, price: 2500 }, bearer(customer2));
      expect([stolen.status, stolen.body]).toEqual([404, NOT_FOUND]);
      expect((await getOrder({ orderID: order.orderID }, bearer(customer2))).body).toEqual(NOT_FOUND);
      expect((await removeCart({ sessionID: order._id, productID: book }, bearer(customer2))).body).toEqual(NOT_FOUND);
      expect((await getOrder({ orderID: order.orderID }, bearer(customer1))).body.data.total).toBe(2500);
      expect(await orderRow(order.orderID)).toMatchObject({ customer_id: customer1Id, total: 2500 });
    });

    it("answers unknown, tampered and another app's order ids exactly like a missing order", async () => {
      const order = await newOrder();
      const foreign = (await createOrder({}, b.headers)).body.data as { _id: string; orderID: number };
      const tampered = order._id.slice(0, -2) + (order._id.endsWith('AA') ? 'BB' : 'AA');
      const unknown = t.get(IdCipherService).encryptId(a.appId, 987654);
      const item = { productID: book, Qty: 1, Price: 2500 };
      const answers: TestResponse[] = [];
      for (const id of [tampered, foreign._id, unknown, 'garbage', '']) {
        answers.push(await addCart({ _orderID: id, items: [item] }));
        if (id) answers.push(await addCart({ sessionID: id, productID: book, quantity: 1, price: 2500 }));
        if (id) answers.push(await removeCart({ sessionID: id, productID: book }));
        answers.push(await getOrder({ _orderID: id }));
        if (id) answers.push(await getOrder({ orderID: id }));
      }
      // Plain numbers name an order only for its customer or an app admin; another app's order never.
      answers.push(await getOrder({ orderID: order.orderID }));
      answers.push(await getOrder({ orderID: foreign.orderID }, a.adminHeaders));
      answers.push(await addCart({ orderID: order.orderID, items: [item] }));
      answers.push(await getOrder({ orderID: 987654 }, a.adminHeaders));
      for (const res of answers) expect([res.status, res.body]).toEqual([404, NOT_FOUND]);
      expect(await sql('SELECT id FROM core_order_items WHERE "Order_ID" IN ($1, $2)', [order.orderID, foreign.orderID])).toEqual([]);
    });

    it('keeps every one of 20 concurrent adds to one order', async () => {
      const order = await newOrder();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2
            ? addCart({ sessionID: order._id, productID: book, quantity: 1, price: 2500 })
            : addCart({ _orderID: order._id, items: [{ productID: tent, Qty: 1, Price: 10000 }] }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
      const view = (await getOrder({ _orderID: order._id })).body.data;
      expect(view.items.map((i: any) => [i.product_mid, i.Qty])).toEqual(
        expect.arrayContaining([
          [book, 10],
          [tent, 10],
        ]),
      );
      expect(view.items).toHaveLength(2);
      expect(view.total).toBe(10 * 2500 + 10 * 15000);
      expect((await orderRow(order.orderID)).total).toBe(view.total);
    });
  });

  describe('removeCart', () => {
    it("removes a product's Pending items (gift lines too) and recomputes the total; the last removal resets the order to New", async () => {
      const order = await newOrder();
      await addCart({
        _orderID: order._id,
        items: [
          { productID: book, Qty: 2, Price: 2500 },
          { productID: ebook, Qty: 1, Price: 1500 },
          { productID: book, Qty: 1, Price: 2500, redeemStatus: 'gift' },
        ],
      });
      await sql(`UPDATE core_orders SET orderstatuslabel = 'Cart' WHERE id = $1`, [order.orderID]);

      const first = await removeCart({ sessionID: order._id, productID: book });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status: 'Success', message: 'Removed from cart', removed: 2 });
      expect(first.body.data.items.map((i: any) => i.product_mid)).toEqual([ebook]);
      expect(first.body.data.total).toBe(1500);
      expect(first.body.data.orderStatusLabel).toBe('Cart');

      const absent = await removeCart({ sessionID: order._id, productID: book });
      expect(absent.status).toBe(200);
      expect(absent.body).toMatchObject({ status: 'Success', message: 'Product not in cart', removed: 0, data: { total: 1500 } });

      const last = await removeCart({ _orderID: order._id, productID: ebook });
      expect(last.body).toMatchObject({ removed: 1, data: { status: 'New', orderStatusLabel: 'New', total: 0, items: [] } });
      expect(await orderRow(order.orderID)).toMatchObject({ orderstatus: 'New', orderstatuslabel: 'New', total: 0 });
    });

    it('validates its body', async () => {
      const order = await newOrder();
      for (const [body, field] of [
        [{ sessionID: order._id }, 'productID'],
        [{ sessionID: order._id, productID: 'x' }, 'productID'],
        [{ productID: book }, 'sessionID'],
      ] as [Record<string, unknown>, string][]) {
        const res = await removeCart(body);
        expect([res.status, fieldsOf(res)[0]]).toEqual([400, field]);
      }
    });
  });

  it('documents the four routes and their answers in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/docs/openapi.json')).body;
    for (const route of ['createOrder', 'addCart', 'removeCart', 'getOrder'])
      expect(doc.paths).toHaveProperty([`/ecommerce/${route}`, 'post']);
    expect(doc.paths['/ecommerce/createOrder'].post.responses['201'].description).toMatch(/orderNumber/);
    expect(doc.paths['/ecommerce/addCart'].post.responses['200'].description).toMatch(/items: \[\{ id, product_ID/);
    expect(doc.paths['/ecommerce/removeCart'].post.responses['200'].description).toMatch(/removed/);
    expect(doc.paths['/ecommerce/getOrder'].post.responses['404'].description).toMatch(/Order not found/);
    expect(Object.keys(doc.components.schemas.CartItemB.properties).sort()).toEqual(['Price', 'Qty', 'productID', 'redeemStatus']);
  });

  describe('getOrder', () => {
    it('shows the order to its customer by plain id, to an app admin, and to holders of the encrypted id; never customer data', async () => {
      const created = await createOrder({ billingAddress: { city: 'Perth' } }, bearer(customer1));
      const order = created.body.data as { _id: string; orderID: number };
      await addCart({ sessionID: order._id, productID: tent, quantity: 1, price: 10000 }, bearer(customer1));
      await sql(`UPDATE core_orders SET "BillingFirstName" = 'Cy', "BillingEmail" = 'c1@example.test' WHERE id = $1`, [order.orderID]);

      const mine = await getOrder({ orderID: order.orderID, customerID: customer2Id }, bearer(customer1));
      expect(mine.status).toBe(200);
      const data = mine.body.data;
      expect(Object.keys(data).sort()).toEqual(
        [
          '_id',
          'billing',
          'billingAddress',
          'created',
          'currency',
          'items',
          'notes',
          'orderDate',
          'orderID',
          'orderNumber',
          'orderStatusLabel',
          'paymentMethod',
          'paymentStatus',
          'shippingAddress',
          'status',
          'total',
        ].sort(),
      );
      expect(data).toMatchObject({
        _id: order._id,
        orderID: order.orderID,
        orderNumber: String(order.orderID).padStart(8, '0'),
        status: 'New',
        total: 15000,
        billing: { firstName: 'Cy', lastName: null, email: 'c1@example.test', address: null, suburb: null, postCode: null },
        billingAddress: { city: 'Perth' },
        shippingAddress: null,
      });
      expect(Object.keys(data.items[0]).sort()).toEqual(
        [
          'IsDigital',
          'IsEvent',
          'ItemStatus',
          'Price',
          'Qty',
          'RedeemStatus',
          'bond',
          'id',
          'product_ID',
          'product_mid',
          'subtotal',
          'tax',
          'title',
        ].sort(),
      );
      expect(data.items[0]).toMatchObject({ title: 'Tent hire', Qty: 1, Price: 10000, tax: 909, bond: 5000, subtotal: 15000, IsEvent: 1 });

      expect((await getOrder({ orderID: order.orderID }, a.adminHeaders)).body.data).toEqual(data);
      expect((await getOrder({ orderID: order._id })).body.data).toEqual(data);
      expect((await getOrder({ _orderID: order._id })).body.data).toEqual(data);
      expect((await getOrder({ orderID: order.orderID }, bearer(customer2))).body).toEqual(NOT_FOUND);
      expect((await getOrder({ _orderID: order._id }, bearer(customer2))).body).toEqual(NOT_FOUND);
    });

    it('validates orderID', async () => {
      for (const [body, field] of [
        [{}, 'orderID'],
        [{ orderID: -1 }, 'orderID'],
        [{ orderID: 1.5 }, 'orderID'],
        [{ orderID: true }, 'orderID'],
        [{ orderID: 'x'.repeat(600) }, 'orderID'],
      ] as [Record<string, unknown>, string][]) {
        const res = await getOrder(body);
        expect([res.status, fieldsOf(res)[0]]).toEqual([400, field]);
      }
    });
  });
});
