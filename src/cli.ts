import './node-version';
import * as nodeModule from 'node:module';
import { readFileSync } from 'node:fs';
import { CommandError, parseCommand, Parsed, usageLine, UsageError } from './cli/commands';
import { ConfigError } from './config/app-config';

// The command line (README "Command line"). This file and ./cli/commands load only node built-ins, so that
// `--help` and a usage error answer at once; Nest, TypeORM and the service's modules are loaded (require
// below) once the command line is known to be good.

// As main.ts does: the code of the modules loaded next is cached on disk, so a second command starts faster.
nodeModule.enableCompileCache?.();

async function main(argv: string[]): Promise<unknown> {
  const parsed = parseCommand(argv);
  switch (parsed.command) {
    case 'help':
      return parsed.text;
    case 'secrets:generate': {
      const { envLines, generateSecrets } = require('./cli/secrets') as typeof import('./cli/secrets');
      const secrets = generateSecrets();
      return parsed.json ? secrets : envLines(secrets);
    }
    case 'payment:double':
      return runPaymentDouble(parsed);
  }
  const input: { fixture?: unknown; password?: string } = {};
  if (parsed.command === 'seed') input.fixture = readFixture(parsed.file);
  if ((parsed.command === 'user:create' || parsed.command === 'user:password') && 'stdin' in parsed.password)
    input.password = await readPassword();
  else if (parsed.command === 'user:create' || parsed.command === 'user:password')
    input.password = (parsed.password as { value: string }).value;
  const { runDatabaseCommand } = require('./cli/run-command') as typeof import('./cli/run-command');
  return runDatabaseCommand(parsed, input);
}

function readFixture(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`Cannot read fixture ${file}: ${(error as Error).message}`, undefined);
  }
}

/** The password on standard input (`--password-stdin`): its first line. */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  if (!password) throw new CommandError('--password-stdin: standard input holds no password');
  return password;
}

/**
 * A local double of the payment provider for trying the shop without it (README "Trying the shop"): the
 * service's PAYMENT_API_URL points at it; confirming an intent there delivers the signed webhook. Runs
 * until interrupted; needs no database.
 */
async function runPaymentDouble(parsed: Extract<Parsed, { command: 'payment:double' }>): Promise<undefined> {
  const { PaymentPeer } = require('./cli/payment-double') as typeof import('./cli/payment-double');
  const double = await PaymentPeer.start({ port: parsed.port, host: parsed.host, webhook: parsed.webhook });
  console.log(JSON.stringify({ paymentApiUrl: double.url, webhook: parsed.webhook?.url ?? null }));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await double.stop();
  return undefined;
}

main(process.argv.slice(2)).then(
  (result) => {
    const text = typeof result === 'string' ? result : result !== undefined ? JSON.stringify(result, null, 2) : undefined;
    // Exits once the text is written: to a pipe stdout writes asynchronously, and exiting at once cut a large
    // answer (tenants:seed's) short at 64 KB.
    if (text === undefined) process.exit(0);
    else process.stdout.write(`${text}\n`, () => process.exit(0));
  },
  (error: Error) => {
    // One line saying what is wrong (JSON, as every answer of the service); for a usage error, the synopsis.
    console.error(JSON.stringify({ status: 'Failed', message: error.message }));
    if (error instanceof UsageError) console.error(usageLine(error.command));
    if (!(error instanceof UsageError || error instanceof CommandError || error instanceof ConfigError) && process.env.DEBUG)
      console.error(error.stack);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
