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
import { PreparedStatementsClient } from './prepared-statements';
import { SchemaCatalogService } from './schema-catalog.service';
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

@Module({
  providers: [{ provide: TenantShare, inject: [APP_CONFIG], useFactory: (config: AppConfig) => TenantShare.forConfig(config) }],
  exports: [TenantShare],
})
class TenantShareModule {}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(database: Pick<DatabaseHandle, 'url' | 'embedded'>): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          imports: [TenantShareModule],
          inject: [APP_CONFIG, TenantShare],
          useFactory: (config: AppConfig, share: TenantShare) => {
            const size = poolSize(database, config);
            // PGlite (the embedded database) does not enforce statement_timeout.
            const statementTimeoutMs = database.embedded ? 0 : config.database.statementTimeoutMs;
            return {
              type: 'postgres',
              url: database.url,
              autoLoadEntities: true,
              synchronize: false,
              migrationsRun: false,
              poolSize: size,
              // Every statement of the request pool; migrations, the SQL merges and the listener have their own connections.
              // Its connections run statements marked prepared() as named prepared statements (not on PGlite, nor when
              // switched off); pg's Pool and tenant-pool.ts's create their connections with this Client.
              extra: {
                connectionTimeoutMillis: 10_000,
                ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
                ...(config.database.preparedStatements && !database.embedded ? { Client: PreparedStatementsClient } : {}),
              },
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
        TransactionalConnection,
        SchemaCatalogService,
        DatabaseHealth,
        EntitySecrets,
        PoolDrain,
        {
          provide: DatabaseNotifications,
          inject: [getDataSourceToken()],
          useFactory: (dataSource: DataSource) => new DatabaseNotifications(database.embedded ? null : database.url, dataSource),
        },
      ],
      exports: [TransactionalConnection, SchemaCatalogService, DatabaseHealth, DatabaseNotifications],
    };
  }
}
