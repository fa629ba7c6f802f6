import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { StaffService } from '../auth';
import { AppConfig, loadConfig } from '../config/app-config';
import { withDevSecrets } from '../config/dev-secrets';
import { DatabaseHandle, openDatabase } from '../database/embedded-database';
import { migrate } from '../database/migrate';
import { PaymentEventsAdmin } from '../orders';
import { CommandEdge } from './command-edge';
import { CommandHost } from './command-spec';
import { OutboxService } from './outbox.service';
import { TenantService } from './tenant.service';
import { TenantsSeedService } from './tenants-seed.service';
import { UserService } from './user.service';

/** The service's providers the commands call, taken from the application context. */
export interface CommandServices {
  edge: CommandEdge;
  tenants: TenantService;
  tenantsSeed: TenantsSeedService;
  users: UserService;
  staff: StaffService;
  outbox: OutboxService;
  paymentEvents: PaymentEventsAdmin;
}

/**
 * What one command opens, in order and each once: the configuration and the database (named in the data
 * directory's lock by the command), its migrations, the service's modules in an application context.
 * `close` ends what was opened, the context before the database.
 */
export class CommandSession implements CommandHost {
  private opened?: Promise<{ config: AppConfig; database: DatabaseHandle }>;
  private migrated?: Promise<string[]>;
  private context?: Promise<INestApplicationContext>;

  constructor(private readonly holder: string) {}

  async database(): Promise<DatabaseHandle> {
    return (await (this.opened ??= this.open())).database;
  }

  migrate(): Promise<string[]> {
    return (this.migrated ??= this.database().then((database) => migrate(database)));
  }

  async services(): Promise<CommandServices> {
    const app = await (this.context ??= this.createContext());
    return {
      edge: app.get(CommandEdge),
      tenants: app.get(TenantService),
      tenantsSeed: app.get(TenantsSeedService),
      users: app.get(UserService),
      staff: app.get(StaffService),
      outbox: app.get(OutboxService),
      paymentEvents: app.get(PaymentEventsAdmin),
    };
  }

  async close(): Promise<void> {
    try {
      if (this.context) await (await this.context.catch(() => undefined))?.close();
    } finally {
      const opened = await this.opened?.catch(() => undefined);
      await opened?.database.stop();
    }
  }

  private async open(): Promise<{ config: AppConfig; database: DatabaseHandle }> {
    const loaded = loadConfig(withDevSecrets(process.env));
    // A command does its work and exits: no notification sender or expiry job of its own meanwhile (the
    // service's instances do that work; a seed must not send the outbox's mails from an operator's shell).
    // Nor the requests' statement timeout: a large fixture and its ANALYZE may take longer. Nor the tenant
    // cache and its listener connection: every read goes to the database.
    const config: AppConfig = {
      ...loaded,
      database: { ...loaded.database, statementTimeoutMs: 0 },
      notifications: { ...loaded.notifications, senderEnabled: false },
      content: { ...loaded.content, expiryTickMs: 0 },
      payments: { ...loaded.payments, eventsPollMs: 0, reconcileTickMs: 0, systemPoolSize: 1 },
      siteCacheMs: 0,
    };
    return { config, database: await openDatabase(config, { holder: this.holder }) };
  }

  private async createContext(): Promise<INestApplicationContext> {
    await this.migrate();
    const { config, database } = await this.opened!;
    return NestFactory.createApplicationContext(AppModule.forRoot(config, database), { logger: ['error'] });
  }
}
