import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppContextGuard } from './app-context.guard';
import { Site } from './entities/site.entity';
import { GetAppController } from './get-app.controller';
import { SiteRepository } from './repositories/site.repository';
import { SiteCache } from './site-cache';
import { SitesService } from './sites.service';

/** Tenant resolution: the core_sites table (with its cache), the site-id guard that fills every request's context, /getApp. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Site])],
  controllers: [GetAppController],
  providers: [SiteRepository, SitesService, SiteCache, AppContextGuard, { provide: APP_GUARD, useExisting: AppContextGuard }],
  exports: [SitesService],
})
export class AppContextModule {}
