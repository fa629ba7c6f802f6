import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseHandle, poolSize } from './embedded-database';

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
    };
  }
}
