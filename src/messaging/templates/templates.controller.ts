import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/access-guards';
import { ApiAccess, ApiFailureResponse } from '../../common/api-responses';
import { DecryptIds } from '../../common/decrypt-ids.interceptor';
import { successData } from '../../common/envelope';
import { Ctx, RequestContext } from '../../common/request-context';
import { Transactional } from '../../common/transactional';
import { NotificationTemplatesService } from './notification-templates.service';
import {
  CreateTemplateRequest,
  PreviewTemplateRequest,
  RestoreTemplateRequest,
  TemplateAnswer,
  TemplateDeletedAnswer,
  TemplateEventRequest,
  TemplateListAnswer,
  TemplatePreviewAnswer,
  TemplateTestSendAnswer,
  TemplateVersionsAnswer,
  TestSendTemplateRequest,
  UpdateTemplateRequest,
} from './templates.dto';
import { CREATE_TEMPLATE_DESCRIPTION, PREVIEW_DESCRIPTION, TEST_SEND_DESCRIPTION } from './templates.docs';

const NOT_STAFF = '401 without a bearer (or an invalid one); 403 naming the permission for a staff member whose roles lack it';
const SAVE_CHECKS =
  'Validation error naming the field: event (shape), subject (empty, over 500 characters, more than one line, unknown merge fields), ' +
  'content (empty, over 50000 characters, unbalanced markup, unknown merge fields), from, bcc';

/**
 * The staff API of the app's notification templates (docs/messaging.md "Templates per tenant", README "Staff
 * API: mail templates"): core_notifications rows named by their event. Every change keeps a version.
 */
@ApiTags('Messaging: templates (staff)')
@ApiAccess('admin-bearer')
@ApiFailureResponse(401, NOT_STAFF)
@ApiFailureResponse(403, NOT_STAFF)
@Controller('message/templates')
export class TemplatesController {
  constructor(private readonly templates: NotificationTemplatesService) {}

  @Post('list')
  @RequirePermission('mail.templates.view')
  @HttpCode(200)
  @ApiOperation({ summary: "The app's notification templates, by event name" })
  @ApiOkResponse({ type: TemplateListAnswer })
  async list(@Ctx() ctx: RequestContext): Promise<TemplateListAnswer> {
    return successData(await this.templates.list(ctx));
  }

  @Post('get')
  @RequirePermission('mail.templates.view')
  @HttpCode(200)
  @ApiOperation({ summary: "One of the app's templates, by event" })
  @ApiOkResponse({ type: TemplateAnswer })
  @ApiFailureResponse(400, 'Validation error naming event')
  @ApiFailureResponse(404, 'Template not found (none of this app for the event)')
  async get(@Ctx() ctx: RequestContext, @Body() body: TemplateEventRequest): Promise<TemplateAnswer> {
    return successData(await this.templates.get(ctx, body.event));
  }

  @Post('create')
  @RequirePermission('mail.templates.edit')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({
    summary: 'Create a template for an event (version 1)',
    description: CREATE_TEMPLATE_DESCRIPTION,
  })
  @ApiOkResponse({ type: TemplateAnswer })
  @ApiFailureResponse(400, SAVE_CHECKS)
  @ApiFailureResponse(409, 'A template for this event exists: update it')
  async create(@Ctx() ctx: RequestContext, @Body() body: CreateTemplateRequest): Promise<TemplateAnswer> {
    return successData(await this.templates.create(ctx, body));
  }

  @Post('update')
  @RequirePermission('mail.templates.edit')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Change a template (the fields given); the new state becomes its next version' })
  @ApiOkResponse({ type: TemplateAnswer })
  @ApiFailureResponse(400, SAVE_CHECKS)
  @ApiFailureResponse(404, 'Template not found')
  async update(@Ctx() ctx: RequestContext, @Body() body: UpdateTemplateRequest): Promise<TemplateAnswer> {
    const { event, ...change } = body;
    return successData((await this.templates.update(ctx, event, change)).after);
  }

  @Post('delete')
  @RequirePermission('mail.templates.edit')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({
    summary: 'Delete a template; its last state stays as a version, which templates/restore brings back',
    description: "Deleting order_confirmation, order_admin or order_refund brings back the service's default mail.",
  })
  @ApiOkResponse({ type: TemplateDeletedAnswer })
  @ApiFailureResponse(400, 'Validation error naming event')
  @ApiFailureResponse(404, 'Template not found')
  async delete(@Ctx() ctx: RequestContext, @Body() body: TemplateEventRequest): Promise<TemplateDeletedAnswer> {
    const deleted = await this.templates.delete(ctx, body.event);
    return successData({ event: body.event, version: deleted.version });
  }

  @Post('versions')
  @RequirePermission('mail.templates.view')
  @HttpCode(200)
  @ApiOperation({ summary: "The versions of an event's template, newest first (also of a deleted one)" })
  @ApiOkResponse({ type: TemplateVersionsAnswer })
  @ApiFailureResponse(400, 'Validation error naming event')
  @ApiFailureResponse(404, 'Template not found (no template and no version for the event)')
  async versions(@Ctx() ctx: RequestContext, @Body() body: TemplateEventRequest): Promise<TemplateVersionsAnswer> {
    return successData(await this.templates.listVersions(ctx, body.event));
  }

  @Post('restore')
  @RequirePermission('mail.templates.edit')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({
    summary: 'Make an earlier version current again, as a new version (a deleted template is created again)',
  })
  @ApiOkResponse({ type: TemplateAnswer })
  @ApiFailureResponse(400, 'Validation error naming event or version (or the restored text failing the checks of a save)')
  @ApiFailureResponse(404, 'Template not found / Template version not found')
  async restore(@Ctx() ctx: RequestContext, @Body() body: RestoreTemplateRequest): Promise<TemplateAnswer> {
    return successData((await this.templates.restore(ctx, body.event, body.version)).after);
  }

  @Post('preview')
  @DecryptIds()
  @RequirePermission('mail.templates.view')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Render a template with sample data or the data given: subject, HTML, text, the merge fields used and those missing',
    description: PREVIEW_DESCRIPTION,
  })
  @ApiOkResponse({ type: TemplatePreviewAnswer })
  @ApiFailureResponse(400, 'Validation error naming event, data, subject or content')
  @ApiFailureResponse(404, 'Template not found')
  async preview(@Ctx() ctx: RequestContext, @Body() body: PreviewTemplateRequest): Promise<TemplatePreviewAnswer> {
    return successData(await this.templates.preview(ctx, body.event, body));
  }

  @Post('testSend')
  @DecryptIds()
  @RequirePermission('mail.templates.edit')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({
    summary: 'Send a test of a saved template (enabled or not) to one address through the outbox',
    description: TEST_SEND_DESCRIPTION,
  })
  @ApiOkResponse({ type: TemplateTestSendAnswer })
  @ApiFailureResponse(400, 'Validation error naming event, email or data')
  @ApiFailureResponse(404, 'Template not found')
  @ApiFailureResponse(409, 'Notifications are disabled for this app (core_sites.disable_email)')
  async testSend(@Ctx() ctx: RequestContext, @Body() body: TestSendTemplateRequest): Promise<TemplateTestSendAnswer> {
    const { logId, rendered } = await this.templates.testSend(ctx, body.event, body.email, body.data);
    return successData({ logId, subject: rendered.subject, missingFields: rendered.missingFields });
  }
}
