import { parseArgs } from 'node:util';
import { CommandSynopsis, UsageError } from './command-errors';
import { CommandArgs, CommandSpec } from './command-spec';
import { COMMANDS } from './registry';

// Reads the command line against the registry (./registry) and writes the help from it. Loaded for every
// command, `--help` included: node built-ins and the registry, whose commands load the rest when they run.

const PREFIX = 'npm run cli --';

export function synopsisOf(spec: CommandSynopsis): string {
  return [spec.name, spec.args, spec.synopsis].filter(Boolean).join(' ');
}

const flagLine = (flag: { name: string; value?: string }, indent: string, width: number, help: string) =>
  `${indent}--${flag.name}${flag.value ? ` ${flag.value}` : ''}`.padEnd(width) + help;

/** The whole help text: every command with its flags. */
export function usage(): string {
  const lines = [
    `Usage: ${PREFIX} <command> [flags]   (also: node dist/src/cli.js, node bin/cli.js)`,
    '',
    'Commands reach DATABASE_URL, else the embedded database in DATA_DIR (refused while the server runs on it).',
    'Success prints JSON on stdout; a failure prints { "status": "Failed", "message" } on stderr, exit 1 (2 for a usage error), and writes nothing.',
    '',
  ];
  for (const spec of COMMANDS) {
    lines.push(`  ${synopsisOf(spec)}`, `      ${spec.summary}`);
    for (const flag of spec.flags) lines.push(flagLine(flag, '      ', 40, flag.help));
    if (spec.grouped) {
      lines.push(`      ${spec.grouped.heading}`);
      for (const flag of spec.grouped.flags) lines.push(`        --${flag.name}`.padEnd(40) + flag.help);
    }
    lines.push('');
  }
  lines.push(`  ${PREFIX} <command> --help shows one command.`);
  return lines.join('\n');
}

const allFlags = (spec: CommandSpec) => [...spec.flags, ...(spec.grouped?.flags ?? [])];

/** One command's help. */
export function commandUsage(spec: CommandSpec): string {
  const lines = [`Usage: ${PREFIX} ${synopsisOf(spec)}`, `  ${spec.summary}`];
  for (const flag of allFlags(spec)) lines.push(flagLine(flag, '  ', 38, flag.help));
  return lines.join('\n');
}

/** The synopsis line shown under a usage error. */
export function usageLine(spec?: CommandSynopsis): string {
  return spec ? `Usage: ${PREFIX} ${synopsisOf(spec)}` : `Usage: ${PREFIX} <command> [flags]; ${PREFIX} --help lists every command`;
}

/** What the command line asks for: a help text, or a command of the registry with its checked options. */
export type CommandLine = { help: string } | { spec: CommandSpec; options: unknown };

/** Reads argv into one command and its checked input; UsageError when the command line is wrong. */
export function parseCommand(argv: string[]): CommandLine {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') return { help: usage() };
  const spec = COMMANDS.find((command) => command.name === name);
  if (!spec) throw new UsageError(`Unknown command "${name}"`);
  if (rest.includes('--help') || rest.includes('-h')) return { help: commandUsage(spec) };

  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    const options = Object.fromEntries(
      allFlags(spec).map((flag) => [flag.name, { type: flag.value ? ('string' as const) : ('boolean' as const) }]),
    );
    parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: Boolean(spec.args) });
  } catch (error) {
    throw new UsageError(`${name}: ${(error as Error).message.split('\n')[0].replace(/\. To specify a positional argument.*$/, '')}`, spec);
  }
  return { spec, options: spec.parse(new CommandArgs(spec, parsed.values, parsed.positionals)) };
}
