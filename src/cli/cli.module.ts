import { Module } from '@nestjs/common';
import { VersioningModule } from '../versioning';
import { SeedService } from './seed.service';
import { TenantService } from './tenant.service';

@Module({ imports: [VersioningModule], providers: [SeedService, TenantService], exports: [SeedService, TenantService] })
export class CliModule {}
