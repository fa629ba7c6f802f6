import { Inject, Injectable } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { SitesService } from '../app-context';
import { AccountsService, AuthTable, PasswordHasher, passwordRequirements, PasswordRequirements } from '../auth';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { isUniqueViolation } from '../database/transaction';
import { TransactionalConnection } from '../database/transactional-connection';
import { TransactionScope } from '../database/transaction-scope';
import { CommandError } from './commands';

export interface OperatorAccount {
  appID: number;
  table: AuthTable;
  id: number;
  email: string;
  role: string | null;
  firstname: string | null;
  lastname: string | null;
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

/**
 * Accounts made and repaired by an operator (`user:create`, `user:password`): through the auth module's
 * AccountsService and PasswordHasher (bcrypt at BCRYPT_COST), each in one transaction.
 */
@Injectable()
export class UserService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly sites: SitesService,
    private readonly accounts: AccountsService,
    private readonly hasher: PasswordHasher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(input: {
    appId: number;
    table: AuthTable;
    email: string;
    password: string;
    role?: string;
    firstname?: string;
    lastname?: string;
  }): Promise<OperatorAccount> {
    const email = checkEmail(input.email);
    checkPassword(input.password);
    const names = { firstname: checkName('firstname', input.firstname), lastname: checkName('lastname', input.lastname) };
    const ctx = await this.contextOf(input.appId);
    const passwordHash = await this.hasher.hash(input.password);
    const taken = new CommandError(`An account with email "${email}" already exists in ${input.table} of app ${input.appId}`);
    try {
      const account = await this.connection.inTransaction(ctx, async () => {
        if (await this.accounts.findByEmail(ctx, input.table, email)) throw taken;
        return this.accounts.create(ctx, input.table, { email, passwordHash, ...names }, { role: input.role });
      });
      return {
        appID: input.appId,
        table: input.table,
        id: account.id,
        email: account.email,
        role: account.role,
        firstname: account.firstname,
        lastname: account.lastname,
      };
    } catch (error) {
      if (isUniqueViolation(error)) throw taken;
      throw error;
    }
  }

  /** Sets a new password; tokens and reset links issued before it stop working (password_changed moves). */
  async setPassword(input: {
    appId: number;
    table: AuthTable;
    email: string;
    password: string;
  }): Promise<OperatorAccount & { passwordChanged: true }> {
    checkPassword(input.password);
    const ctx = await this.contextOf(input.appId);
    const passwordHash = await this.hasher.hash(input.password);
    return this.connection.inTransaction(ctx, async () => {
      const account = await this.accounts.findByEmail(ctx, input.table, input.email);
      if (!account) throw new CommandError(`No account with email "${input.email.trim()}" in ${input.table} of app ${input.appId}`);
      if (!(await this.accounts.resetPassword(ctx, input.appId, input.table, account.id, account.passwordChangedUs, passwordHash))) {
        throw new CommandError("The account's password changed meanwhile; run the command again");
      }
      return {
        appID: input.appId,
        table: input.table,
        id: account.id,
        email: account.email,
        role: account.role,
        firstname: account.firstname,
        lastname: account.lastname,
        passwordChanged: true,
      };
    });
  }

  /** A use case's context for the app, as a request naming it would have (CommandError for an unknown app). */
  private async contextOf(appId: number): Promise<RequestContext> {
    const site = await this.sites.findById(new TransactionScope(), appId);
    if (!site) throw new CommandError(`App ${appId} not found`);
    return new RequestContext('cli', '127.0.0.1', this.config.production, site);
  }
}
