import { Type } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { Test, TestingModule } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppContextModule } from '../../../src/app-context';
import { AuditModule } from '../../../src/audit';
import { AuthCoreModule } from '../../../src/auth';
import { Fixture, SeedResult, SeedService } from '../../../src/cli/seed.service';
import { CommonModule } from '../../../src/common/common.module';
import { createRootLogger, JsonLogger } from '../../../src/common/logging';
import { AuthPrincipal, RequestContext, TenantSite } from '../../../src/common/request-context';
import { AppConfig, loadConfig } from '../../../src/config/app-config';
import { ConfigModule } from '../../../src/config/config.module';
import { DatabaseModule } from '../../../src/database/database.module';
import { TransactionalConnection } from '../../../src/database/transactional-connection';
import { MailModule } from '../../../src/mail';
import { MetricsModule } from '../../../src/metrics';
import { RateLimitModule } from '../../../src/rate-limit';
import { RelatedModule } from '../../../src/related';
import { VersioningModule } from '../../../src/versioning';
import { dropDatabase } from '../../support/database';
import { createTestDatabase, TEST_ENV } from '../../support/test-app';

/**
 * The medium layer: one feature module's services on their real repositories, on a database cloned from the
 * run's migrated template, with no HTTP server, no guards and no controllers called. A test asks for the one
 * service it tests (`get`) and calls it as its edge (a route, the webhook, a job) would: with a RequestContext
 * of the tenant, inside one transaction (`inTransaction`). Nothing is mocked: the module's other services,
 * the foundation modules every feature module relies on (configuration, database, tenants, audit, mail) and
 * the database are the real ones; background work (mail sender, payment inbox worker, reconciliation, content
 * expiry) is off, so nothing runs but what the test calls.
 */
export class Medium {
  constructor(
    readonly module: TestingModule,
    readonly config: AppConfig,
    private readonly database: { name: string; url: string },
  ) {}

  /** A provider of the module, by class. */
  get<T>(token: Type<T>): T {
    return this.module.get(token, { strict: false });
  }

  get dataSource(): DataSource {
    return this.module.get<DataSource>(getDataSourceToken());
  }

  /** Arranges or reads rows with SQL, outside any service (what a test sets up or checks). */
  sql<Row = any>(query: string, params: unknown[] = []): Promise<Row[]> {
    return this.dataSource.query(query, params);
  }

  /** A context of the tenant, as a request or job resolves it, with an optional authenticated principal. */
  context(site: TenantSite, principal: AuthPrincipal | null = null): RequestContext {
    const ctx = RequestContext.background('medium', this.config.production, site);
    ctx.principal = principal;
    return ctx;
  }

  /** Runs `work` in one transaction of `ctx`, as an edge opens it; its queued after-commit effects run once it committed. */
  inTransaction<T>(ctx: RequestContext, work: () => Promise<T>): Promise<T> {
    return this.get(TransactionalConnection).inTransaction(ctx, work);
  }

  /** Loads a fixture (a tenant and rows of its tables) with the seed command's own service; answers the tenant's row and the new ids. */
  async seed(fixture: Fixture): Promise<{ site: TenantSite; ids: SeedResult['ids'] }> {
    const ctx = RequestContext.background('medium-seed', this.config.production);
    const { ids } = await this.inTransaction(ctx, () => this.get(SeedService).load(ctx, fixture));
    return { site: ctx.app, ids }; // the new tenant's row, as the seed created it
  }

  async close(): Promise<void> {
    await this.module.close();
    await dropDatabase(this.database.name);
  }
}

/** Background work a medium test never wants: the services under test run only when it calls them. */
const QUIET_ENV: Record<string, string> = {
  NOTIFY_SENDER_ENABLED: 'false',
  PAYMENT_EVENTS_POLL_MS: '0',
  PAYMENT_RECONCILE_TICK_MS: '0',
  CONTENT_EXPIRY_TICK_MS: '0',
};

/** The global modules every feature module relies on (the foundation the application module imports first). */
const FOUNDATION = [MetricsModule, AppContextModule, RateLimitModule, CommonModule, RelatedModule, AuditModule, AuthCoreModule, MailModule];

/**
 * `feature` (OrdersModule, TokensModule…) with the foundation, on a fresh cloned database; `env` overrides
 * the test configuration. The seed service is there too, for `seed`.
 */
export async function startMedium(feature: Type<unknown>, env: Record<string, string> = {}): Promise<Medium> {
  const database = await createTestDatabase();
  try {
    const config = loadConfig({ ...TEST_ENV, ...QUIET_ENV, DATABASE_URL: database.url, ...env });
    const module = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot({ url: database.url, directUrl: config.databaseDirectUrl ?? database.url, embedded: false }),
        ScheduleModule.forRoot(),
        ...FOUNDATION,
        VersioningModule,
        feature,
      ],
      providers: [SeedService],
    })
      .setLogger(new JsonLogger(createRootLogger(config.logLevel))) // the service's own logger, at LOG_LEVEL (silent in tests)
      .compile();
    await module.init();
    return new Medium(module, config, database);
  } catch (error) {
    await dropDatabase(database.name);
    throw error;
  }
}
