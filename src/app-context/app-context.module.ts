import { Global, Module } from '@nestjs/common';
import { AppContextGuard } from './app-context.guard';
import { GetAppController } from './get-app.controller';
import { SitesService } from './sites.service';

@Global()
@Module({
  controllers: [GetAppController],
  providers: [SitesService, AppContextGuard],
  exports: [SitesService, AppContextGuard],
})
export class AppContextModule {}
