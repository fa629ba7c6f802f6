import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { AuthTable } from '../auth';
import { loadConfig } from '../config/app-config';
import { withDevSecrets } from '../config/dev-secrets';
import { openDatabase } from '../database/embedded-database';
import { migrate } from '../database/migrate';
import { Parsed } from './commands';
import { migrationStatus, revertMigrations } from './migrations';
import { OutboxService } from './outbox.service';
import { SeedService } from './seed.service';
import { TenantService } from './tenant.service';
import { checkEmail, checkPassword, UserService } from './user.service';

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

function run(
  app: INestApplicationContext,
  parsed: Exclude<DatabaseCommand, { command: 'migrate' | 'migrate:status' | 'migrate:revert' }>,
  input: CommandInput,
): Promise<unknown> {
  switch (parsed.command) {
    case 'seed':
      return app.get(SeedService).load(input.fixture);
    case 'tenant:create':
      return app.get(TenantService).create(parsed.name, parsed.domain);
    case 'tenant:list':
      return app.get(TenantService).list(parsed.appId);
    case 'tenant:update':
      return app.get(TenantService).update(parsed.appId, parsed.changes);
    case 'user:create':
      return app.get(UserService).create({ ...parsed, table: parsed.table as AuthTable, password: input.password! });
    case 'user:password':
      return app.get(UserService).setPassword({ ...parsed, table: parsed.table as AuthTable, password: input.password! });
    case 'mail:failed':
      return app.get(OutboxService).listFailed(parsed.appId, parsed.limit);
    case 'mail:retry':
      return app.get(OutboxService).retry({ id: parsed.id, appId: parsed.appId });
  }
}
