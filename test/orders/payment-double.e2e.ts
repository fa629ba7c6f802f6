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

function sdk(url: string, key = 'sk_test_double'): Stripe {
  const { hostname, port, protocol } = new URL(url);
  return new Stripe(key, { host: hostname, port: Number(port), protocol: protocol.replace(':', '') as 'http' });
}

/** The error a request was refused with. */
async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof Stripe.errors.StripeError>> {
  return promise.then(
    () => {
      throw new Error('expected the request to be refused');
    },
    (error: InstanceType<typeof Stripe.errors.StripeError>) => error,
  );
}

/** The events delivered to `hook`, verified with the SDK as the service does. */
function events(hook: { deliveries: { payload: string; signature: string }[] }): Stripe.Event[] {
  return hook.deliveries.map((d) => Stripe.webhooks.constructEvent(d.payload, d.signature, SECRET, 300));
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
      const refused = await fetch(`${double.url}/v1/payment_intents/${other.id}`, {
        headers: { authorization: `Basic ${Buffer.from('sk_test_other:').toString('base64')}` },
      });
      expect(refused.status).toBe(404); // intents belong to the key that made them
    } finally {
      await double.stop();
      hook.server.close();
    }
  });

  it('runs from the CLI until interrupted, and refuses half a webhook configuration', async () => {
    const started = spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'payment:double', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    started.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(() => out.includes('paymentApiUrl'));
    const { paymentApiUrl } = JSON.parse(out.trim().split('\n')[0]);
    const intent = await sdk(paymentApiUrl).paymentIntents.create({ amount: 100, currency: 'aud' });
    expect(intent.id).toMatch(/^pi_/);
    started.kill('SIGINT');
    expect(await new Promise((resolve) => started.on('exit', resolve))).toBe(0);

    const refused = spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'payment:double', '--webhook-url', 'http://127.0.0.1:1/x'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    refused.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    expect(await new Promise((resolve) => refused.on('exit', resolve))).toBe(2);
    expect(err).toContain('--webhook-url and --webhook-secret go together');
  });

  it("refunds a succeeded intent in the provider's shapes: create, replay, refusals, list, retrieve, the charge", async () => {
    const double = await PaymentPeer.start();
    try {
      const stripe = sdk(double.url);
      const intent = await stripe.paymentIntents.create({ amount: 2500, currency: 'aud', metadata: { appID: '7', orderID: '1' } });
      expect(intent).toMatchObject({ last_payment_error: null, cancellation_reason: null });
      expect(await refusal(stripe.refunds.create({ payment_intent: intent.id }))).toMatchObject({
        type: 'StripeInvalidRequestError',
        statusCode: 400,
        code: 'charge_not_refundable',
        message: 'This PaymentIntent does not have a successful charge to refund.',
      });
      const paid = await stripe.paymentIntents.confirm(intent.id);

      const first = await stripe.refunds.create(
        { payment_intent: intent.id, amount: 1000, reason: 'requested_by_customer', metadata: { refundID: '1' } },
        { idempotencyKey: 'refund-1' },
      );
      expect(first).toMatchObject({
        id: expect.stringMatching(/^re_\w+$/),
        object: 'refund',
        amount: 1000,
        currency: 'aud',
        payment_intent: intent.id,
        charge: paid.latest_charge,
        status: 'succeeded',
        reason: 'requested_by_customer',
        metadata: { refundID: '1' },
        created: expect.any(Number),
      });
      expect(double.requests.at(-1)).toMatchObject({
        method: 'POST',
        path: '/v1/refunds',
        idempotencyKey: 'refund-1',
        body: { payment_intent: intent.id, amount: '1000', reason: 'requested_by_customer', metadata: { refundID: '1' } },
      });

      // The provider's idempotency: the same key replays the first answer; other parameters or another endpoint are a 400.
      const replayed = await stripe.refunds.create(
        { payment_intent: intent.id, amount: 1000, reason: 'requested_by_customer', metadata: { refundID: '1' } },
        { idempotencyKey: 'refund-1' },
      );
      expect(replayed.id).toBe(first.id);
      expect(replayed.lastResponse.headers['idempotent-replayed']).toBe('true');
      const changed = await refusal(stripe.refunds.create({ payment_intent: intent.id, amount: 900 }, { idempotencyKey: 'refund-1' }));
      expect(changed).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
      expect(changed.message).toMatch(/^Keys for idempotent requests can only be used with the same parameters/);
      expect(await refusal(stripe.paymentIntents.create({ amount: 100, currency: 'aud' }, { idempotencyKey: 'refund-1' }))).toBeInstanceOf(
        Stripe.errors.StripeIdempotencyError,
      );
      expect(double.refunds.size).toBe(1);

      // Refusals: more than is left, below 1, an unknown reason.
      expect(await refusal(stripe.refunds.create({ payment_intent: intent.id, amount: 2000 }))).toMatchObject({
        statusCode: 400,
        code: 'amount_too_large',
        param: 'amount',
        message: 'Refund amount ($20.00) is greater than unrefunded amount on charge ($15.00)',
      });
      expect(await refusal(stripe.refunds.create({ payment_intent: intent.id, amount: 0 }))).toMatchObject({
        statusCode: 400,
        param: 'amount',
      });
      expect(await refusal(stripe.refunds.create({ payment_intent: intent.id, reason: 'changed_mind' as 'duplicate' }))).toMatchObject({
        statusCode: 400,
        param: 'reason',
      });
      expect(await refusal(stripe.refunds.create({ amount: 100 }))).toMatchObject({
        statusCode: 400,
        code: 'parameter_missing',
        param: 'payment_intent',
      });

      // Without an amount, what is left; then nothing is left.
      const rest = await stripe.refunds.create({ payment_intent: intent.id });
      expect(rest).toMatchObject({ amount: 1500, reason: null, metadata: {} });
      expect(await refusal(stripe.refunds.create({ payment_intent: intent.id, amount: 1 }))).toMatchObject({
        statusCode: 400,
        code: 'charge_already_refunded',
      });

      // The list (query string), newest first; the SDK's pagination; one refund.
      const list = await stripe.refunds.list({ payment_intent: intent.id });
      expect(list).toMatchObject({ object: 'list', has_more: false, url: '/v1/refunds' });
      expect(list.data.map((r) => r.id)).toEqual([rest.id, first.id]);
      expect(double.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/refunds', query: { payment_intent: intent.id } });
      const page = await stripe.refunds.list({ payment_intent: intent.id, limit: 1 });
      expect(page.data.map((r) => r.id)).toEqual([rest.id]);
      expect(page.has_more).toBe(true);
      expect(
        (await stripe.refunds.list({ payment_intent: intent.id, limit: 1 }).autoPagingToArray({ limit: 10 })).map((r) => r.id),
      ).toEqual([rest.id, first.id]);
      expect(await stripe.refunds.retrieve(first.id)).toMatchObject({ id: first.id, amount: 1000, payment_intent: intent.id });

      const charge = double.chargeOf(intent.id);
      expect(charge).toMatchObject({
        id: paid.latest_charge,
        object: 'charge',
        amount: 2500,
        amount_captured: 2500,
        amount_refunded: 2500,
        currency: 'aud',
        payment_intent: intent.id,
        refunded: true,
        metadata: { appID: '7', orderID: '1' },
        livemode: false,
        refunds: { object: 'list', has_more: false },
      });
      expect(charge.refunds.data.map((r) => r.id)).toEqual([rest.id, first.id]);
      expect(await stripe.charges.retrieve(paid.latest_charge as string)).toMatchObject({
        id: paid.latest_charge,
        amount_refunded: 2500,
        refunded: true,
      });

      // Another key (another account) sees none of it.
      const other = sdk(double.url, 'sk_test_other');
      for (const refused of [
        other.refunds.create({ payment_intent: intent.id }),
        other.refunds.list({ payment_intent: intent.id }),
        other.refunds.retrieve(first.id),
        other.charges.retrieve(paid.latest_charge as string),
      ]) {
        expect(await refusal(refused)).toMatchObject({ type: 'StripeInvalidRequestError', statusCode: 404, code: 'resource_missing' });
      }
      expect((await other.refunds.list()).data).toEqual([]);
      expect((await stripe.refunds.list()).data).toHaveLength(2);

      // The dashboard's refund (test helper): no reason, no metadata unless given; the provider's refusals.
      const another = await stripe.paymentIntents.create({ amount: 900, currency: 'aud' });
      expect(() => double.refund(another.id)).toThrow('This PaymentIntent does not have a successful charge to refund.');
      double.succeed(another.id);
      expect(double.refund(another.id, 400)).toMatchObject({
        amount: 400,
        reason: null,
        metadata: {},
        payment_intent: another.id,
        charge: double.intents.get(another.id)!.latest_charge,
      });
      expect(() => double.refund(another.id, 600)).toThrow('Refund amount ($6.00) is greater than unrefunded amount on charge ($5.00)');
      expect(double.refund(another.id, undefined, { by: 'dashboard' })).toMatchObject({ amount: 500, metadata: { by: 'dashboard' } });
      expect(double.chargeOf(another.id)).toMatchObject({ amount_refunded: 900, refunded: true });
      expect(double.succeed(another.id).latest_charge).toBe(double.chargeOf(another.id).id); // a succeeded intent keeps its charge
    } finally {
      await double.stop();
    }
  });

  it("declines the provider's declining test cards with its 402 card_error; a later confirmation succeeds; cancels", async () => {
    const double = await PaymentPeer.start();
    try {
      const stripe = sdk(double.url);
      const intent = await stripe.paymentIntents.create({ amount: 2500, currency: 'aud' });
      for (const card of ['pm_card_chargeDeclined', 'pm_card_visa_chargeDeclined']) {
        const declined = await refusal(stripe.paymentIntents.confirm(intent.id, { payment_method: card }));
        expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
        expect(declined).toMatchObject({
          statusCode: 402,
          code: 'card_declined',
          decline_code: 'generic_decline',
          message: 'Your card was declined.',
        });
        expect(declined.payment_intent).toMatchObject({
          id: intent.id,
          status: 'requires_payment_method',
          last_payment_error: {
            type: 'card_error',
            code: 'card_declined',
            decline_code: 'generic_decline',
            message: 'Your card was declined.',
          },
        });
        expect(declined.raw).toMatchObject({ type: 'card_error', payment_intent: { id: intent.id } });
      }
      const poor = await refusal(stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_chargeDeclinedInsufficientFunds' }));
      expect(poor).toMatchObject({
        code: 'card_declined',
        decline_code: 'insufficient_funds',
        message: 'Your card has insufficient funds.',
      });
      expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
        status: 'requires_payment_method',
        amount_received: 0,
        latest_charge: null,
        last_payment_error: { decline_code: 'insufficient_funds' },
      });

      const paid = await stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa' });
      expect(paid).toMatchObject({
        status: 'succeeded',
        amount_received: 2500,
        latest_charge: expect.stringMatching(/^ch_/),
        last_payment_error: null,
      });
      expect(await refusal(stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_chargeDeclined' }))).toMatchObject({
        statusCode: 400,
        code: 'payment_intent_unexpected_state',
      });
      expect(await refusal(stripe.paymentIntents.cancel(intent.id))).toMatchObject({
        statusCode: 400,
        code: 'payment_intent_unexpected_state',
      });

      // The test helper's decline.
      const helped = await stripe.paymentIntents.create({ amount: 700, currency: 'aud' });
      expect(double.decline(helped.id, 'Your card was declined (test).')).toMatchObject({
        status: 'requires_payment_method',
        last_payment_error: {
          type: 'card_error',
          code: 'card_declined',
          decline_code: 'generic_decline',
          message: 'Your card was declined (test).',
        },
      });
      expect(() => double.decline(intent.id)).toThrow('succeeded');

      // Cancel: through the API and the helper; a canceled intent is neither confirmed nor canceled again.
      const canceled = await stripe.paymentIntents.cancel(helped.id, { cancellation_reason: 'abandoned' });
      expect(canceled).toMatchObject({
        id: helped.id,
        status: 'canceled',
        cancellation_reason: 'abandoned',
        canceled_at: expect.any(Number),
      });
      expect(await refusal(stripe.paymentIntents.confirm(helped.id))).toMatchObject({
        statusCode: 400,
        code: 'payment_intent_unexpected_state',
      });
      expect(await refusal(stripe.paymentIntents.cancel(helped.id))).toMatchObject({
        statusCode: 400,
        code: 'payment_intent_unexpected_state',
      });
      const third = await stripe.paymentIntents.create({ amount: 300, currency: 'aud' });
      expect(await refusal(stripe.paymentIntents.cancel(third.id, { cancellation_reason: 'bored' as 'abandoned' }))).toMatchObject({
        statusCode: 400,
        param: 'cancellation_reason',
      });
      expect(double.cancel(third.id)).toMatchObject({ status: 'canceled', cancellation_reason: null });
      expect(await refusal(sdk(double.url, 'sk_test_other').paymentIntents.cancel(intent.id))).toMatchObject({
        statusCode: 404,
        code: 'resource_missing',
      });
    } finally {
      await double.stop();
    }
  });

  it('delivers signed payment_intent.payment_failed, payment_intent.canceled and charge.refunded before answering, none for a replay', async () => {
    const hook = await endpoint();
    const reports: string[] = [];
    const double = await PaymentPeer.start({ webhook: { url: hook.url, secret: SECRET, report: (line) => reports.push(line) } });
    try {
      const stripe = sdk(double.url);
      const intent = await stripe.paymentIntents.create({ amount: 2500, currency: 'aud', metadata: { appID: '7', orderID: '3' } });
      await refusal(stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_chargeDeclined' }));
      // Delivered (and its answer awaited) before the confirmation was answered.
      expect(events(hook).map((e) => e.type)).toEqual(['payment_intent.payment_failed']);
      const failed = events(hook)[0].data.object as Stripe.PaymentIntent;
      expect(failed).toMatchObject({
        id: intent.id,
        status: 'requires_payment_method',
        metadata: { appID: '7', orderID: '3' },
        last_payment_error: { code: 'card_declined', decline_code: 'generic_decline' },
      });
      expect(reports.at(-1)).toBe(`webhook payment_intent.payment_failed for ${intent.id} → 200 {"received":true}`);

      await stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa' });
      expect(events(hook).map((e) => e.type)).toEqual(['payment_intent.payment_failed', 'payment_intent.succeeded']);

      const refund = await stripe.refunds.create(
        { payment_intent: intent.id, amount: 1000, metadata: { refundID: '9' } },
        { idempotencyKey: 'refund-9' },
      );
      expect(hook.deliveries).toHaveLength(3);
      const refunded = events(hook)[2];
      expect(refunded).toMatchObject({ type: 'charge.refunded', livemode: false, api_version: Stripe.API_VERSION });
      const charge = refunded.data.object as Stripe.Charge;
      expect(charge).toMatchObject({
        object: 'charge',
        id: refund.charge,
        payment_intent: intent.id,
        amount: 2500,
        amount_refunded: 1000,
        refunded: false,
        metadata: { appID: '7', orderID: '3' },
      });
      expect(charge.refunds!.data).toEqual([expect.objectContaining({ id: refund.id, amount: 1000, metadata: { refundID: '9' } })]);
      expect(reports.at(-1)).toBe(`webhook charge.refunded for ${refund.charge} → 200 {"received":true}`);

      expect(
        (
          await stripe.refunds.create(
            { payment_intent: intent.id, amount: 1000, metadata: { refundID: '9' } },
            { idempotencyKey: 'refund-9' },
          )
        ).id,
      ).toBe(refund.id);
      expect(hook.deliveries).toHaveLength(3); // a replay delivers nothing
      const whole = await stripe.refunds.create({ payment_intent: intent.id });
      const last = events(hook)[3].data.object as Stripe.Charge;
      expect(last).toMatchObject({ amount_refunded: 2500, refunded: true });
      expect(last.refunds!.data.map((r) => r.id)).toEqual([whole.id, refund.id]);

      const abandoned = await stripe.paymentIntents.create({ amount: 500, currency: 'aud', metadata: { appID: '7', orderID: '4' } });
      await stripe.paymentIntents.cancel(abandoned.id, { cancellation_reason: 'requested_by_customer' });
      expect(events(hook)[4]).toMatchObject({
        type: 'payment_intent.canceled',
        data: { object: { id: abandoned.id, status: 'canceled', cancellation_reason: 'requested_by_customer' } },
      });
      expect(() => Stripe.webhooks.constructEvent(hook.deliveries[4].payload, hook.deliveries[4].signature, 'whsec_other', 300)).toThrow();

      // The helpers deliver nothing; signedEvent signs any object, livemode from the intent a refund names.
      double.cancel((await stripe.paymentIntents.create({ amount: 100, currency: 'aud' })).id);
      expect(hook.deliveries).toHaveLength(5);
      const live = await sdk(double.url, 'sk_live_double').paymentIntents.create({ amount: 800, currency: 'aud' });
      double.succeed(live.id);
      const liveRefund = double.refund(live.id);
      const signed = double.signedEvent('refund.created', liveRefund, SECRET);
      expect(Stripe.webhooks.constructEvent(signed.payload, signed.signature, SECRET, 300)).toMatchObject({
        type: 'refund.created',
        livemode: true,
        data: { object: { id: liveRefund.id, object: 'refund' } },
      });
      const chargeEvent = double.signedEvent('charge.refunded', double.chargeOf(live.id), SECRET);
      expect(JSON.parse(chargeEvent.payload)).toMatchObject({ livemode: true, data: { object: { object: 'charge', refunded: true } } });
    } finally {
      await double.stop();
      hook.server.close();
    }
  });
});
