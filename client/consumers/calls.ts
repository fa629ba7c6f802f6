/**
 * The calls every consumer project of client/consumers/ makes (client/scripts/check-consumers.mjs copies this file
 * into each): client/README.md's walkthrough and the nine calls issue 41 found refused by the compiler although
 * the service accepts them, with what the compiler must still refuse.
 */
import { createClient, type Client, type Schemas } from '@platform-service/client';

const site = { 'site-id': '7' };

/** A value typed `any` (a missing declaration) is refused here. */
type NotAny<T> = 0 extends 1 & T ? never : T;
function typed<T>(value: NotAny<T>): T {
  return value;
}

/** Makes the calls against the service at `baseUrl`; what they saw, for the compiler to check its types. */
export async function useTheClient(baseUrl: string) {
  // The walkthrough (client/README.md): a customer logs in, finds a product, orders and pays, renews the session, signs out.
  const api = createClient({ baseUrl, headers: site });

  const login = await api.POST('/auth/login', { body: { email: 'cust@example.test', password: 'Cust@1234', authTable: 'core_customers' } });
  if (login.error) throw new Error(login.error.message);
  const tokens: Schemas['LoginTokens'] = typed(login.data.token);
  const shopper: Client = createClient({ baseUrl, headers: { ...site, authorization: `Bearer ${tokens.access_token}` } });

  const products = await api.POST('/getDataRows', {
    body: {
      table: 'core_products',
      fields: 'title,price',
      whereConditions: { conditions: [{ field: 'price', operator: 'less_than', value: 3000 }] },
    },
  });
  const rows = products.data?.data;
  const firstTitle: unknown = Array.isArray(rows) ? rows[0]?.title : undefined;

  const order = await shopper.POST('/ecommerce/createOrder', { body: {} });
  if (order.error) throw new Error(order.error.message);
  const orderId: string = typed(order.data.data._id);
  await shopper.POST('/ecommerce/addCart', { body: { _orderID: orderId, items: [{ productID: 101, Qty: 1, Price: 2500 }] } });
  const checkout = await shopper.POST('/ecommerce/checkout', {
    body: { _orderID: orderId, amount: 2500, currency: 'aud', data: { firstName: 'Cy', email: 'cust@example.test' } },
  });
  if (checkout.error) throw new Error(checkout.error.message);
  const payment: Schemas['PaymentIntentDto'] = typed(checkout.data.data);
  const status = await shopper.GET('/ecommerce/orderStatus/{id}', { params: { path: { id: orderId } } });
  const state: Schemas['OrderStatusDataDto'] | undefined = status.data?.data;
  const paid: boolean = state?.orderStatus === 'Paid';

  // An access token that expired is renewed with the pair (issue 41: the payload was typed Record<string, never>).
  const renewed = await api.POST('/auth/refresh-token', {
    body: { payload: { access_token: tokens.access_token, refresh_token: tokens.refresh_token } },
  });
  const next: Schemas['TokenPairDto'] | undefined = renewed.data?.token;
  // Sign-out takes the refresh token (a string) and always succeeds.
  await shopper.POST('/auth/sign-out', { body: { refreshToken: next?.refresh_token ?? tokens.refresh_token } });

  // The staff side: an admin's bearer.
  const adminLogin = await api.POST('/auth/login', { body: { email: 'admin@example.test', password: 'Admin@1234' } }); // authTable defaults to core_users
  if (adminLogin.error) throw new Error(adminLogin.error.message);
  const admin = createClient({ baseUrl, headers: { ...site, authorization: `Bearer ${adminLogin.data.token.access_token}` } });

  // Content: create with free-form column values, find the record, edit it by the `_id` /getDataRows returned.
  await admin.POST('/content/create', { body: { table: 'core_products', data: { title: 'E-book', price: 2500, tax: 227, IsDigital: 1 } } });
  const found = await admin.POST('/getDataRows', {
    body: {
      table: 'core_products',
      isLive: true,
      record: true,
      whereConditions: { operator: 'AND', conditions: [{ field: 'title', operator: 'equals', value: 'E-book' }] },
    },
  });
  const record = found.data?.data;
  if (record && !Array.isArray(record) && record._id !== undefined)
    await admin.POST('/content/edit', {
      body: { table: 'core_products', _id: record._id, data: { price: 2700, title: 'E-book (2nd edition)' } },
    });
  await admin.POST('/content/edit', { body: { table: 'core_products', masterId: 101, data: { price: 2700 } } });

  // Where-condition values: a number, a string, a boolean, a list for `in`, null for IS NULL, none for is_null.
  await api.POST('/getDataRows', {
    body: {
      table: 'core_products',
      whereConditions: {
        operator: 'OR',
        conditions: [
          { field: 'price', operator: 'greater_than', value: 1000 },
          { field: 'title', operator: 'starts_with', value: 'E-' },
          { field: 'IsDigital', operator: 'equals', value: true },
          { field: 'meta_master_id', operator: 'in', value: [101, '102', null] },
          { field: 'title', operator: 'not_equals', value: null },
          { field: 'tax', operator: 'is_null' },
        ],
      },
    },
  });

  // Tokens: extend by a number of days.
  const extended = await admin.POST('/ecommerce/extendToken', { body: { tokenId: 1, days: 30 } });
  const newExpiry: string | undefined = extended.data?.data.newExpiry;

  // A notification with merge data.
  await api.POST('/message/notification', {
    body: { event: 'welcome', email: 'cust@example.test', data: { firstname: 'Cy', points: 12 } },
  });

  // Orders: paymentStatus may be null (a New order).
  const listed = await admin.POST('/ecommerce/getOrder', { body: { _orderID: orderId } });
  const paymentStatus: Schemas['OrderViewDto']['paymentStatus'] = null;
  const shown: string = listed.data?.data.paymentStatus ?? paymentStatus ?? 'not paid';

  // What the service refuses, the compiler refuses too.
  // @ts-expect-error tokenId is a number
  await admin.POST('/ecommerce/extendToken', { body: { tokenId: 'one', days: 30 } });
  // @ts-expect-error days is required
  await admin.POST('/ecommerce/extendToken', { body: { tokenId: 1 } });
  // @ts-expect-error _id is the encrypted string /getDataRows returns, not a number
  await admin.POST('/content/edit', { body: { table: 'core_products', _id: 101, data: {} } });
  // @ts-expect-error authTable is one of the three user tables
  await api.POST('/auth/login', { body: { email: 'a@example.test', password: 'Secret@123', authTable: 'core_admins' } });
  // @ts-expect-error the refresh payload holds both tokens
  await api.POST('/auth/refresh-token', { body: { payload: { refresh_token: 'r' } } });

  return { firstTitle, payment, paid, newExpiry, shown };
}
