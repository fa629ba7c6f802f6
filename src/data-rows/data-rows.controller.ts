import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { OptionalBearerGuard, PermissionWidens, RequirePermission } from '../common/access-guards';
import { success } from '../common/envelope';
import { Ctx, RequestContext } from '../common/request-context';
import { Transactional } from '../common/transactional';
import { AddRelatedAnswer, AddRelatedRequest, DataRow, DataRowsAnswer } from './data-rows.dto';
import { DataRowsService } from './data-rows.service';
import { RelatedService } from './related.service';
import { GetDataRowsRequest } from './row-request.dto';

@ApiTags('Data rows')
@ApiExtraModels(DataRow)
@Controller()
export class DataRowsController {
  constructor(
    private readonly rows: DataRowsService,
    private readonly related: RelatedService,
  ) {}

  @Post('getDataRows')
  @PermissionWidens('content.view')
  @HttpCode(200)
  @UseGuards(OptionalBearerGuard)
  @ApiAccess('site-id', 'admin-bearer')
  @ApiOperation({ summary: 'Rows of a registered table by lifecycle stage (isLive and isAppGrid need an admin bearer)' })
  @ApiOkResponse({ type: DataRowsAnswer, description: '{ status: Success, data: [ rows ] } — versioned rows carry _id and meta_* fields' })
  @ApiFailureResponse(
    400,
    'Validation error: table not registered, unknown or secret column in fields, whereConditions or orderBy, bad paging',
  )
  @ApiFailureResponse(401, 'Unauthorized: isLive, isAppGrid or an account table without a bearer, or an invalid bearer')
  @ApiFailureResponse(
    403,
    'Insufficient permissions: isLive, isAppGrid or an account table with the bearer of someone who is not an admin of the app',
  )
  async getDataRows(@Ctx() ctx: RequestContext, @Body() body: GetDataRowsRequest): Promise<DataRowsAnswer> {
    return success(await this.rows.getDataRows(ctx, body));
  }

  @Post('addrelated')
  @HttpCode(200)
  @RequirePermission('content.edit')
  @Transactional()
  @ApiAccess('admin-bearer')
  @ApiOperation({ summary: 'Add a core_related link (check: true returns an existing identical link instead of a duplicate)' })
  @ApiOkResponse({ type: AddRelatedAnswer })
  @ApiFailureResponse(400, 'Validation error: data fields, a parent that is not a record of the app')
  @ApiFailureResponse(401, 'Unauthorized: no bearer, or an invalid one')
  @ApiFailureResponse(403, 'Insufficient permissions: not an admin of the app')
  async addRelated(@Ctx() ctx: RequestContext, @Body() body: AddRelatedRequest): Promise<AddRelatedAnswer> {
    const { created, row } = await this.related.add(ctx, body.data, body.check === true);
    return success({ message: created ? 'Link added' : 'Link already exists', data: row });
  }
}
