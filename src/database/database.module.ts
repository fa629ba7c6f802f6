import { DynamicModule, Global, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { getDataSourceToken, InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DatabaseNotifications } from './database-notifications';
import { DatabaseHandle, poolSize } from './embedded-database';
import { SchemaCatalog } from './schema-catalog.service';
import { registerEntitySecrets } from './secret-columns';
import { TransactionalConnection } from './transactional-connection';

/** Fills the secret-column registry from the entities' `select: false` columns once they are loaded. */
@Injectable()
class EntitySecrets implements OnModuleInit {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    registerEntitySecrets(this.dataSource);
  }
}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(database: Pick<DatabaseHandle, 'url' | 'embedded'>): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: database.url,
          autoLoadEntities: true,
          synchronize: false,
          migrationsRun: false,
          poolSize: poolSize(database),
          extra: { connectionTimeoutMillis: 10_000 },
          retryAttempts: 3,
          retryDelay: 1000,
        }),
      ],
      providers: [
        TransactionalConnection,
        SchemaCatalog,
        EntitySecrets,
        {
          provide: DatabaseNotifications,
          inject: [getDataSourceToken()],
          useFactory: (dataSource: DataSource) => new DatabaseNotifications(database.embedded ? null : database.url, dataSource),
        },
      ],
      exports: [TransactionalConnection, SchemaCatalog, DatabaseNotifications],
    };
  }
}
