import { Inject, Injectable } from '@nestjs/common';
import { SitesService } from '../app-context';
import { RequestContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { TransactionalConnection } from '../database/transactional-connection';
import { CommandError } from './command-errors';
import { SeedResult, SeedService } from './seed.service';

/**
 * The edge of the command line, as a route is the edge of a request: each command gets one background ctx
 * (`RequestContext.background('cli', …)`), and a command that writes runs in the one transaction opened
 * here (`write`). The services a command calls take that ctx first and never open a transaction of their
 * own. Fixture loads that no command starts (the embedded first start's demo tenant, the tests' fixtures)
 * come through `seed` as well.
 */
@Injectable()
export class CommandEdge {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly sites: SitesService,
    private readonly seeds: SeedService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The ctx of a command that names no app, or addresses tenants as rows (tenant:*, seed). */
  context(): RequestContext {
    return RequestContext.background('cli', this.config.production);
  }

  /** The ctx of app `appId`, as a request naming it would have; CommandError for an unknown app. */
  async appContext(appId: number): Promise<RequestContext> {
    const ctx = this.context();
    ctx.site = await this.sites.findById(ctx, appId);
    if (!ctx.site) throw new CommandError(`App ${appId} not found`);
    return ctx;
  }

  /** Runs `work` as the command's one transaction; what it queued with `ctx.afterCommit` runs once it committed. */
  write<T>(ctx: RequestContext, work: () => Promise<T>): Promise<T> {
    return this.connection.inTransaction(ctx, work);
  }

  /** Loads a fixture all or nothing (the `seed` command, and the fixtures no command starts). */
  seed(fixture: unknown): Promise<SeedResult> {
    const ctx = this.context();
    return this.write(ctx, () => this.seeds.load(ctx, fixture));
  }
}
