import { ShopTenant } from '../orders/checkout-helpers';
import { Cluster, ProxiedResponse } from '../support/cluster';
import { waitFor } from '../support/wait';
import { checkoutThroughProxy, confirmAtProvider, startShopCluster } from './cluster-shop';

/**
 * No state lives in an instance: a customer logs in on one, refreshes the session on the other and shops
 * with the refreshed token, each request answered by whichever instance is next, the payment announced by
 * the provider through the same proxy.
 */
describe('cluster: login, refresh and checkout whichever instance answers', () => {
  let cluster: Cluster;
  let shop: ShopTenant;

  beforeAll(async () => ({ cluster, shop } = await startShopCluster()));
  afterAll(() => cluster?.stop());

  it('logs in on one instance, refreshes on the other, and checks out and pays across both', async () => {
    const login = await cluster.post(
      '/auth/login',
      { email: shop.customerEmail, password: 'Cust@1234', authTable: 'core_customers' },
      shop.headers,
    );
    expect(login.status).toBe(200);
    expect(login.body.token.user).toMatchObject({ id: shop.customerId, email: shop.customerEmail });

    const refresh = await cluster.post(
      '/auth/refresh-token',
      { payload: { access_token: login.body.token.access_token, refresh_token: login.body.token.refresh_token } },
      shop.headers,
    );
    expect(refresh.status).toBe(200);
    expect(refresh.instance).not.toBe(login.instance);
    const { access_token: access, refresh_token: refreshed } = refresh.body.token;
    expect(typeof access).toBe('string');

    // The refreshed refresh token works on the first instance too, and the refreshed access token on both.
    const again = await cluster.post('/auth/refresh-token', { payload: { access_token: access, refresh_token: refreshed } }, shop.headers);
    expect(again.status).toBe(200);
    expect(again.instance).toBe(login.instance);

    const customer = { ...shop.headers, authorization: `Bearer ${access}` };
    const order = await checkoutThroughProxy(cluster, shop, [{ productID: shop.ebook, Qty: 1, Price: 1500 }], customer);
    expect(new Set(order.answers.map((a) => a.instance))).toEqual(new Set([0, 1]));
    const [placed] = await cluster.sql('SELECT customer_id, orderstatus FROM core_orders WHERE id = $1', [order.orderID]);
    expect(placed).toEqual({ customer_id: shop.customerId, orderstatus: 'New' });

    // The customer pays; the provider announces it through the proxy.
    expect(await confirmAtProvider(cluster, order.intent)).toBe(200);
    expect(cluster.webhook.reports.at(-1)).toBe(`webhook payment_intent.succeeded for ${order.intent.id} → 200 {"received":true}`);
    const statuses: ProxiedResponse[] = [];
    for (let i = 0; i < 2; i++) statuses.push(await cluster.request('GET', `/ecommerce/orderStatus/${order._id}`, undefined, customer));
    expect(statuses.map((s) => [s.status, s.body.data.orderStatus])).toEqual([
      [200, 'Paid'],
      [200, 'Paid'],
    ]);
    expect(new Set(statuses.map((s) => s.instance))).toEqual(new Set([0, 1]));
    await waitFor(() => cluster.smtp.mails.length >= 2);
    expect(cluster.smtp.mails.find((m) => m.envelope.to.includes(shop.customerEmail))?.parsed.subject).toBe(
      `${shop.domain} - Order confirmation #${order.orderID}`,
    );
  });
});
