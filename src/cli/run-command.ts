import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { AuthTable, StaffService } from '../auth';
import { loadConfig } from '../config/app-config';
import { withDevSecrets } from '../config/dev-secrets';
import { openDatabase } from '../database/embedded-database';
import { migrate } from '../database/migrate';
import { CommandEdge } from './command-edge';
import { CommandError, Parsed } from './commands';
import { migrationStatus, revertMigrations } from './migrations';
import { OutboxService } from './outbox.service';
import { PaymentEventsAdmin } from '../orders';
import { TenantService } from './tenant.service';
import { TenantsSeedService } from './tenants-seed.service';
import { checkEmail, checkNewAccount, checkPassword, UserService } from './user.service';

/** The commands that reach the database. */
export type DatabaseCommand = Exclude<Parsed, { command: 'help' | 'secrets:generate' | 'payment:double' }>;

/** What cli.ts read before this module was loaded: the fixture file, the password from standard input. */
export interface CommandInput {
  fixture?: unknown;
  password?: string;
}

/**
 * Runs one database command (the input is checked by commands.ts): opens DATABASE_URL or the embedded
 * database (refused while another process holds it), applies pending migrations (but for migrate:status and
 * migrate:revert), and runs the command through the service's own modules in an application context.
 */
export async function runDatabaseCommand(parsed: DatabaseCommand, input: CommandInput): Promise<unknown> {
  // Checks that need no database come first: a refused command opens nothing and writes nothing.
  if (parsed.command === 'user:create') checkEmail(parsed.email);
  if (parsed.command === 'user:create' || parsed.command === 'user:password') checkPassword(input.password ?? '');
  if (parsed.command === 'tenants:seed' && parsed.password !== undefined) checkPassword(parsed.password);

  const loaded = loadConfig(withDevSecrets(process.env));
  // A command does its work and exits: no notification sender or expiry job of its own meanwhile (the
  // service's instances do that work; a seed must not send the outbox's mails from an operator's shell).
  // Nor the requests' statement timeout: a large fixture and its ANALYZE may take longer. Nor the tenant
  // cache and its listener connection: every read goes to the database.
  const config = {
    ...loaded,
    database: { ...loaded.database, statementTimeoutMs: 0 },
    notifications: { ...loaded.notifications, senderEnabled: false },
    content: { ...loaded.content, expiryTickMs: 0 },
    payments: { ...loaded.payments, eventsPollMs: 0, reconcileTickMs: 0, systemPoolSize: 1 },
    siteCacheMs: 0,
  };
  const database = await openDatabase(config, { holder: parsed.command });
  try {
    if (parsed.command === 'migrate:status') return await migrationStatus(database);
    if (parsed.command === 'migrate:revert') return await revertMigrations(database, parsed.count);
    const applied = await migrate(database);
    if (parsed.command === 'migrate') return { applied };
    const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, database), { logger: ['error'] });
    try {
      return await run(app, parsed, input);
    } finally {
      await app.close();
    }
  } finally {
    await database.stop();
  }
}

/**
 * The edge of each command: its ctx (with the app it names, when it works in one app) and, for a command
 * that writes, its one transaction.
 */
async function run(
  app: INestApplicationContext,
  parsed: Exclude<DatabaseCommand, { command: 'migrate' | 'migrate:status' | 'migrate:revert' }>,
  input: CommandInput,
): Promise<unknown> {
  const edge = app.get(CommandEdge);
  switch (parsed.command) {
    case 'seed':
      return edge.seed(input.fixture);
    case 'tenants:seed': {
      const ctx = edge.context();
      const { command: _command, ...plan } = parsed;
      return edge.write(ctx, () => app.get(TenantsSeedService).seed(ctx, plan));
    }
    case 'tenant:create': {
      const ctx = edge.context();
      return edge.write(ctx, () => app.get(TenantService).create(ctx, parsed.name, parsed.domain));
    }
    case 'tenant:list':
      return app.get(TenantService).list(edge.context(), parsed.appId);
    case 'tenant:update': {
      const ctx = await edge.appContext(parsed.appId);
      return edge.write(ctx, () => app.get(TenantService).update(ctx, parsed.changes));
    }
    case 'user:create': {
      const account = checkNewAccount({ ...parsed, table: parsed.table as AuthTable, password: input.password! });
      const ctx = await edge.appContext(parsed.appId);
      return edge.write(ctx, () => app.get(UserService).create(ctx, account));
    }
    case 'user:password': {
      const ctx = await edge.appContext(parsed.appId);
      const change = { table: parsed.table as AuthTable, email: parsed.email, password: input.password! };
      return edge.write(ctx, () => app.get(UserService).setPassword(ctx, change));
    }
    case 'staff:list': {
      const ctx = await edge.appContext(parsed.appId);
      return { appID: ctx.appId, staff: await app.get(StaffService).list(ctx) };
    }
    case 'staff:roles':
    case 'staff:remove': {
      const ctx = await edge.appContext(parsed.appId);
      const staff = app.get(StaffService);
      return edge.write(ctx, async () => {
        const userId = await staff.idOf(ctx, parsed.email);
        if (userId === null) throw new CommandError(`No staff member ${parsed.email} in app ${parsed.appId}`);
        return parsed.command === 'staff:roles' ? staff.setRoles(ctx, userId, parsed.roles) : staff.remove(ctx, userId);
      });
    }
    case 'mail:failed':
      return app.get(OutboxService).listFailed(await edge.appContext(parsed.appId), parsed.limit);
    case 'mail:retry': {
      // With --id the mail names its app (an --app given too is checked against it, not looked up).
      const ctx = parsed.id === undefined ? await edge.appContext(parsed.appId!) : edge.context();
      return edge.write(ctx, () => app.get(OutboxService).retry(ctx, { id: parsed.id, appId: parsed.appId }));
    }
    case 'events:failed': {
      const ctx = await edge.appContext(parsed.appId);
      return { appID: ctx.appId, ...(await app.get(PaymentEventsAdmin).failed(ctx, parsed.limit)) };
    }
    case 'events:retry': {
      const ctx = await edge.appContext(parsed.appId);
      const retried = await edge.write(ctx, () => app.get(PaymentEventsAdmin).retry(ctx, parsed.id));
      if (parsed.id !== undefined && retried.length === 0)
        throw new CommandError(`No failed payment event ${parsed.id} in app ${parsed.appId}: nothing to retry`);
      return { appID: ctx.appId, retried };
    }
  }
}
