import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse, MessageAnswer, RETRY_AFTER } from '../../common/api-responses';
import { BearerGuard, RequirePermission } from '../../common/access-guards';
import { success } from '../../common/envelope';
import { Ctx, RequestContext } from '../../common/request-context';
import { Transactional } from '../../common/transactional';
import { assertSameApp } from '../auth.controller';
import {
  FolderLimitsAnswer,
  FolderLimitsRequest,
  InviteLinkAnswer,
  InviteLinkRequest,
  UserEmailAnswer,
  UserTokenRequest,
  VerifySmsCodeRequest,
} from '../auth.dto';
import { FolderInvitesService } from './folder-invites.service';
import { SmsCodesService } from '../sms/sms-codes.service';
import { SmsTransportService } from '../sms/sms-transport.service';
import { UserLinkTokensService } from './user-link-tokens.service';

/** Invitations to folders and what an invited user does with the link: read the email, get and check an SMS code. */
@ApiTags('Auth')
@Controller('auth')
export class AccountLinksController {
  constructor(
    private readonly links: UserLinkTokensService,
    private readonly smsCodes: SmsCodesService,
    private readonly sms: SmsTransportService,
    private readonly invites: FolderInvitesService,
  ) {}

  @Post('user-email')
  @HttpCode(200)
  @ApiOperation({ summary: 'Email and role of the user named by a userId token' })
  @ApiAccess('none', 'site-id') // the userId token names the app
  @ApiOkResponse({ type: UserEmailAnswer, description: '{ status, email, role }' })
  @ApiFailureResponse(400, 'Token expired / Validation error (userId not a valid token)')
  @ApiFailureResponse(401, "Unauthorized (the token is another app's than the site-id's)")
  async userEmail(@Ctx() ctx: RequestContext, @Body() body: UserTokenRequest): Promise<UserEmailAnswer> {
    const account = await this.links.account(ctx, body.userId);
    return success({ email: account.email, role: account.role });
  }

  @Post('user-sms-code')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: "Send a 6-digit code (10 minutes, single use) to the mobile number of the userId token's user" })
  @ApiAccess('none', 'site-id') // the userId token names the app
  @ApiOkResponse({ type: MessageAnswer, description: '{ status, message: SMS code sent successfully }' })
  @ApiFailureResponse(400, 'Token expired / Mobile number missing / Validation error (userId not a valid token)')
  @ApiFailureResponse(401, "Unauthorized (the token is another app's than the site-id's)")
  @ApiFailureResponse(429, 'Too many SMS codes for this account or number (Retry-After)', { headers: RETRY_AFTER })
  async userSmsCode(@Ctx() ctx: RequestContext, @Body() body: UserTokenRequest): Promise<MessageAnswer> {
    const message = await this.smsCodes.create(ctx, await this.links.account(ctx, body.userId));
    await ctx.afterCommit(() => this.sms.send(message));
    return success({ message: 'SMS code sent successfully' });
  }

  @Post('verify-sms-code')
  @HttpCode(200)
  @ApiOperation({ summary: "Check the SMS code of the userId token's user (not in the original spec; docs/auth.md)" })
  @ApiAccess('none', 'site-id') // the userId token names the app
  @ApiOkResponse({ type: MessageAnswer, description: '{ status, message: SMS code verified }' })
  @ApiFailureResponse(400, 'Invalid or expired SMS code / Too many attempts: request a new SMS code / Token expired / Validation error')
  @ApiFailureResponse(401, "Unauthorized (the token is another app's than the site-id's)")
  async verifySmsCode(@Ctx() ctx: RequestContext, @Body() body: VerifySmsCodeRequest): Promise<MessageAnswer> {
    await this.smsCodes.verify(ctx, await this.links.account(ctx, body.userId), body.code);
    return success({ message: 'SMS code verified' });
  }

  @Post('invite-link')
  @HttpCode(200)
  @RequirePermission('customers.invite')
  @Transactional()
  @ApiAccess('admin-bearer')
  @ApiOperation({
    summary:
      "Admin: give a user access to a folder for 60 days and answer the user's link token (the bearer names the app: no site-id needed)",
  })
  @ApiOkResponse({ type: InviteLinkAnswer, description: '{ status, link }' })
  @ApiFailureResponse(
    401,
    "Unauthorized: no bearer, a broken or expired one, one issued before a password change, or one of another app than the site-id's",
  )
  @ApiFailureResponse(403, 'Insufficient permissions (not an admin of this app)')
  @ApiFailureResponse(400, 'Validation error (user or folder_id not of this app)')
  async inviteLink(@Ctx() ctx: RequestContext, @Body() body: InviteLinkRequest): Promise<InviteLinkAnswer> {
    return success({ link: await this.invites.invite(ctx, body.user, body.folder_id) });
  }

  @Post('getFolderLimits')
  @HttpCode(200)
  @UseGuards(BearerGuard)
  @ApiAccess('bearer')
  @ApiOperation({ summary: 'Folders a user may access now (admins: any user of the app; others: themselves)' })
  @ApiOkResponse({ type: FolderLimitsAnswer, description: '{ status, data: [ { linked } ] }' })
  @ApiFailureResponse(400, 'Validation error (appID, table, userId; appID not the app of this request)')
  @ApiFailureResponse(401, 'Unauthorized')
  @ApiFailureResponse(403, 'Insufficient permissions (a non-admin asking about another user)')
  async getFolderLimits(@Ctx() ctx: RequestContext, @Body() body: FolderLimitsRequest): Promise<FolderLimitsAnswer> {
    assertSameApp(ctx, body.appID);
    return success({ data: await this.invites.limits(ctx, body.userId) });
  }
}
