import { CommandSpec } from '../command-spec';
import { ACCOUNT_COMMANDS } from './accounts';
import { DATABASE_COMMANDS } from './database';
import { FAILED_WORK_COMMANDS } from './failed-work';
import { NO_DATABASE_COMMANDS } from './no-database';
import { TENANT_COMMANDS } from './tenants';

/**
 * The command line's registry: every command is declared once, in one of these files, with its help, how its
 * arguments are read and checked, and what it does. The command line (../command-line.ts) reads argv, writes
 * the help and dispatches from this list alone; the help lists the commands in this order.
 */
export const COMMANDS: CommandSpec[] = [
  ...DATABASE_COMMANDS,
  ...TENANT_COMMANDS,
  ...ACCOUNT_COMMANDS,
  ...FAILED_WORK_COMMANDS,
  ...NO_DATABASE_COMMANDS,
];
