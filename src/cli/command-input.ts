import { readFileSync } from 'node:fs';
import { CommandError, UsageError } from './command-errors';
import type { PasswordSource } from './command-spec';

/** The JSON of a fixture file; a file that cannot be read or parsed is a usage error. */
export function readFixture(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`Cannot read fixture ${file}: ${(error as Error).message}`, undefined);
  }
}

/** The password given: on the command line, or the first line of standard input (`--password-stdin`). */
export async function readPassword(source: PasswordSource): Promise<string> {
  if ('value' in source) return source.value;
  if (process.stdin.isTTY) process.stderr.write('Password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  if (!password) throw new CommandError('--password-stdin: standard input holds no password');
  return password;
}
