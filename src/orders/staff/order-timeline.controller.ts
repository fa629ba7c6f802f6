import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/access-guards';
import { ApiAccess, ApiFailureResponse } from '../../common/api-responses';
import { DecryptIds } from '../../common/decrypt-ids.interceptor';
import { successData } from '../../common/envelope';
import { Ctx, RequestContext } from '../../common/request-context';
import { Transactional } from '../../common/transactional';
import { OrderAccessService } from '../order-access.service';
import { AddOrderNoteAnswer, AddOrderNoteRequest, OrderTimelineAnswer, OrderTimelineRequest } from './order-timeline.dto';
import { OrderTimelineService } from './order-timeline.service';

const NOT_FOUND = "Order not found (an unknown, tampered or another app's encrypted id)";
const NOT_STAFF = (permission: string) =>
  `401 without a bearer; 403 naming ${permission} for a bearer that is not a staff member of the app holding it`;

/** An order's timeline and its staff notes (README "Order timeline and notes"). */
@ApiTags('Shop: refunds and admin')
@ApiAccess('admin-bearer')
@DecryptIds()
@Controller('ecommerce')
export class OrderTimelineController {
  constructor(
    private readonly timelines: OrderTimelineService,
    private readonly access: OrderAccessService,
  ) {}

  @Post('orderTimeline')
  @RequirePermission('orders.view')
  @HttpCode(200)
  @ApiOperation({
    summary: "An order's events in time order",
    description:
      'Assembled from what the database holds: created, cart items added and changed, each checkout (payment intent), payment events received, completion, ' +
      'refunds, cancellation (its audit row), mails written and sent (the send log), and staff notes. Oldest first; events of the same instant in that order.',
  })
  @ApiOkResponse({
    type: OrderTimelineAnswer,
    description: '{ status: Success, data: { _id, orderID, events: [{ at, type, summary, details }] } }',
  })
  @ApiFailureResponse(400, 'Validation error naming the field (_orderID)')
  @ApiFailureResponse(401, NOT_STAFF('orders.view'))
  @ApiFailureResponse(403, NOT_STAFF('orders.view'))
  @ApiFailureResponse(404, NOT_FOUND)
  async orderTimeline(@Ctx() ctx: RequestContext, @Body() body: OrderTimelineRequest): Promise<OrderTimelineAnswer> {
    return successData(await this.timelines.timeline(ctx, this.access.refOf(ctx, body)));
  }

  @Post('addOrderNote')
  @RequirePermission('orders.note')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({
    summary: 'Add a staff note to an order',
    description:
      'The note (1..2000 characters) is kept with its author and time, shown in the order timeline, and audited (`order.note`) in the same transaction.',
  })
  @ApiOkResponse({ type: AddOrderNoteAnswer, description: '{ status: Success, data: { noteID, author, text, created } }' })
  @ApiFailureResponse(400, 'Validation error naming the field (_orderID, text: required, 1..2000 characters, not only blanks)')
  @ApiFailureResponse(401, NOT_STAFF('orders.note'))
  @ApiFailureResponse(403, NOT_STAFF('orders.note'))
  @ApiFailureResponse(404, NOT_FOUND)
  async addOrderNote(@Ctx() ctx: RequestContext, @Body() body: AddOrderNoteRequest): Promise<AddOrderNoteAnswer> {
    return successData(await this.timelines.addNote(ctx, this.access.refOf(ctx, body), body.text));
  }
}
