import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../common/access-guards';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { DecryptIds } from '../common/decrypt-ids.interceptor';
import { successData } from '../common/envelope';
import { Ctx, RequestContext } from '../common/request-context';
import { Transactional } from '../common/transactional';
import { ReadSettingsAnswer, ReadSettingsRequest, UpdateSettingsAnswer, UpdateSettingsRequest } from './settings.dto';
import { SettingsService } from './settings.service';
import { READ_SETTINGS_DESCRIPTION, UPDATE_SETTINGS_400, UPDATE_SETTINGS_DESCRIPTION } from './settings.docs';

const NOT_STAFF = (permission: string) =>
  `401 without a bearer; 403 naming ${permission} for a bearer that is not a staff member of the app holding it`;

/** The tenant's settings for its owners (README "Tenant settings"). */
@ApiTags('Staff: tenant settings')
@ApiAccess('admin-bearer')
@Controller('staff')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Post('settings')
  @RequirePermission('settings.view')
  @HttpCode(200)
  @ApiOperation({
    summary: "The tenant's settings",
    description: READ_SETTINGS_DESCRIPTION,
  })
  @ApiOkResponse({ type: ReadSettingsAnswer })
  @ApiFailureResponse(400, 'Validation error (appID)')
  @ApiFailureResponse(401, NOT_STAFF('settings.view'))
  @ApiFailureResponse(403, NOT_STAFF('settings.view'))
  async read(@Ctx() ctx: RequestContext, @Body() _body: ReadSettingsRequest): Promise<ReadSettingsAnswer> {
    return successData(await this.settings.read(ctx));
  }

  @Post('settings/update')
  @DecryptIds()
  @RequirePermission('settings.manage')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({
    summary: "Change the tenant's settings",
    description: UPDATE_SETTINGS_DESCRIPTION,
  })
  @ApiOkResponse({ type: UpdateSettingsAnswer })
  @ApiFailureResponse(400, UPDATE_SETTINGS_400)
  @ApiFailureResponse(401, NOT_STAFF('settings.manage'))
  @ApiFailureResponse(403, NOT_STAFF('settings.manage'))
  async update(@Ctx() ctx: RequestContext, @Body() body: UpdateSettingsRequest): Promise<UpdateSettingsAnswer> {
    const { settings, changed } = await this.settings.update(ctx, body.changes);
    return successData({ ...settings, changed });
  }
}
