import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { SeedService } from './cli/seed.service';
import { TenantService } from './cli/tenant.service';
import { PaymentPeer } from './cli/payment-double';
import { ConfigError, loadConfig } from './config/app-config';
import { withDevSecrets } from './config/dev-secrets';
import { openDatabase } from './database/embedded-database';
import { migrate } from './database/migrate';

const USAGE = `Usage: npm run cli -- <command>
  migrate                                   apply pending migrations
  seed FILE.json                            load a tenant fixture, all or nothing; prints { appID, ids }
  tenant:create --name NAME --domain DOMAIN create a tenant with generated keys; prints its JSON
  payment:double [--port 12111] [--webhook-url URL --webhook-secret SECRET]
                                            run a local double of the payment provider's API (development)`;

async function run(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === 'help') {
    console.log(USAGE);
    return undefined;
  }
  if (command === 'payment:double') return runPaymentDouble(rest);
  if (!['migrate', 'seed', 'tenant:create'].includes(command)) throw new UsageError(`Unknown command "${command}"`);

  let fixture: unknown;
  let tenant: { name?: string; domain?: string } = {};
  if (command === 'seed') {
    if (rest.length !== 1) throw new UsageError('seed takes one FILE.json');
    try {
      fixture = JSON.parse(readFileSync(rest[0], 'utf8'));
    } catch (error) {
      throw new UsageError(`Cannot read fixture ${rest[0]}: ${(error as Error).message}`);
    }
  }
  if (command === 'tenant:create') {
    tenant = parseArgs({ args: rest, options: { name: { type: 'string' }, domain: { type: 'string' } } }).values;
    if (!tenant.name || !tenant.domain) throw new UsageError('tenant:create needs --name and --domain');
  }

  const loaded = loadConfig(withDevSecrets(process.env));
  // A command does its work and exits: no notification sender or expiry job of its own meanwhile (the
  // service's instances do that work; a seed must not send the outbox's mails from an operator's shell).
  const config = { ...loaded, notifications: { ...loaded.notifications, senderEnabled: false }, content: { ...loaded.content, expiryTickMs: 0 } };
  const database = await openDatabase(config);
  try {
    const applied = await migrate(database);
    if (command === 'migrate') return { applied };
    const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, database), { logger: ['error'] });
    try {
      if (command === 'seed') return await app.get(SeedService).load(fixture);
      return await app.get(TenantService).create(tenant.name!, tenant.domain!);
    } finally {
      await app.close();
    }
  } finally {
    await database.stop();
  }
}

/**
 * A local double of the payment provider for trying the shop without it (README "Trying the shop"): the
 * service's PAYMENT_API_URL points at it; confirming an intent there delivers the signed webhook. Runs
 * until interrupted; needs no database.
 */
async function runPaymentDouble(args: string[]): Promise<undefined> {
  const { values } = parseArgs({ args, options: { port: { type: 'string', default: '12111' }, host: { type: 'string', default: '127.0.0.1' }, 'webhook-url': { type: 'string' }, 'webhook-secret': { type: 'string' } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number');
  if (!values['webhook-url'] !== !values['webhook-secret']) throw new UsageError('--webhook-url and --webhook-secret go together');
  const webhook = values['webhook-url'] ? { url: values['webhook-url'], secret: values['webhook-secret']! } : undefined;
  const double = await PaymentPeer.start({ port, host: values.host, webhook });
  console.log(JSON.stringify({ paymentApiUrl: double.url, webhook: webhook?.url ?? null }));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await double.stop();
  return undefined;
}

class UsageError extends Error {}

run(process.argv.slice(2)).then(
  (result) => {
    if (result !== undefined) console.log(JSON.stringify(result, null, 2));
    process.exit(0);
  },
  (error: Error) => {
    console.error(JSON.stringify({ status: 'Failed', message: error.message }));
    if (error instanceof UsageError) console.error(USAGE);
    if (!(error instanceof UsageError || error instanceof ConfigError) && process.env.DEBUG) console.error(error.stack);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
