import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging';
import { VersioningModule } from '../versioning';
import { CommandEdge } from './command-edge';
import { OutboxService } from './outbox.service';
import { SeedService } from './seed.service';
import { TenantService } from './tenant.service';
import { TenantsSeedService } from './tenants-seed.service';
import { UserService } from './user.service';

@Module({
  imports: [VersioningModule, MessagingModule],
  providers: [CommandEdge, SeedService, TenantService, TenantsSeedService, UserService, OutboxService],
  exports: [CommandEdge, SeedService, TenantService, UserService, OutboxService],
})
export class CliModule {}
