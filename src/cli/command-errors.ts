/** What a usage error shows of its command: the synopsis line. */
export interface CommandSynopsis {
  name: string;
  /** Positional arguments, as shown. */
  args?: string;
  /** Flags, in the order shown; a group in brackets is optional. */
  synopsis: string;
}

/** Bad input: the command line itself is wrong. Exit code 2, nothing is opened or written. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose synopsis is shown with the message; none: the general usage line. */
    readonly command?: CommandSynopsis,
  ) {
    super(message);
  }
}

/** A command that could not do its work (an unknown app, a taken email, a weak password…): exit code 1, nothing written. */
export class CommandError extends Error {}
