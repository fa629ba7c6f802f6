import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../common/access-guards';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { success, successData } from '../common/envelope';
import { Ctx, RequestContext } from '../common/request-context';
import { Transactional } from '../common/transactional';
import { ListSendLogAnswer, ListSendLogRequest, SendLogMailAnswer, SendLogMailRequest } from './send-log.dto';
import { SendLogService } from './send-log.service';
import { LIST_SEND_LOG_ANSWER, SEND_LOG_MAIL_ANSWER } from './send-log.docs';

const NOT_STAFF = '401 without a bearer; 403 naming the permission for a bearer of the app whose roles lack it';
const NOT_FOUND = "Mail not found (an unknown id, or another app's mail)";

/**
 * The send log for staff (README "Staff API: the send log"): the app's notifications queued and sent, one mail
 * read whole, and a Failed mail retried. Staff bearer of the app only; `mail.log.view` reads, `mail.log.retry`
 * retries.
 */
@ApiTags('Staff: the send log')
@ApiAccess('admin-bearer')
@Controller('message/log')
export class SendLogController {
  constructor(private readonly sendLog: SendLogService) {}

  @Post()
  @RequirePermission('mail.log.view')
  @HttpCode(200)
  @ApiOperation({
    summary: "The app's notifications, queued and sent, newest first, one page (never the body)",
    description:
      'Filters: status, email (the recipient, exact without regard to case), event (the template), from/to (when queued). ' +
      "Keyset paging: send the previous page's paging.nextCursor as cursor, with the same filters. Every filter has its index, " +
      'so any page, the first or one a million rows deep, reads about perPage index entries.',
  })
  @ApiOkResponse({
    type: ListSendLogAnswer,
    description: LIST_SEND_LOG_ANSWER,
  })
  @ApiFailureResponse(400, 'Validation error naming the field (status, email, event, from, to, cursor, perPage 1..100)')
  @ApiFailureResponse(401, NOT_STAFF)
  @ApiFailureResponse(403, NOT_STAFF)
  async list(@Ctx() ctx: RequestContext, @Body() body: ListSendLogRequest): Promise<ListSendLogAnswer> {
    const { data, paging } = await this.sendLog.list(ctx, body);
    return success({ data, paging });
  }

  @Post('read')
  @RequirePermission('mail.log.view')
  @HttpCode(200)
  @ApiOperation({
    summary: 'One mail of the send log: the subject and body as merged (HTML and text part), its addresses and delivery state',
  })
  @ApiOkResponse({
    type: SendLogMailAnswer,
    description: SEND_LOG_MAIL_ANSWER,
  })
  @ApiFailureResponse(400, 'Validation error naming id')
  @ApiFailureResponse(401, NOT_STAFF)
  @ApiFailureResponse(403, NOT_STAFF)
  @ApiFailureResponse(404, NOT_FOUND)
  async read(@Ctx() ctx: RequestContext, @Body() body: SendLogMailRequest): Promise<SendLogMailAnswer> {
    return successData(await this.sendLog.read(ctx, body.id));
  }

  @Post('retry')
  @RequirePermission('mail.log.retry')
  @Transactional()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Put a Failed mail back in the queue: Pending, due now, attempts from zero',
    description:
      "The senders of every instance are woken once the change committed; the mail's last error stays until a send succeeds. " +
      "The same as the CLI's `mail:retry --id`, for one mail of the app.",
  })
  @ApiOkResponse({ type: SendLogMailAnswer, description: '{ status: Success, data: the mail as now queued (status Pending) }' })
  @ApiFailureResponse(400, 'Validation error naming id')
  @ApiFailureResponse(401, NOT_STAFF)
  @ApiFailureResponse(403, NOT_STAFF)
  @ApiFailureResponse(404, NOT_FOUND)
  @ApiFailureResponse(409, 'The mail is Pending (or Sent): only a Failed mail can be retried')
  async retry(@Ctx() ctx: RequestContext, @Body() body: SendLogMailRequest): Promise<SendLogMailAnswer> {
    const { after } = await this.sendLog.retry(ctx, body.id);
    return successData(after);
  }
}
