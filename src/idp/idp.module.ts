import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { AUTH_TABLES, isAuthTable } from '../auth';
import { AppConfig, ConfigError, configErrorMessage } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Identity } from './entities/identity.entity';
import { IdentitiesService } from './identities.service';
import { IdpController } from './idp.controller';
import { IdpClientService } from './idp-client.service';
import { IdpLoginService } from './idp-login.service';
import { IdpSealer } from './idp-seal';
import { IdentityRepository } from './repositories/identity.repository';

/** SSO through an OpenID Connect IdP (README "Single sign-on (OpenID Connect)"). */
@Module({
  imports: [TypeOrmModule.forFeature([Identity])],
  controllers: [IdpController],
  providers: [
    IdentityRepository,
    IdpClientService,
    IdentitiesService,
    IdpLoginService,
    {
      provide: IdpSealer,
      inject: [APP_CONFIG],
      // Without SSO configured nothing is sealed; a random key makes sure nothing opens either.
      useFactory: (config: AppConfig) =>
        new IdpSealer(config.idp.cookiePassword ?? randomBytes(32).toString('hex'), config.previousKeys.idpCookiePassword),
    },
  ],
})
export class IdpModule implements OnModuleInit {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** IDP_ALLOWED_AUTH_TABLES may only name the service's user tables: anything else stops the start. */
  onModuleInit(): void {
    const unknown = this.config.idp.allowedAuthTables.filter((table) => !isAuthTable(table));
    if (unknown.length > 0)
      throw new ConfigError(
        configErrorMessage([`IDP_ALLOWED_AUTH_TABLES names unknown tables (${unknown.join(', ')}); allowed: ${AUTH_TABLES.join(', ')}`]),
      );
  }
}
