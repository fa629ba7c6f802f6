import { Module } from '@nestjs/common';
import { SeedService } from './seed.service';
import { TenantService } from './tenant.service';

@Module({ providers: [SeedService, TenantService], exports: [SeedService, TenantService] })
export class CliModule {}
