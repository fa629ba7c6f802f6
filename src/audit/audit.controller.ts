import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../common/access-guards';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { success } from '../common/envelope';
import { Ctx, RequestContext } from '../common/request-context';
import { ListAuditAnswer, ListAuditRequest } from './audit.dto';
import { AuditService } from './audit.service';
import { AUDIT_LOG_DESCRIPTION } from './audit.docs';

const NOT_STAFF = '401 without a bearer; 403 naming audit.view for a bearer that is not a staff member of the app holding it';

/** The audit log's list (README "Audit log"). */
@ApiTags('Staff: audit log')
@ApiAccess('admin-bearer')
@Controller('staff')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Post('audit')
  @RequirePermission('audit.view')
  @HttpCode(200)
  @ApiOperation({
    summary: "The app's audit log, newest first, one page",
    description: AUDIT_LOG_DESCRIPTION,
  })
  @ApiOkResponse({
    type: ListAuditAnswer,
    description:
      '{ status: Success, data: [{ id, actor, action, table, recordId, ip, created, changes }], paging: { page, perPage, hasMore } }',
  })
  @ApiFailureResponse(400, 'Validation error naming the field (actor, action, table, recordId, from, to, page, perPage 1..100)')
  @ApiFailureResponse(401, NOT_STAFF)
  @ApiFailureResponse(403, NOT_STAFF)
  async list(@Ctx() ctx: RequestContext, @Body() body: ListAuditRequest): Promise<ListAuditAnswer> {
    const { data, paging } = await this.audit.list(ctx, body);
    return success({ data, paging });
  }
}
