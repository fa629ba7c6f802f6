import type { CommandSpec } from './command-spec';

/** Bad input: the command line itself is wrong. Exit code 2, nothing is opened or written. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose synopsis is shown with the message; none: the general usage line. */
    readonly command?: CommandSpec,
  ) {
    super(message);
  }
}

/** A command that could not do its work (an unknown app, a taken email, a weak password…): exit code 1, nothing written. */
export class CommandError extends Error {}
