import { Module } from '@nestjs/common';
import { MessagingModule } from '../messaging';
import { VersioningModule } from '../versioning';
import { OutboxService } from './outbox.service';
import { SeedService } from './seed.service';
import { TenantService } from './tenant.service';
import { UserService } from './user.service';

@Module({
  imports: [VersioningModule, MessagingModule],
  providers: [SeedService, TenantService, UserService, OutboxService],
  exports: [SeedService, TenantService, UserService, OutboxService],
})
export class CliModule {}
