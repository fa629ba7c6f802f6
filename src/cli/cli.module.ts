import { Module } from '@nestjs/common';
import { PasswordHasher } from '../auth/password-hasher.service';
import { SeedService } from './seed.service';
import { TenantService } from './tenant.service';

@Module({ providers: [SeedService, TenantService, PasswordHasher], exports: [SeedService, TenantService] })
export class CliModule {}
