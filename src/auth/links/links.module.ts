import { Module } from '@nestjs/common';
import { AccountRepository } from '../repositories/account.repository';
import { FolderRepository } from '../repositories/folder.repository';
import { SmsModule } from '../sms/sms.module';
import { AccountLinksController } from './account-links.controller';
import { FolderInvitesService } from './folder-invites.service';
import { UserLinkTokensService } from './user-link-tokens.service';

/** Signed links for core_users: e-mail and SMS verification links, folder invitations and their limits. */
@Module({
  imports: [SmsModule],
  controllers: [AccountLinksController],
  providers: [AccountRepository, FolderRepository, UserLinkTokensService, FolderInvitesService],
})
export class LinksModule {}
