import { Controller, Get, Header, HttpCode, Param, StreamableFile, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { OptionalBearerGuard } from '../auth';
import { ApiError } from '../common/api-error';
import { successData } from '../common/envelope';
import { MAX_ID } from '../common/id-cipher.service';
import { Ctx, RequestContext } from '../common/request-context';
import { qrContent, qrPng } from './order-qr';
import { OrderStatusService } from './order-status.service';

const NUMBER = /^[1-9]\d{0,9}$/;

@ApiTags('Shop: checkout and payment')
@Controller('ecommerce')
export class OrderStatusController {
  constructor(private readonly statuses: OrderStatusService) {}

  @Get('orderStatus/:id')
  @HttpCode(200)
  @ApiBearerAuth()
  @UseGuards(OptionalBearerGuard)
  @ApiOperation({ summary: 'The status of an order named by its encrypted id; gift tokens once it is paid' })
  @ApiParam({ name: 'id', description: 'Encrypted order id (`_id` of createOrder)' })
  @ApiResponse({
    status: 200,
    description: '{ status: Success, data: { orderStatus, orderStatusLabel, paymentStatus, giftTokens? } }: giftTokens [{ id, token_value, product_id, order_item_id, status, product_title }] once a paid order has gift digital items',
  })
  @ApiResponse({ status: 404, description: 'Order not found (unknown, another app\'s or a tampered id)' })
  async orderStatus(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return successData(await this.statuses.status(ctx, id));
  }

  @Get('genCode/:id')
  @HttpCode(200)
  @Header('cache-control', 'public, max-age=86400')
  @ApiOperation({
    summary: 'A QR code PNG for an order id or product id',
    description: 'The code holds `https://<app domain>/?code=<id>`: a URL of the app\'s own site naming the number, nothing secret. The confirmation email links the order\'s code.',
  })
  @ApiParam({ name: 'id', description: 'A positive number (order id or product id)' })
  @ApiProduces('image/png')
  @ApiResponse({ status: 200, description: 'image/png' })
  @ApiResponse({ status: 400, description: 'Validation error (id must be a positive integer) / Missing app context' })
  async genCode(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    if (!NUMBER.test(id) || Number(id) > MAX_ID) throw ApiError.field('id', 'id must be a positive integer');
    const png = await qrPng(qrContent(ctx.app, Number(id)));
    return new StreamableFile(png, { type: 'image/png', length: png.length });
  }
}
