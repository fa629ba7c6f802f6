import { ArgumentsHost, Body, Catch, Controller, ExceptionFilter, HttpCode, Post, UseFilters, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiAnyOfResponse, ApiFailureResponse, ErrorFailure, RETRY_AFTER } from '../common/api-responses';
import { OptionalBearerGuard, PermissionWidens } from '../common/access-guards';
import { ApiError } from '../common/api-error';
import { DecryptIds } from '../common/decrypt-ids.interceptor';
import { sendError } from '../common/global-exception.filter';
import { AppContext, Ctx, RequestContext } from '../common/request-context';
import { TransactionalConnection } from '../database/transactional-connection';
import { messagingError } from './messaging.errors';
import { MessagingSuccess, NotificationsDisabled, PushFailed, SendNotificationRequest, SendPushRequest } from './notification.dto';
import { NotificationService } from './notification.service';
import { PushService } from './push.service';

/** Messaging answers every authentication failure with `{ status: Error, message: Unauthorized }` (docs/messaging.md), the bearer guard's too. */
@Catch(ApiError)
class MessagingAuthFailure implements ExceptionFilter {
  catch(error: ApiError, host: ArgumentsHost): void {
    const answer =
      error.httpStatus === 401
        ? messagingError('AUTHENTICATION_FAILED', { detail: error.message, body: error.body, headers: error.headers })
        : error;
    sendError(host.switchToHttp().getResponse<FastifyReply>(), answer);
  }
}

@ApiTags('Messaging')
// The site-id header is the only authentication of messaging (a body appID is ignored), except the SQL field of
// /message/notification, which also needs an admin bearer.
@ApiResponse({ status: 401, type: ErrorFailure, description: '{ status: Error, message: Unauthorized }: no, unknown or malformed site-id' })
@AppContext({ siteIdHeaderOnly: true })
@UseFilters(MessagingAuthFailure)
@DecryptIds()
@Controller('message')
export class MessagingController {
  constructor(
    private readonly notifications: NotificationService,
    private readonly push: PushService,
    private readonly connection: TransactionalConnection,
  ) {}

  @Post('notification')
  @PermissionWidens('mail.send')
  @HttpCode(200)
  @UseGuards(OptionalBearerGuard)
  @ApiAccess('site-id', ['site-id', 'admin-bearer'])
  @ApiOperation({
    summary: 'Queue a templated email: writes a Pending log row that the background sender delivers',
    description:
      'site-id alone authenticates a request without SQL. A request with SQL also needs the bearer token of a core_users admin of the same app ' +
      '(checked against the account now). An Authorization header, when sent, must hold a valid access token of the app, SQL or not.',
  })
  @ApiAnyOfResponse(
    200,
    '{ status: Success }, or { status: Failed, message: Notifications are disabled }',
    MessagingSuccess,
    NotificationsDisabled,
  )
  @ApiFailureResponse(
    400,
    'Validation error: bad field, unknown table, no enabled template for the event, no recipient, SQL not enabled, refused or failed',
  )
  @ApiResponse({
    status: 401,
    type: ErrorFailure,
    description:
      '{ status: Error, message: Unauthorized }: no, unknown or malformed site-id; an invalid bearer token or one of another app; SQL without a bearer token',
  })
  @ApiFailureResponse(
    403,
    '{ status: Failed, message: Insufficient permissions }: SQL with the bearer of an account that is not an admin of the app',
  )
  @ApiFailureResponse(
    429,
    "Without an app admin's bearer, the caps per app and window (NOTIFY_ANON_WINDOW_MS) reached: mails to this address " +
      "(NOTIFY_ANON_PER_RECIPIENT: `Too many notifications to this address, try again later`) or of this event's template " +
      '(NOTIFY_ANON_PER_TEMPLATE: `Too many notifications of this event, try again later`); nothing is queued. Or SQL merges of this app ' +
      'busy: its queue is full (NOTIFY_SQL_QUEUE) or the wait ran out (NOTIFY_SQL_QUEUE_WAIT_MS). Retry-After',
    { headers: RETRY_AFTER },
  )
  async notification(@Ctx() ctx: RequestContext, @Body() body: SendNotificationRequest): Promise<MessagingSuccess | NotificationsDisabled> {
    const mail = await this.notifications.prepare(ctx, body);
    if (!mail) return { status: 'Failed', message: 'Notifications are disabled' };
    // Counted before the write (429 over a cap, nothing written), taken back when the write fails.
    const takeBack = await this.notifications.countCapped(ctx, mail);
    try {
      // This route is the edge, but its transaction holds the writes only (not @Transactional()): the SQL merge in
      // prepare may take seconds and, on the embedded database, needs the one connection itself.
      await this.connection.inTransaction(ctx, () => this.notifications.record(ctx, mail));
    } catch (error) {
      await takeBack();
      throw error;
    }
    return { status: 'Success' };
  }

  @Post('sendPush')
  @HttpCode(200)
  @ApiOperation({ summary: "Web push to a customer's stored subscription, signed with the app's VAPID keys" })
  @ApiAccess('site-id')
  @ApiAnyOfResponse(200, '{ status: Success }, or { status: Error } on any failure', MessagingSuccess, PushFailed)
  @ApiFailureResponse(400, 'Validation error: customerID or message missing or not a string')
  async sendPush(@Ctx() ctx: RequestContext, @Body() body: SendPushRequest): Promise<MessagingSuccess | PushFailed> {
    return { status: (await this.push.send(ctx, body)) ? 'Success' : 'Error' };
  }
}
