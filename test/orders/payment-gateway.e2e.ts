import Stripe from 'stripe';
import { Site, SitesService } from '../../src/app-context';
import { ApiError } from '../../src/common/api-error';
import { RequestContext } from '../../src/common/request-context';
import { PAYMENT_NETWORK_DEFAULTS, PaymentGatewayService } from '../../src/orders/checkout/payment-gateway.service';
import { PaymentPeer } from '../support/payment-peer';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

/**
 * The gateway as the app builds it (the provider's SDK, PAYMENT_API_URL) against a local double of the
 * provider's API, and webhook signatures made by the SDK's own helper.
 */
describe('PaymentGatewayService (stripe SDK against the local payment peer)', () => {
  let peer: PaymentPeer;
  let t: TestApp;
  let gateway: PaymentGatewayService;
  let shop: Site; // test and live keys
  let testOnly: Site; // a test key only
  let unpaid: Site; // no keys at all
  let badKey: Site; // a key the provider refuses
  let blankKey: Site; // a test key of blanks
  let orders = 0;

  const request = (extra: Partial<{ amount: number; currency: string; metadata: Record<string, string>; idempotencyKey: string }> = {}) => {
    const orderID = String(++orders);
    return {
      amount: 2500,
      currency: 'aud',
      metadata: { appID: String(shop.id), orderID, customerID: '42' },
      idempotencyKey: `order-${orderID}-2500`,
      ...extra,
    };
  };

  async function failure(work: Promise<unknown> | (() => unknown)): Promise<ApiError> {
    try {
      await (typeof work === 'function' ? work() : work);
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      return error as ApiError;
    }
    throw new Error('expected an ApiError');
  }

  /** The context of work for `site`: the gateway reads the app's keys itself. */
  const of = (site: Site) => RequestContext.background('test', false, site);

  const intentsOfOrder = (orderID: string) => [...peer.intents.values()].filter((intent) => intent.metadata.orderID === orderID);

  beforeAll(async () => {
    peer = await PaymentPeer.start();
    t = await startTestApp({ PAYMENT_API_URL: peer.url });
    gateway = t.get(PaymentGatewayService);
    const load = async (overrides: Record<string, unknown>) => {
      const { appID } = await t.seed({ site: siteFixture(overrides) });
      const [sites, ctx] = [t.get(SitesService), RequestContext.background('test', false)];
      return { ...(await sites.findById(ctx, appID))!, ...(await sites.secretsOf(ctx, appID))! };
    };
    shop = await load({ payment_live_private_key: 'sk_live_shop' });
    testOnly = await load({});
    unpaid = await load({ payment_test_private_key: null, payment_live_private_key: null, payment_webhook_secret: null });
    badKey = await load({ payment_test_private_key: 'not-a-provider-key' });
    blankKey = await load({ payment_test_private_key: '  ' });
  });

  afterEach(() => {
    peer.heal();
    Object.assign(gateway.network, PAYMENT_NETWORK_DEFAULTS);
  });

  afterAll(async () => {
    await t?.close();
    await peer?.stop();
  });

  describe('createIntent', () => {
    it('creates a card intent with the metadata, through the SDK, with the app test key and the idempotency key', async () => {
      const req = request({ currency: 'AUD' });
      const intent = await gateway.createIntent(of(shop), false, req);

      expect(intent).toEqual({
        cancellationReason: null,
        lastPaymentError: null,
        id: expect.stringMatching(/^pi_\w+$/),
        clientSecret: expect.stringMatching(new RegExp(`^${intent.id}_secret_\\w+$`)),
        status: 'requires_payment_method',
        amount: 2500,
        currency: 'aud',
        livemode: false,
        metadata: req.metadata,
      });
      const sent = peer.requests.at(-1)!;
      expect(sent).toMatchObject({
        method: 'POST',
        path: '/v1/payment_intents',
        apiKey: shop.payment_test_private_key,
        idempotencyKey: req.idempotencyKey,
      });
      expect(sent.body).toEqual({ amount: '2500', currency: 'aud', metadata: req.metadata, allowed_payment_method_types: ['card'] });
      expect(peer.intents.get(intent.id)!.livemode).toBe(false);
    });

    it('returns the same intent for the same idempotency key, also when the calls race, and the provider holds one', async () => {
      const req = request();
      const first = await gateway.createIntent(of(shop), false, req);
      const again = await Promise.all([1, 2, 3].map(() => gateway.createIntent(of(shop), false, req)));

      for (const intent of again) expect(intent).toEqual(first);
      expect(intentsOfOrder(req.metadata.orderID)).toHaveLength(1);
    });

    it("a new amount with a new key is a new intent; an old key with other parameters is the provider's 400", async () => {
      const req = request();
      const first = await gateway.createIntent(of(shop), false, req);
      const second = await gateway.createIntent(of(shop), false, {
        ...req,
        amount: 3000,
        idempotencyKey: `order-${req.metadata.orderID}-3000`,
      });
      expect(second.id).not.toBe(first.id);

      const error = await failure(gateway.createIntent(of(shop), false, { ...req, amount: 3500 }));
      expect(error.httpStatus).toBe(400);
      expect(error.message).toMatch(
        /^Payment request rejected by the provider: Keys for idempotent requests can only be used with the same parameters/,
      );
      expect(intentsOfOrder(req.metadata.orderID)).toHaveLength(2);
    });

    it('production picks the live key, otherwise the test key', async () => {
      const live = await gateway.createIntent(of(shop), true, request());
      expect(peer.requests.at(-1)!.apiKey).toBe('sk_live_shop');
      expect(peer.intents.get(live.id)!.livemode).toBe(true);

      await gateway.createIntent(of(shop), false, request());
      expect(peer.requests.at(-1)!.apiKey).toBe(shop.payment_test_private_key);
    });

    it('an app without the key the mode needs gets a 400 naming it, and nothing reaches the provider', async () => {
      const before = peer.requests.length;

      const noTest = await failure(gateway.createIntent(of(unpaid), false, request()));
      expect(noTest.httpStatus).toBe(400);
      expect(noTest.toBody()).toEqual({
        status: 'Failed',
        message: 'Payments are not configured for this app (payment_test_private_key is not set)',
      });

      const noLive = await failure(gateway.createIntent(of(testOnly), true, request()));
      expect(noLive.httpStatus).toBe(400);
      expect(noLive.message).toBe('Payments are not configured for this app (payment_live_private_key is not set)');

      const blank = await failure(gateway.createIntent(of(blankKey), false, request()));
      expect(blank.httpStatus).toBe(400);
      expect(peer.requests.length).toBe(before);
    });

    it("an invalid request is the provider's 400 in a clear message", async () => {
      const error = await failure(gateway.createIntent(of(shop), false, request({ amount: 0 })));
      expect(error.httpStatus).toBe(400);
      expect(error.message).toBe('Payment request rejected by the provider: This value must be greater than or equal to 1.');
    });

    it('a key the provider refuses is a 502 that does not quote the key', async () => {
      const error = await failure(gateway.createIntent(of(badKey), false, request()));
      expect(error.httpStatus).toBe(502);
      expect(error.message).toBe("Payment provider error: the provider refused the app's payment_test_private_key (HTTP 401)");
      expect(error.message).not.toContain('not-a');
    });
  });

  describe('provider faults', () => {
    it('a provider 500 is retried once under the same idempotency key, then a 502 without a stack trace', async () => {
      const before = peer.requests.length;
      peer.fail('http500');
      const req = request();

      const error = await failure(gateway.createIntent(of(shop), false, req));
      expect(error.httpStatus).toBe(502);
      expect(error.toBody()).toEqual({ status: 'Failed', message: 'Payment provider error: An unknown error occurred (HTTP 500)' });
      const attempts = peer.requests.slice(before);
      expect(attempts).toHaveLength(1 + PAYMENT_NETWORK_DEFAULTS.maxNetworkRetries);
      expect(new Set(attempts.map((a) => a.idempotencyKey))).toEqual(new Set([req.idempotencyKey]));
      expect(intentsOfOrder(req.metadata.orderID)).toHaveLength(0);
    });

    it('one transient 500 is ridden over by the retry: one intent', async () => {
      peer.fail('http500', 1);
      const req = request();
      const intent = await gateway.createIntent(of(shop), false, req);
      expect(intentsOfOrder(req.metadata.orderID).map((i) => i.id)).toEqual([intent.id]);
    });

    it('a dropped connection is a 502', async () => {
      peer.fail('drop');
      const error = await failure(gateway.createIntent(of(shop), false, request()));
      expect(error.httpStatus).toBe(502);
      expect(error.message).toBe('Payment provider error: could not connect to the provider');
    });

    it('a provider slower than the timeout is a 502; a retried checkout then gets the intent the provider did create', async () => {
      gateway.network.timeoutMs = 400;
      peer.delayMs = 1500;
      const req = request();

      const started = Date.now();
      const error = await failure(gateway.createIntent(of(shop), false, req));
      expect(error.httpStatus).toBe(502);
      expect(error.message).toBe('Payment provider error: no answer within 0.4 s');
      expect(Date.now() - started).toBeLessThan(1500 * 2);

      // The slow provider still created the intent for the first attempt; the same key finds it.
      peer.heal();
      await waitFor(() => intentsOfOrder(req.metadata.orderID).length === 1);
      Object.assign(gateway.network, PAYMENT_NETWORK_DEFAULTS);
      const retried = await gateway.createIntent(of(shop), false, req);
      expect(intentsOfOrder(req.metadata.orderID).map((i) => i.id)).toEqual([retried.id]);
    });

    it('an unreachable provider is a 502', async () => {
      const down = await PaymentPeer.start();
      const url = down.url;
      await down.stop();
      const elsewhere = new PaymentGatewayService({ ...t.config, paymentApiUrl: url }, t.get(SitesService));
      const error = await failure(elsewhere.createIntent(of(shop), false, request()));
      expect(error.httpStatus).toBe(502);
      expect(error.message).toBe('Payment provider error: could not connect to the provider');
    });
  });

  describe('retrieveIntent', () => {
    it('reads the intent back, and sees it succeed', async () => {
      const created = await gateway.createIntent(of(shop), false, request());
      expect(await gateway.retrieveIntent(of(shop), false, created.id)).toEqual(created);
      expect(peer.requests.at(-1)).toMatchObject({
        method: 'GET',
        path: `/v1/payment_intents/${created.id}`,
        apiKey: shop.payment_test_private_key,
      });

      peer.succeed(created.id);
      expect(await gateway.retrieveIntent(of(shop), false, created.id)).toEqual({ ...created, status: 'succeeded' });
    });

    it('an unknown, malformed or other-account intent id is 404 Payment intent not found', async () => {
      const created = await gateway.createIntent(of(shop), false, request());
      for (const [site, production, id] of [
        [shop, false, 'pi_doesnotexist'],
        [shop, true, created.id], // made with the test key: the live account does not know it
        [testOnly, false, created.id], // another app's key
        [shop, false, '../../v1/customers'],
        [shop, false, ''],
      ] as const) {
        const error = await failure(gateway.retrieveIntent(of(site), production, id));
        expect([error.httpStatus, error.message]).toEqual([404, 'Payment intent not found']);
      }
    });

    it('needs the key too', async () => {
      const error = await failure(gateway.retrieveIntent(of(unpaid), false, 'pi_123'));
      expect([error.httpStatus, error.message]).toEqual([
        400,
        'Payments are not configured for this app (payment_test_private_key is not set)',
      ]);
    });
  });

  describe('verifyEvent', () => {
    const secret = 'whsec_gateway_test';
    let intent: ReturnType<PaymentPeer['succeed']>;

    beforeAll(async () => {
      const created = await gateway.createIntent(of(shop), false, request());
      intent = peer.succeed(created.id);
    });

    it('accepts a delivery signed by the SDK and returns the event', () => {
      const { payload, signature } = peer.signedEvent('payment_intent.succeeded', intent, secret, { id: 'evt_fixed_1' });
      const event = gateway.verifyEvent(Buffer.from(payload), signature, secret);
      expect(event.id).toBe('evt_fixed_1');
      expect(event.type).toBe('payment_intent.succeeded');
      expect(event.data.object).toMatchObject({ id: intent.id, status: 'succeeded', metadata: intent.metadata });
    });

    it('refuses a missing, malformed, wrong-secret, altered or too old signature with 400', () => {
      const { payload, signature } = peer.signedEvent('payment_intent.succeeded', intent, secret);
      const body = Buffer.from(payload);
      const altered = Buffer.from(payload.replace(`"amount":${intent.amount}`, '"amount":1'));
      expect(altered.equals(body)).toBe(false);
      const old = peer.signedEvent('payment_intent.succeeded', intent, secret, { timestamp: Math.floor(Date.now() / 1000) - 301 });
      const otherTenant = peer.signedEvent('payment_intent.succeeded', intent, 'whsec_other_tenant');

      const cases: [Buffer, string | undefined][] = [
        [body, undefined],
        [body, ''],
        [body, 'garbage'],
        [body, 't=123,v1=abc'],
        [body, signature.replace(/v1=\w{4}/, 'v1=0000')],
        [Buffer.from(otherTenant.payload), otherTenant.signature],
        [altered, signature],
        [Buffer.from(old.payload), old.signature],
      ];
      for (const [raw, header] of cases) {
        const error = (() => {
          try {
            gateway.verifyEvent(raw, header, secret);
          } catch (e) {
            return e as ApiError;
          }
          throw new Error(`accepted: ${header}`);
        })();
        expect(error).toBeInstanceOf(ApiError);
        expect(error.toBody()).toEqual({ status: 'Failed', message: 'Invalid payment webhook signature' });
        expect(error.httpStatus).toBe(400);
      }
    });

    it('an app without a webhook secret gets a 400 naming it', async () => {
      const { payload, signature } = peer.signedEvent('payment_intent.succeeded', intent, secret);
      const error = await failure(() => gateway.verifyEvent(Buffer.from(payload), signature, null));
      expect([error.httpStatus, error.message]).toEqual([
        400,
        'Payments are not configured for this app (payment_webhook_secret is not set)',
      ]);
    });

    it('a signed body that is not JSON is a 400', async () => {
      const payload = 'not json';
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
      const error = await failure(() => gateway.verifyEvent(Buffer.from(payload), signature, secret));
      expect([error.httpStatus, error.message]).toEqual([400, 'Invalid payment webhook payload']);
    });
  });
});
