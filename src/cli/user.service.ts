import { Injectable } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { Account, AccountsService, AuthTable, PasswordHasherService, passwordRequirements, PasswordRequirements } from '../auth';
import { RequestContext } from '../common/request-context';
import { isUniqueViolation } from '../database/transaction';
import { TransactionalConnection } from '../database/transactional-connection';
import { CommandError } from './command-errors';

export interface OperatorAccount {
  appID: number;
  table: AuthTable;
  id: number;
  email: string;
  role: string | null;
  firstname: string | null;
  lastname: string | null;
}

/** How an operator's command shows an account: no hash, no secrets. */
function operatorView(ctx: RequestContext, table: AuthTable, account: Account): OperatorAccount {
  const { id, email, role, firstname, lastname } = account;
  return { appID: ctx.appId, table, id, email, role, firstname, lastname };
}

const REQUIREMENT_TEXT: Record<keyof PasswordRequirements, string> = {
  minLength: 'at least 8 characters',
  hasUpperCase: 'an upper-case letter',
  hasLowerCase: 'a lower-case letter',
  hasNumber: 'a digit',
  hasSpecialChar: 'one of @$!%*?&',
};

/** The service's password policy (auth/password-policy.ts), as one line naming what is missing. */
export function checkPassword(password: string): void {
  const requirements = passwordRequirements(password);
  const missing = (Object.keys(requirements) as (keyof PasswordRequirements)[]).filter((key) => !requirements[key]);
  if (missing.length)
    throw new CommandError(
      `Password does not meet security requirements: it needs ${missing.map((key) => REQUIREMENT_TEXT[key]).join(', ')}`,
    );
}

/** An email address the sign-up routes would accept (the same validator, the same 320 characters). */
export function checkEmail(email: string): string {
  const clean = email.trim();
  if (clean.length > 320 || !isEmail(clean)) throw new CommandError(`"${email}" is not a valid email address`);
  return clean;
}

function checkName(flag: string, value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  if (value.trim().length > 50) throw new CommandError(`--${flag} must be at most 50 characters`);
  return value.trim();
}

/** A new account as `user:create` takes it, checked (checkNewAccount). */
export interface NewOperatorAccount {
  table: AuthTable;
  email: string;
  password: string;
  role?: string;
  firstname: string | null;
  lastname: string | null;
}

/** `user:create`'s input checked as the sign-up routes would check it, before anything is opened. */
export function checkNewAccount(input: {
  table: AuthTable;
  email: string;
  password: string;
  role?: string;
  firstname?: string;
  lastname?: string;
}): NewOperatorAccount {
  const email = checkEmail(input.email);
  checkPassword(input.password);
  const firstname = checkName('firstname', input.firstname);
  return {
    table: input.table,
    email,
    password: input.password,
    role: input.role,
    firstname,
    lastname: checkName('lastname', input.lastname),
  };
}

/**
 * Accounts made and repaired by an operator (`user:create`, `user:password`) in the ctx's app: through the
 * auth module's AccountsService and PasswordHasherService (bcrypt at BCRYPT_COST), each in the transaction of
 * `ctx`, opened by the command's edge.
 */
@Injectable()
export class UserService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly accounts: AccountsService,
    private readonly hasher: PasswordHasherService,
  ) {}

  async create(ctx: RequestContext, input: NewOperatorAccount): Promise<OperatorAccount> {
    this.connection.transactionManager(ctx); // asserts the edge's transaction: the check and the insert belong together
    const passwordHash = await this.hasher.hash(input.password);
    const { table, email, role, firstname, lastname } = input;
    const taken = new CommandError(`An account with email "${email}" already exists in ${table} of app ${ctx.appId}`);
    try {
      if (await this.accounts.findByEmail(ctx, table, email)) throw taken;
      const account = await this.accounts.create(ctx, table, { email, passwordHash, firstname, lastname }, { role });
      return operatorView(ctx, table, account);
    } catch (error) {
      if (isUniqueViolation(error)) throw taken;
      throw error;
    }
  }

  /** Sets a new password; tokens and reset links issued before it stop working (password_changed moves). */
  async setPassword(
    ctx: RequestContext,
    input: { table: AuthTable; email: string; password: string },
  ): Promise<OperatorAccount & { passwordChanged: true }> {
    this.connection.transactionManager(ctx); // asserts the edge's transaction: the read and the reset belong together
    checkPassword(input.password);
    const passwordHash = await this.hasher.hash(input.password);
    const account = await this.accounts.findByEmail(ctx, input.table, input.email);
    if (!account) throw new CommandError(`No account with email "${input.email.trim()}" in ${input.table} of app ${ctx.appId}`);
    if (!(await this.accounts.resetPassword(ctx, input.table, account.id, account.passwordChangedUs, passwordHash))) {
      throw new CommandError("The account's password changed meanwhile; run the command again");
    }
    return { ...operatorView(ctx, input.table, account), passwordChanged: true };
  }
}
