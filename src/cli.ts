import './node-version';
import * as nodeModule from 'node:module';
import { CommandError, UsageError } from './cli/command-errors';
import { parseCommand, usageLine } from './cli/command-line';
import type { CommandHost } from './cli/command-spec';
import type { CommandSession } from './cli/run-command';
import { ConfigError } from './config/app-config';

// The command line (README "Command line"). This file and the registry (./cli/registry) load only node
// built-ins, so that `--help` and a usage error answer at once; Nest, TypeORM and the service's modules are
// loaded (require, through the CommandHost below) once the command line is known to be good.

// As main.ts does: the code of the modules loaded next is cached on disk, so a second command starts faster.
nodeModule.enableCompileCache?.();

async function main(argv: string[]): Promise<unknown> {
  const line = parseCommand(argv);
  if ('help' in line) return line.help;
  let session: CommandSession | undefined;
  const open = (): CommandSession => {
    if (!session) {
      const { CommandSession } = require('./cli/run-command') as typeof import('./cli/run-command');
      session = new CommandSession(line.spec.name);
    }
    return session;
  };
  const host: CommandHost = { database: () => open().database(), migrate: () => open().migrate(), services: () => open().services() };
  try {
    return await line.spec.run(line.options, host);
  } finally {
    await session?.close();
  }
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
