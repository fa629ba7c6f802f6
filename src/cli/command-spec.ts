import type { DatabaseHandle } from '../database/embedded-database';
import { CommandSynopsis, UsageError } from './command-errors';
import type { CommandServices } from './run-command';

// The shape of one command of the registry (./registry): what the help shows, how its arguments are read,
// and what it does. Loaded for every command, `--help` included: only types reach Nest, TypeORM and the
// service's modules, which a command's `run` loads through its CommandHost once its input is known to be good.

export interface FlagSpec {
  name: string;
  /** Placeholder of the value; none: a switch. */
  value?: string;
  help: string;
}

/** `--app ID`, the flag of every command that works in one app. */
export const APP: FlagSpec = { name: 'app', value: 'ID', help: 'the app (core_sites id)' };

/** What a command's `run` opens, each at its first call and closed when the command ends. */
export interface CommandHost {
  /** DATABASE_URL, else the embedded database in DATA_DIR (refused while another process holds it), not migrated. */
  database(): Promise<DatabaseHandle>;
  /** The database with its pending migrations applied: their names. */
  migrate(): Promise<string[]>;
  /** The migrated database and the service's own modules in an application context. */
  services(): Promise<CommandServices>;
}

export interface CommandSpec<Options = unknown> extends CommandSynopsis {
  summary: string;
  flags: FlagSpec[];
  /** Flags the full help lists in a group of their own under this heading, after `flags` (tenant:update's columns). */
  grouped?: { heading: string; flags: FlagSpec[] };
  /** The checked input, or UsageError (through `args.fail`). */
  parse(args: CommandArgs): Options;
  /** The command's work: its answer is printed as JSON (a string as it is). */
  run(options: Options, host: CommandHost): Promise<unknown>;
}

/** One registry entry, its options' type checked between `parse` and `run`. */
export function defineCommand<Options>(spec: CommandSpec<Options>): CommandSpec {
  return spec as unknown as CommandSpec;
}

/** A password given on the command line, or to be read from standard input. */
export type PasswordSource = { value: string } | { stdin: true };

/** A command's arguments as node:util's parseArgs read them, with the checks the commands share. */
export class CommandArgs {
  constructor(
    private readonly spec: CommandSpec,
    private readonly values: Record<string, string | boolean | undefined>,
    readonly positionals: string[],
  ) {}

  /** UsageError naming the command, its synopsis shown below. */
  fail(message: string): never {
    throw new UsageError(`${this.spec.name}: ${message}`, this.spec);
  }

  text(flag: string): string | undefined {
    return this.values[flag] as string | undefined;
  }

  /** Whether the switch `--flag` was given. */
  given(flag: string): boolean {
    return this.values[flag] === true;
  }

  required(flag: string): string {
    const value = this.text(flag);
    if (value === undefined || value.trim() === '') this.fail(`--${flag} is required`);
    return value!;
  }

  /** A positive 32-bit integer (an id, a count), or undefined when not given. */
  id(flag: string, value = this.text(flag)): number | undefined {
    if (value === undefined) return undefined;
    if (!/^\d{1,10}$/.test(value.trim()) || Number(value) < 1 || Number(value) > 2_147_483_647)
      this.fail(`--${flag} must be a positive integer (got "${value}")`);
    return Number(value);
  }

  /** `--app ID`, required. */
  app(): number {
    return this.id('app', this.required('app'))!;
  }

  /** `--password` or `--password-stdin`, exactly one. */
  password(): PasswordSource {
    const given = this.text('password');
    if (given !== undefined && this.values['password-stdin']) this.fail('give --password or --password-stdin, not both');
    if (given === undefined && !this.values['password-stdin']) this.fail('--password or --password-stdin is required');
    return given !== undefined ? { value: given } : { stdin: true };
  }
}
