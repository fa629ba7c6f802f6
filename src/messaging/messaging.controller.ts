import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AppContext, Ctx, RequestContext } from '../common/request-context';
import { MessagingResponse, SendNotificationRequest, SendPushRequest } from './notification.dto';
import { NotificationService } from './notification.service';
import { PushService } from './push.service';

@ApiTags('Messaging')
@ApiHeader({ name: 'site-id', required: true, description: 'Numeric app id; the only authentication of messaging (a body appID is ignored)' })
@ApiUnauthorizedResponse({ description: '{ status: Error, message: Unauthorized }' })
@AppContext({ siteIdHeaderOnly: true })
@Controller('message')
export class MessagingController {
  constructor(
    private readonly notifications: NotificationService,
    private readonly push: PushService,
  ) {}

  @Post('notification')
  @HttpCode(200)
  @ApiOperation({ summary: 'Queue a templated email: writes a Pending log row that the background sender delivers' })
  @ApiOkResponse({ type: MessagingResponse, description: '{ status: Success }, or { status: Failed, message: Notifications are disabled }' })
  @ApiBadRequestResponse({ description: 'Validation error: bad field, unknown table, no enabled template for the event, no recipient, SQL refused or failed' })
  async notification(@Ctx() ctx: RequestContext, @Body() body: SendNotificationRequest): Promise<MessagingResponse> {
    const result = await this.notifications.accept(ctx, body);
    return result.accepted ? { status: 'Success' } : { status: 'Failed', message: 'Notifications are disabled' };
  }

  @Post('sendPush')
  @HttpCode(200)
  @ApiOperation({ summary: 'Web push to a customer\'s stored subscription, signed with the app\'s VAPID keys' })
  @ApiOkResponse({ type: MessagingResponse, description: '{ status: Success }, or { status: Error } on any failure' })
  @ApiBadRequestResponse({ description: 'Validation error: customerID or message missing or not a string' })
  async sendPush(@Ctx() ctx: RequestContext, @Body() body: SendPushRequest): Promise<MessagingResponse> {
    return { status: (await this.push.send(ctx, body)) ? 'Success' : 'Error' };
  }
}
