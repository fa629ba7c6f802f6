import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../common/api-error';
import { success } from '../common/envelope';
import { Ctx, RequestContext } from '../common/request-context';
import { Transactional } from '../common/transactional';
import { AccountsService, Account } from './accounts.service';
import { ADMIN_TABLE, AdminGuard, BearerGuard, isAppAdmin } from './auth.guards';
import { assertSameApp } from './auth.controller';
import { FolderLimitsRequest, InviteLinkRequest, UserTokenRequest, VerifySmsCodeRequest } from './auth.dto';
import { FolderInvitesService } from './folder-invites.service';
import { SmsCodesService } from './sms-codes.service';
import { SmsTransport } from './sms-transport.service';
import { UserLinkTokens } from './user-link-tokens.service';

/** Invitations to folders and what an invited user does with the link: read the email, get and check an SMS code. */
@ApiTags('Auth')
@Controller('auth')
export class AccountLinksController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly links: UserLinkTokens,
    private readonly smsCodes: SmsCodesService,
    private readonly sms: SmsTransport,
    private readonly invites: FolderInvitesService,
  ) {}

  @Post('user-email')
  @HttpCode(200)
  @ApiOperation({ summary: 'Email and role of the user named by a userId token' })
  @ApiResponse({ status: 200, description: '{ status, email, role }' })
  @ApiResponse({ status: 400, description: 'Token expired / Validation error (userId not a valid token)' })
  @ApiResponse({ status: 401, description: "Unauthorized (the token is another app's than the site-id's)" })
  async userEmail(@Ctx() ctx: RequestContext, @Body() body: UserTokenRequest) {
    const account = await this.accountOf(ctx, body.userId);
    return success({ email: account.email, role: account.role });
  }

  @Post('user-sms-code')
  @HttpCode(200)
  @ApiOperation({ summary: "Send a 6-digit code (10 minutes, single use) to the mobile number of the userId token's user" })
  @ApiResponse({ status: 200, description: '{ status, message: SMS code sent successfully }' })
  @ApiResponse({ status: 400, description: 'Token expired / Mobile number missing' })
  @ApiResponse({ status: 429, description: 'Too many SMS codes for this account or number' })
  async userSmsCode(@Ctx() ctx: RequestContext, @Body() body: UserTokenRequest) {
    const account = await this.accountOf(ctx, body.userId);
    const site = ctx.site ?? (await this.siteOf(ctx, account));
    const message = await this.smsCodes.create(ctx, site, account);
    await this.sms.send(message);
    return success({ message: 'SMS code sent successfully' });
  }

  @Post('verify-sms-code')
  @HttpCode(200)
  @ApiOperation({ summary: 'Check the SMS code of the userId token\'s user (not in the original spec; docs/auth.md)' })
  @ApiResponse({ status: 200, description: '{ status, message: SMS code verified }' })
  @ApiResponse({ status: 400, description: 'Invalid or expired SMS code / Too many attempts: request a new SMS code / Token expired' })
  async verifySmsCode(@Ctx() ctx: RequestContext, @Body() body: VerifySmsCodeRequest) {
    const account = await this.accountOf(ctx, body.userId);
    await this.smsCodes.verify(ctx, account, body.code);
    return success({ message: 'SMS code verified' });
  }

  @Post('invite-link')
  @HttpCode(200)
  @UseGuards(AdminGuard)
  @Transactional()
  @ApiBearerAuth()
  @ApiOperation({ summary: "Admin: give a user access to a folder for 60 days and answer the user's link token (the bearer names the app: no site-id needed)" })
  @ApiResponse({ status: 200, description: '{ status, link }' })
  @ApiResponse({ status: 401, description: "Unauthorized: no bearer, a broken or expired one, one issued before a password change, or one of another app than the site-id's" })
  @ApiResponse({ status: 403, description: 'Insufficient permissions (not an admin of this app)' })
  @ApiResponse({ status: 400, description: 'Validation error (user or folder_id not of this app)' })
  async inviteLink(@Ctx() ctx: RequestContext, @Body() body: InviteLinkRequest) {
    return success({ link: await this.invites.invite(ctx, body.user, body.folder_id) });
  }

  @Post('getFolderLimits')
  @HttpCode(200)
  @UseGuards(BearerGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Folders a user may access now (admins: any user of the app; others: themselves)' })
  @ApiResponse({ status: 200, description: '{ status, data: [ { linked } ] }' })
  @ApiResponse({ status: 401, description: 'Unauthorized' })
  @ApiResponse({ status: 403, description: 'Insufficient permissions (a non-admin asking about another user)' })
  async getFolderLimits(@Ctx() ctx: RequestContext, @Body() body: FolderLimitsRequest) {
    assertSameApp(ctx, body.appID);
    const principal = ctx.principal!;
    const admin = isAppAdmin(principal);
    const self = principal.authTable === ADMIN_TABLE && principal.userId === body.userId;
    if (!admin && !self) throw ApiError.forbidden();
    return success({ data: await this.invites.limits(ctx, body.userId) });
  }

  private async accountOf(ctx: RequestContext, token: string): Promise<Account> {
    const link = this.links.read(ctx, token);
    const account = await this.accounts.findById(ctx, link.appId, ADMIN_TABLE, link.userId);
    if (!account) throw ApiError.field('userId', 'userId is not a valid user token');
    return account;
  }

  private async siteOf(ctx: RequestContext, account: Account) {
    const site = await this.accounts.siteOf(ctx, account.appId);
    if (!site) throw ApiError.field('userId', 'userId is not a valid user token');
    return site;
  }
}
