import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Identity } from './entities/identity.entity';
import { IdentitiesService } from './identities.service';
import { IdpController } from './idp.controller';
import { IdpClient } from './idp-client.service';
import { IdpLoginService } from './idp-login.service';
import { IdpSealer } from './idp-seal';

/** SSO through an OpenID Connect IdP (SPEC "External identity login (IdP facade)"; README "Single sign-on"). */
@Module({
  imports: [TypeOrmModule.forFeature([Identity])],
  controllers: [IdpController],
  providers: [
    IdpClient,
    IdentitiesService,
    IdpLoginService,
    {
      provide: IdpSealer,
      inject: [APP_CONFIG],
      // Without SSO configured nothing is sealed; a random key makes sure nothing opens either.
      useFactory: (config: AppConfig) => new IdpSealer(config.idp.cookiePassword ?? randomBytes(32).toString('hex')),
    },
  ],
})
export class IdpModule {}
