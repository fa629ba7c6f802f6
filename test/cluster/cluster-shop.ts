import { billing, CartLine, seedShop, ShopTenant } from '../orders/checkout-helpers';
import { Cluster, ProxiedResponse } from '../support/cluster';
import { PeerIntent } from '../support/payment-peer';

/** Two instances with their senders on, and a shop whose webhook secret the payment double signs with. */
export async function startShopCluster(): Promise<{ cluster: Cluster; shop: ShopTenant }> {
  const cluster = await Cluster.start({ env: { NOTIFY_SENDER_ENABLED: 'true', NOTIFY_POLL_INTERVAL_MS: '200' } });
  const shop = await seedShop(cluster.seeder);
  cluster.webhook.secret = shop.secret;
  return { cluster, shop };
}

/** createOrder → addCart → checkout through the proxy, as a front end does; each answer and the intent at the double. */
export async function checkoutThroughProxy(
  cluster: Cluster,
  shop: ShopTenant,
  lines: CartLine[],
  headers = shop.headers,
): Promise<{ _id: string; orderID: number; intent: PeerIntent; answers: ProxiedResponse[] }> {
  const created = await cluster.post('/ecommerce/createOrder', {}, headers);
  if (created.status !== 201) throw new Error(`createOrder: ${JSON.stringify(created.body)}`);
  const { _id, orderID } = created.body.data;
  const added = await cluster.post('/ecommerce/addCart', { _orderID: _id, items: lines }, headers);
  if (added.status >= 300) throw new Error(`addCart: ${JSON.stringify(added.body)}`);
  const [{ total }] = await cluster.sql('SELECT total FROM core_orders WHERE id = $1', [orderID]);
  const checkout = await cluster.post(
    '/ecommerce/checkout',
    { _orderID: _id, amount: Number(total), data: billing(shop.customerEmail) },
    headers,
  );
  if (checkout.status !== 201) throw new Error(`checkout: ${JSON.stringify(checkout.body)}`);
  return { _id, orderID, intent: cluster.payment.intents.get(checkout.body.data.paymentIntentID)!, answers: [created, added, checkout] };
}

/**
 * The customer pays at the provider: the intent is confirmed at the double, which delivers its own signed
 * payment_intent.succeeded to the proxy (with `cluster.webhook.secret`) before it answers.
 */
export async function confirmAtProvider(cluster: Cluster, intent: PeerIntent): Promise<number> {
  const apiKey = cluster.payment.requests.find(
    (r) =>
      r.path === '/v1/payment_intents' &&
      r.body.metadata &&
      (r.body.metadata as Record<string, string>).orderID === intent.metadata.orderID,
  )!.apiKey;
  const res = await fetch(`${cluster.payment.url}/v1/payment_intents/${intent.id}/confirm`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
  });
  await res.arrayBuffer();
  return res.status;
}
