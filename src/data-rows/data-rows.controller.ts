import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard, OptionalBearerGuard } from '../auth';
import { success } from '../common/envelope';
import { Ctx, RequestContext } from '../common/request-context';
import { Transactional } from '../common/transactional';
import { AddRelatedRequest, GetDataRowsRequest } from './data-rows.dto';
import { DataRowsService } from './data-rows.service';
import { RelatedService } from './related.service';

@ApiTags('Data rows')
@Controller()
export class DataRowsController {
  constructor(private readonly rows: DataRowsService, private readonly related: RelatedService) {}

  @Post('getDataRows')
  @HttpCode(200)
  @UseGuards(OptionalBearerGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Rows of a registered table by lifecycle stage (isLive and isAppGrid need an admin bearer)' })
  @ApiOkResponse({ description: '{ status: Success, data: [ rows ] } — versioned rows carry _id and meta_* fields' })
  async getDataRows(@Ctx() ctx: RequestContext, @Body() body: GetDataRowsRequest) {
    return success(await this.rows.getDataRows(ctx, body as unknown as Record<string, unknown>));
  }

  @Post('addrelated')
  @HttpCode(200)
  @UseGuards(AdminGuard)
  @Transactional()
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Add a core_related link (check: true returns an existing identical link instead of a duplicate)' })
  async addRelated(@Ctx() ctx: RequestContext, @Body() body: AddRelatedRequest) {
    const { created, row } = await this.related.add(ctx, body.data, body.check === true);
    return success({ message: created ? 'Link added' : 'Link already exists', data: row });
  }
}
