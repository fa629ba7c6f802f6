import { Controller, Get, Header, HttpCode, Param, StreamableFile, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse, ApiMediaResponse } from '../../common/api-responses';
import { OrderStatusAnswerDto } from './checkout.dto';
import { OptionalBearerGuard } from '../../common/access-guards';
import { ApiError } from '../../common/api-error';
import { successData } from '../../common/envelope';
import { MAX_ID } from '../../common/id-cipher.service';
import { Ctx, RequestContext } from '../../common/request-context';
import { QrCodes, qrContent } from '../completion/order-qr';
import { OrderStatusService } from './order-status.service';
import { GEN_CODE_DESCRIPTION, ORDER_STATUS_ANSWER } from './order-status.docs';

const NUMBER = /^[1-9]\d{0,9}$/;

@ApiTags('Shop: checkout and payment')
@Controller('ecommerce')
export class OrderStatusController {
  /** Kept and bounded per tenant (QrCodes): the PNG of a code is rendered once, not on every request. */
  readonly qrCodes = new QrCodes();

  constructor(private readonly statuses: OrderStatusService) {}

  @Get('orderStatus/:id')
  @HttpCode(200)
  @ApiAccess('site-id', 'customer-bearer')
  @UseGuards(OptionalBearerGuard)
  @ApiOperation({ summary: 'The status of an order named by its encrypted id; gift tokens once it is paid' })
  @ApiParam({ name: 'id', description: 'Encrypted order id (`_id` of createOrder)' })
  @ApiOkResponse({
    type: OrderStatusAnswerDto,
    description: ORDER_STATUS_ANSWER,
  })
  @ApiFailureResponse(401, 'Unauthorized: an invalid bearer token (the bearer is optional)')
  @ApiFailureResponse(404, "Order not found (unknown, another app's or a tampered id)")
  async orderStatus(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<OrderStatusAnswerDto> {
    return successData(await this.statuses.status(ctx, id));
  }

  @Get('genCode/:id')
  @HttpCode(200)
  @Header('cache-control', 'public, max-age=86400')
  @ApiOperation({
    summary: 'A QR code PNG for an order id or product id',
    description: GEN_CODE_DESCRIPTION,
  })
  @ApiAccess('site-id')
  @ApiParam({ name: 'id', type: 'integer', description: 'A positive number (order id or product id)' })
  @ApiMediaResponse(200, 'image/png', 'The QR code (PNG image)', 'binary')
  @ApiFailureResponse(400, 'Validation error (id must be a positive integer) / Missing app context')
  async genCode(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    if (!NUMBER.test(id) || Number(id) > MAX_ID) throw ApiError.field('id', 'id must be a positive integer');
    const png = await this.qrCodes.png(ctx.app.id, qrContent(ctx.app, Number(id)));
    return new StreamableFile(png, { type: 'image/png', length: png.length });
  }
}
