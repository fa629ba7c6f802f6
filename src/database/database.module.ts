import { DynamicModule, Global, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { getDataSourceToken, InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { requestStore } from '../common/logging';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseHealth } from './database-health';
import { DatabaseNotifications } from './database-notifications';
import { DatabaseHandle, poolSize } from './embedded-database';
import { PoolDrain } from './pool-drain';
import { decidePoolMode, PoolMode } from './pooler-probe';
import { PreparedStatementsClient } from './prepared-statements';
import { ReplicaReads } from './replica-reads';
import { SchemaCatalogService } from './schema-catalog.service';
import { StatementTimeoutClient, StatementTimeoutConfig } from './statement-timeout';
import { SystemPool } from './system-pool';
import { registerEntitySecrets } from './table-policy';
import { tenantSharedDriver } from './tenant-pool';
import { TenantShare } from './tenant-share';
import { TransactionalConnection } from './transactional-connection';

/** Fills the secret-column registry from the entities' `select: false` columns once they are loaded. */
@Injectable()
class EntitySecrets implements OnModuleInit {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    registerEntitySecrets(this.dataSource);
  }
}

/** How the request pool uses DATABASE_URL (prepared statements or not), decided once at start: pooler-probe.ts. */
export const POOL_MODE = Symbol('POOL_MODE');

function poolSettingsModule(database: Pick<DatabaseHandle, 'url' | 'directUrl' | 'embedded'>): DynamicModule {
  return {
    module: PoolSettingsModule,
    providers: [
      { provide: TenantShare, inject: [APP_CONFIG], useFactory: (config: AppConfig) => TenantShare.forConfig(config) },
      { provide: POOL_MODE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => decidePoolMode(config, database) },
    ],
    exports: [TenantShare, POOL_MODE],
  };
}

@Module({})
class PoolSettingsModule {}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(database: Pick<DatabaseHandle, 'url' | 'directUrl' | 'embedded'>): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          imports: [poolSettingsModule(database)],
          inject: [APP_CONFIG, TenantShare, POOL_MODE],
          useFactory: (config: AppConfig, share: TenantShare, mode: PoolMode) => {
            const size = poolSize(database, config);
            const timeoutMs = config.database.statementTimeoutMs;
            // The statement timeout as the probe found the connection can carry it (pooler-probe.ts): a startup
            // parameter on a connection of its own, else per transaction (statement-timeout.ts); PGlite (the
            // embedded database) does not enforce it.
            const connections: StatementTimeoutConfig & { Client?: unknown } = { connectionTimeoutMillis: 10_000 };
            if (mode.statementTimeout === 'startup') connections.statement_timeout = timeoutMs;
            if (mode.statementTimeout === 'transaction') connections.requestStatementTimeoutMs = timeoutMs;
            if (mode.preparedStatements) connections.Client = PreparedStatementsClient;
            else if (mode.statementTimeout === 'transaction') connections.Client = StatementTimeoutClient;
            return {
              type: 'postgres',
              url: database.url,
              autoLoadEntities: true,
              synchronize: false,
              migrationsRun: false,
              poolSize: size,
              // Every statement of the request pool runs under the statement timeout; no session state on a connection
              // a pooler shares. Migrations, the SQL merges and the listener have their own connections. Its
              // connections run statements marked prepared() as named prepared statements when the connection can
              // carry them (pooler-probe.ts; not on PGlite); pg's Pool and tenant-pool.ts's create them with this Client.
              extra: connections,
              // The request's context, set by AppContextGuard, names the tenant a connection is checked out for.
              driver: share.limits(size) ? tenantSharedDriver(share, () => requestStore.getStore()?.ctx) : undefined,
              // No retries: the start has just connected (migrate), so a failure here is not a slow database but
              // a broken one, and the start stops at once with one line (main.ts) instead of retrying for seconds.
              toRetry: () => false,
            };
          },
        }),
      ],
      providers: [
        {
          provide: SystemPool,
          inject: [getDataSourceToken(), APP_CONFIG],
          useFactory: (requestPool: DataSource, config: AppConfig) =>
            SystemPool.open(requestPool, config.payments.systemPoolSize, database.embedded),
        },
        {
          provide: ReplicaReads,
          inject: [APP_CONFIG, getDataSourceToken()],
          // Replicas of DATABASE_URL's database (never with the embedded one): replica-reads.ts.
          useFactory: (config: AppConfig, requestPool: DataSource) => new ReplicaReads(config, database.embedded ? null : requestPool),
        },
        TransactionalConnection,
        SchemaCatalogService,
        DatabaseHealth,
        EntitySecrets,
        PoolDrain,
        {
          provide: DatabaseNotifications,
          inject: [getDataSourceToken()],
          // LISTEN is session state: on the direct connection (DATABASE_DIRECT_URL), never through a pooler.
          useFactory: (dataSource: DataSource) =>
            new DatabaseNotifications(database.embedded ? null : (database.directUrl ?? database.url), dataSource),
        },
      ],
      exports: [TransactionalConnection, SchemaCatalogService, DatabaseHealth, DatabaseNotifications, ReplicaReads],
    };
  }
}
