import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AppContextModule } from './app-context';
import { AuditModule } from './audit';
import { AuthCoreModule, AuthModule } from './auth';
import { CliModule } from './cli/cli.module';
import { CommonModule } from './common/common.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DatabaseHandle } from './database/embedded-database';
import { HealthModule } from './health/health.module';
import { MailModule } from './mail';
import { MessagingModule } from './messaging';
import { MetricsModule } from './metrics';
import { VersioningModule } from './versioning';
import { DataRowsModule } from './data-rows';
import { RelatedModule } from './related';
import { RateLimitModule } from './rate-limit';
import { OrdersModule } from './orders';
import { TokensModule } from './tokens';
import { IdpModule } from './idp';
import { SettingsModule } from './settings';
import { ConsoleModule } from './console';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: Pick<DatabaseHandle, 'url' | 'directUrl' | 'embedded'>): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database),
        ScheduleModule.forRoot(),
        MetricsModule,
        AppContextModule,
        RateLimitModule,
        CommonModule,
        RelatedModule,
        AuditModule,
        AuthCoreModule,
        MailModule,
        HealthModule,
        CliModule,
        AuthModule,
        MessagingModule,
        VersioningModule,
        DataRowsModule,
        TokensModule,
        OrdersModule,
        IdpModule,
        SettingsModule,
        ConsoleModule,
      ],
    };
  }
}
