import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../common/access-guards';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { success, successData } from '../common/envelope';
import { Ctx, RequestContext } from '../common/request-context';
import { ContentRowsAnswer, ContentRowsRequest, ContentTablesAnswer, ContentTablesRequest } from './content-tables.dto';
import { ContentTablesService } from './content-tables.service';
import { CONTENT_ROWS_DESCRIPTION, CONTENT_ROWS_ANSWER } from './content-tables.docs';

const BEARER =
  '401 without a bearer (or with one of another app); 403 `Insufficient permissions` naming content.view for a staff member without it';

/** The app's content tables and their records by stage, for the staff (README "Staff API: content tables"). */
@ApiTags('Content (admin)')
@ApiAccess('admin-bearer')
@Controller('content')
export class ContentTablesController {
  constructor(private readonly tables: ContentTablesService) {}

  @Post('tables')
  @HttpCode(200)
  @RequirePermission('content.view')
  @ApiOperation({
    summary: "The app's content tables, each with its records by stage (draft, staged, published, expired) and the columns a form can edit",
    description:
      'The tables /getDataRows and /content/* reach (registered in core_tables), without the account tables, which change through the account routes.',
  })
  @ApiOkResponse({
    type: ContentTablesAnswer,
    description:
      '{ status: Success, data: [{ table, live, titleField, stages: { draft, staged, published, expired }, columns: [{ name, kind, nullable, maxLength }] }] }',
  })
  @ApiFailureResponse(400, 'Validation error')
  @ApiFailureResponse(401, BEARER)
  @ApiFailureResponse(403, BEARER)
  async list(@Ctx() ctx: RequestContext, @Body() _body: ContentTablesRequest): Promise<ContentTablesAnswer> {
    return successData(await this.tables.tables(ctx));
  }

  @Post('rows')
  @HttpCode(200)
  @RequirePermission('content.view')
  @ApiOperation({
    summary: "One page of the app's records of a content table in a stage (drafts and staged ones too), the most recently updated first",
    description: CONTENT_ROWS_DESCRIPTION,
  })
  @ApiOkResponse({
    type: ContentRowsAnswer,
    description: CONTENT_ROWS_ANSWER,
  })
  @ApiFailureResponse(
    400,
    'Validation error naming the field (table: not a content table, or an account table; stage; page; perPage 1..100)',
  )
  @ApiFailureResponse(401, BEARER)
  @ApiFailureResponse(403, BEARER)
  async rows(@Ctx() ctx: RequestContext, @Body() body: ContentRowsRequest): Promise<ContentRowsAnswer> {
    return success(await this.tables.rows(ctx, body.table, body.stage, body));
  }
}
