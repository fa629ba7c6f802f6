import { defineCommand } from '../command-spec';

// Commands that open no database: the service's secrets, and the payment provider's double for development.

export const NO_DATABASE_COMMANDS = [
  defineCommand({
    name: 'secrets:generate',
    summary: 'new secrets as .env lines (JWT, ENCRYPTION_*, IDP_COOKIE_PASSWORD, VAPID_*); no database',
    synopsis: '[--json]',
    flags: [{ name: 'json', help: 'print them as one JSON object instead' }],
    parse: (args) => ({ json: args.given('json') }),
    run: async ({ json }) => {
      const { envLines, generateSecrets } = require('../secrets') as typeof import('../secrets');
      const secrets = generateSecrets();
      return json ? secrets : envLines(secrets);
    },
  }),
  defineCommand({
    name: 'payment:double',
    summary: "run a local double of the payment provider's API (development); no database",
    synopsis: '[--port 12111] [--host 127.0.0.1] [--webhook-url URL --webhook-secret SECRET]',
    flags: [
      { name: 'port', value: 'PORT', help: 'listen port (default 12111)' },
      { name: 'host', value: 'HOST', help: 'listen address (default 127.0.0.1)' },
      {
        name: 'webhook-url',
        value: 'URL',
        help: 'where the provider’s events are delivered (payment_intent.succeeded, .payment_failed, .canceled, charge.refunded)',
      },
      { name: 'webhook-secret', value: 'SECRET', help: 'signs those announcements' },
    ],
    parse: (args) => {
      const port = Number(args.text('port') ?? '12111');
      if (!/^\d+$/.test(args.text('port') ?? '12111') || port > 65535) args.fail('--port must be a port number');
      if (!args.text('webhook-url') !== !args.text('webhook-secret')) args.fail('--webhook-url and --webhook-secret go together');
      const webhook = args.text('webhook-url') ? { url: args.text('webhook-url')!, secret: args.text('webhook-secret')! } : undefined;
      return { port, host: args.text('host') ?? '127.0.0.1', webhook };
    },
    run: runPaymentDouble,
  }),
];

/**
 * A local double of the payment provider for trying the shop without it (README "Trying the shop"): the
 * service's PAYMENT_API_URL points at it; confirming an intent there delivers the signed webhook. Runs
 * until interrupted; needs no database.
 */
async function runPaymentDouble(options: { port: number; host: string; webhook?: { url: string; secret: string } }): Promise<undefined> {
  // The folder's index by name: a build made before the double became a folder left a payment-double.js beside it.
  const { PaymentPeer } = require('../payment-double/index') as typeof import('../payment-double/index');
  const double = await PaymentPeer.start(options);
  console.log(JSON.stringify({ paymentApiUrl: double.url, webhook: options.webhook?.url ?? null }));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await double.stop();
  return undefined;
}
