import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Stripe from 'stripe';
import { PaymentPeer } from '../support/payment-peer';
import { waitFor } from '../support/wait';

const ROOT = join(__dirname, '..', '..');
const SECRET = 'whsec_double_test';

/** A webhook endpoint that records each delivery's raw body and signature. */
async function endpoint(): Promise<{ server: Server; url: string; deliveries: { payload: string; signature: string }[] }> {
  const deliveries: { payload: string; signature: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ payload: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['stripe-signature']) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ecommerce/payment-webhook`, deliveries };
}

function sdk(url: string): Stripe {
  const { hostname, port, protocol } = new URL(url);
  return new Stripe('sk_test_double', { host: hostname, port: Number(port), protocol: protocol.replace(':', '') as 'http' });
}


/**
 * The payment double that `npm run cli -- payment:double` runs for trying the shop: confirming an intent
 * through the provider's SDK makes it succeeded and delivers a payment_intent.succeeded signed like the
 * provider's, which the SDK's own verification accepts.
 */
describe('payment double', () => {
  it('delivers a signed payment_intent.succeeded when an intent is confirmed, once', async () => {
    const hook = await endpoint();
    const double = await PaymentPeer.start({ webhook: { url: hook.url, secret: SECRET } });
    try {
      const stripe = sdk(double.url);
      const intent = await stripe.paymentIntents.create({ amount: 2500, currency: 'aud', metadata: { appID: '7', orderID: '1' } });
      expect(intent.status).toBe('requires_payment_method');
      const paid = await stripe.paymentIntents.confirm(intent.id);
      expect(paid.status).toBe('succeeded');
      await waitFor(() => hook.deliveries.length === 1);
      const event = Stripe.webhooks.constructEvent(hook.deliveries[0].payload, hook.deliveries[0].signature, SECRET, 300);
      expect(event.type).toBe('payment_intent.succeeded');
      expect((event.data.object as Stripe.PaymentIntent).metadata).toEqual({ appID: '7', orderID: '1' });
      expect(() => Stripe.webhooks.constructEvent(hook.deliveries[0].payload, hook.deliveries[0].signature, 'whsec_other', 300)).toThrow();

      await expect(stripe.paymentIntents.confirm(intent.id)).rejects.toThrow('This PaymentIntent has already succeeded.');
      expect(hook.deliveries).toHaveLength(1);

      // The provider's curl form: the secret key as the basic-auth user name.
      const other = await stripe.paymentIntents.create({ amount: 900, currency: 'aud' });
      const basic = { authorization: `Basic ${Buffer.from('sk_test_double:').toString('base64')}` };
      const confirmed = await fetch(`${double.url}/v1/payment_intents/${other.id}/confirm`, { method: 'POST', headers: basic });
      expect(confirmed.status).toBe(200);
      expect(((await confirmed.json()) as { status: string }).status).toBe('succeeded');
      await waitFor(() => hook.deliveries.length === 2);
      const refused = await fetch(`${double.url}/v1/payment_intents/${other.id}`, { headers: { authorization: `Basic ${Buffer.from('sk_test_other:').toString('base64')}` } });
      expect(refused.status).toBe(404); // intents belong to the key that made them
    } finally {
      await double.stop();
      hook.server.close();
    }
  });

  it('runs from the CLI until interrupted, and refuses half a webhook configuration', async () => {
    const started = spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'payment:double', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    started.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(() => out.includes('paymentApiUrl'));
    const { paymentApiUrl } = JSON.parse(out.trim().split('\n')[0]);
    const intent = await sdk(paymentApiUrl).paymentIntents.create({ amount: 100, currency: 'aud' });
    expect(intent.id).toMatch(/^pi_/);
    started.kill('SIGINT');
    expect(await new Promise((resolve) => started.on('exit', resolve))).toBe(0);

    const refused = spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'payment:double', '--webhook-url', 'http://127.0.0.1:1/x'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    refused.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    expect(await new Promise((resolve) => refused.on('exit', resolve))).toBe(2);
    expect(err).toContain('--webhook-url and --webhook-secret go together');
  });
});
