import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/access-guards';
import { ApiAccess, ApiFailureResponse } from '../../common/api-responses';
import { successData } from '../../common/envelope';
import { Ctx, RequestContext } from '../../common/request-context';
import { Transactional } from '../../common/transactional';
import {
  InviteStaffRequest,
  ListStaffRequest,
  RemoveStaffRequest,
  SetStaffRolesRequest,
  StaffListAnswer,
  StaffMemberAnswer,
} from './staff.dto';
import { StaffService } from './staff.service';
import { STAFF_INVITE_DESCRIPTION } from './staff.docs';

const BEARER =
  '401 without a bearer (or with one of another app); 403 `Insufficient permissions` naming the permission for a staff member without it';
const LAST_OWNER = 'An app keeps at least one owner: make another staff member owner first';

/** The tenant's staff and their roles (README "Staff roles and permissions"). */
@ApiTags('Staff')
@ApiAccess('admin-bearer')
@Controller('staff')
export class StaffController {
  constructor(private readonly staff: StaffService) {}

  @Post('list')
  @HttpCode(200)
  @RequirePermission('staff.view')
  @ApiOperation({ summary: "The app's staff (core_users accounts) with their roles, oldest first" })
  @ApiOkResponse({ type: StaffListAnswer })
  @ApiFailureResponse(400, 'Validation error')
  @ApiFailureResponse(401, BEARER)
  @ApiFailureResponse(403, BEARER)
  async list(@Ctx() ctx: RequestContext, @Body() _body: ListStaffRequest): Promise<StaffListAnswer> {
    return successData(await this.staff.list(ctx)) as StaffListAnswer;
  }

  @Post('invite')
  @HttpCode(201)
  @Transactional()
  @RequirePermission('staff.manage')
  @ApiOperation({
    summary: 'Invite a staff member with their roles: an account without a password, and a link to set one by mail',
    description: STAFF_INVITE_DESCRIPTION,
  })
  @ApiCreatedResponse({ type: StaffMemberAnswer })
  @ApiFailureResponse(400, 'Validation error naming email, roles, firstname, lastname or url')
  @ApiFailureResponse(401, BEARER)
  @ApiFailureResponse(403, BEARER)
  @ApiFailureResponse(409, 'User with this email already exists (a staff member or an account with a password)')
  @ApiFailureResponse(429, 'Too many reset links for this address (the reset link limits)')
  async invite(@Ctx() ctx: RequestContext, @Body() body: InviteStaffRequest): Promise<StaffMemberAnswer> {
    return successData(await this.staff.invite(ctx, body)) as StaffMemberAnswer;
  }

  @Post('roles')
  @HttpCode(200)
  @Transactional()
  @RequirePermission('staff.manage')
  @ApiOperation({
    summary: "Set a staff member's roles (exactly the list given; `owner` may be given or taken, but the app keeps one owner)",
    description: "Takes effect at the member's next request: roles are read from the account on every request, not from the token.",
  })
  @ApiOkResponse({ type: StaffMemberAnswer })
  @ApiFailureResponse(400, 'Validation error naming userId or roles')
  @ApiFailureResponse(401, BEARER)
  @ApiFailureResponse(403, BEARER)
  @ApiFailureResponse(404, 'Staff member not found')
  @ApiFailureResponse(409, LAST_OWNER)
  async setRoles(@Ctx() ctx: RequestContext, @Body() body: SetStaffRolesRequest): Promise<StaffMemberAnswer> {
    return successData(await this.staff.setRoles(ctx, body.userId, body.roles)) as StaffMemberAnswer;
  }

  @Post('remove')
  @HttpCode(200)
  @Transactional()
  @RequirePermission('staff.manage')
  @ApiOperation({
    summary: 'Remove a staff member: no roles, no password, every token void at once (the account row stays for the audit log)',
  })
  @ApiOkResponse({ type: StaffMemberAnswer })
  @ApiFailureResponse(400, 'Validation error naming userId')
  @ApiFailureResponse(401, BEARER)
  @ApiFailureResponse(403, BEARER)
  @ApiFailureResponse(404, 'Staff member not found')
  @ApiFailureResponse(409, LAST_OWNER)
  async remove(@Ctx() ctx: RequestContext, @Body() body: RemoveStaffRequest): Promise<StaffMemberAnswer> {
    return successData(await this.staff.remove(ctx, body.userId)) as StaffMemberAnswer;
  }
}
